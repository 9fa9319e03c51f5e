package registry

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"sort"
	"strings"

	"github.com/leasedeck/leasedeck/registry/wire"
)

// call is what the dispatcher knows of a message beside its params.
type call struct {
	env      wire.Envelope
	operator bool // the message carries the operator token
	// freshSession: the session the message names did not exist when it
	// was authorized; the service refuses if it exists by the time it acts.
	freshSession bool
	peer         int // the caller's process id (0: unknown), for confined runs
}

// opSpec is one row of the op table: the op, who may call it, a line for
// the README, and its handler over the op's own params type.
type opSpec struct {
	name   wire.Op
	access wire.Access
	doc    string
	serve  func(ctx context.Context, h *Handler, c *call, line []byte) (any, *wire.Error)
}

// op makes a table row from a typed handler: the message is decoded into
// P (members P does not know are ignored, for forward compatibility),
// bind says what a session op touches, and the row authorizes it before
// the handler runs.
func op[P, R any](name wire.Op, access wire.Access, doc string, bind func(*P) scope,
	handle func(h *Handler, ctx context.Context, c *call, p *P) (R, *wire.Error)) opSpec {
	spec := opSpec{name: name, access: access, doc: doc}
	spec.serve = func(ctx context.Context, h *Handler, c *call, line []byte) (any, *wire.Error) {
		var p P
		if err := json.Unmarshal(line, &p); err != nil {
			return nil, decodeError(err)
		}
		var sc scope
		if bind != nil {
			sc = bind(&p)
		}
		if e := h.authorize(&spec, c, sc); e != nil {
			return nil, e
		}
		r, e := handle(h, ctx, c, &p)
		if e != nil {
			return nil, e
		}
		return r, nil
	}
	return spec
}

// opTable is every op the socket answers. README's "Socket API" section
// is tested against it.
var opTable = []opSpec{
	op(wire.OpStatus, wire.ReadOnly, "workspace, pid, key fingerprint, journal heads, pending approvals, health, how it started (from a snapshot or every line) and the last snapshot error", nil, (*Handler).opStatus),
	op(wire.OpIssue, wire.Session, "issue a lease from `manifest` under `parent`, which must be the caller's session lease or under it; a root lease (no `parent`) needs the operator token; a refusal is an answer", bindIssue, (*Handler).opIssue),
	op(wire.OpGate, wire.Session, "decide a tool call (`tool`, `input`) under `lease_id`, `admission_id` or `session`; waits while a human decides (the summary the human reads is derived from `input`)", bindGate, (*Handler).opGate),
	op(wire.OpCheck, wire.Session, "the same decision as gate, spending nothing, journaled as a check (`ask` when a human would decide)", bindCheck, (*Handler).opCheck),
	op(wire.OpUsage, wire.Session, "charge `tokens` and `cost_usd` (with their `source`) to `lease_id` (the caller's) and its ancestors", bindUsage, (*Handler).opUsage),
	op(wire.OpFinish, wire.Session, "end `lease_id` (the caller's) with `status` \"completed\"; \"stopped\" needs the operator token", bindFinish, (*Handler).opFinish),
	op(wire.OpLeases, wire.ReadOnly, "list every lease and refusal", nil, (*Handler).opLeases),
	op(wire.OpLease, wire.ReadOnly, "one lease in full: the signed lease, the declaration, recent activity", nil, (*Handler).opLease),
	op(wire.OpRevoke, wire.Operator, "revoke `lease_id` and its live subtree, with a `reason`, `by` the issuer or an ancestor", nil, (*Handler).opRevoke),
	op(wire.OpApprovals, wire.ReadOnly, "list pending approval requests", nil, (*Handler).opApprovals),
	op(wire.OpAdmit, wire.Session, "begin a turn of `session` (a new session gets its lease from `manifest` and its `capability`, once), or with `no_turn` only make sure of the lease; a subagent's needs its parent's capability", bindAdmit, (*Handler).opAdmit),
	op(wire.OpReport, wire.Session, "record a tool's outcome (post-tool) for `admission_id` or `session` (its current turn); a write outside the grant revokes the lease", bindReport, (*Handler).opReport),
	op(wire.OpTelemetry, wire.Session, "record a turn's usage; figures with an accurate `source` are charged", bindTelemetry, (*Handler).opTelemetry),
	op(wire.OpEndSession, wire.Session, "end `session`: finalize its open turn, complete its lease and live subtree", bindEndSession, (*Handler).opEndSession),
	op(wire.OpFinalize, wire.Session, "end the turn `admission_id` and certify it", bindFinalize, (*Handler).opFinalize),
	op(wire.OpRunBegin, wire.Operator, "issue a confined run's session lease from the `client`'s `manifest`; answers the lease and the run ticket its tree's hooks present", nil, (*Handler).opRunBegin),
	op(wire.OpRunConfined, wire.Operator, "record how the run's tree under `lease_id` is held (`confined`, `landlock_abi`, `mount_namespace`, `network`, or the `reason` it is not)", nil, (*Handler).opRunConfined),
	op(wire.OpRunLive, wire.Operator, "whether the run's `lease_id` may still act: live on its whole chain, with budget left", nil, (*Handler).opRunLive),
	op(wire.OpRunEnd, wire.Operator, "record the end of the run under `lease_id` (`exit_code`, `stopped`, `reason`); closes its ticket and completes its lease", nil, (*Handler).opRunEnd),
	op(wire.OpEgress, wire.Operator, "journal one egress connection of the run under `lease_id` (`phase`, `host`, `port`, `allowed`, `reason`, bytes)", nil, (*Handler).opEgress),
	op(wire.OpDecide, wire.Operator, "approve or deny a pending approval (`outcome`, `scope` once or lease, `reason`)", nil, (*Handler).opDecide),
	op(wire.OpHello, wire.ReadOnly, "prove this is the workspace's registry: an HMAC of `nonce` under the handshake secret, with its pid and the enforcement mode and approval timeout in force", nil, (*Handler).opHello),
	op(wire.OpPolicyReload, wire.Operator, "read `policy.json` and `agents/*.json` again and put them in force (journaled with their hashes); a bad file leaves the policy in force", nil, (*Handler).opPolicyReload),
}

// The binders: what each session op's message touches.

func bindIssue(p *wire.IssueParams) scope {
	if p.Parent == "" {
		return scope{operator: "issuing a root lease (no parent)"}
	}
	return scope{leases: []string{p.Parent}, strict: true}
}

func bindGate(p *wire.GateParams) scope {
	switch {
	case p.AdmissionID != "":
		return scope{admissions: []string{p.AdmissionID}}
	case p.LeaseID != "":
		return scope{leases: []string{p.LeaseID}}
	case p.Session != "":
		return scope{sessions: []string{p.Session}, parent: p.ParentSession}
	}
	return scope{}
}

func bindCheck(p *wire.CheckParams) scope { return bindGate((*wire.GateParams)(p)) }

func bindUsage(p *wire.UsageParams) scope { return scope{leases: []string{p.LeaseID}} }

func bindFinish(p *wire.FinishParams) scope {
	if p.Status == string(Stopped) {
		return scope{operator: "finish with status stopped"}
	}
	return scope{leases: []string{p.LeaseID}}
}

func bindAdmit(p *wire.AdmitParams) scope {
	return scope{sessions: []string{p.Session}, parent: p.ParentSession}
}

func bindReport(p *wire.ReportParams) scope {
	if p.AdmissionID == "" && p.Session != "" {
		return scope{sessions: []string{p.Session}, parent: p.ParentSession}
	}
	return scope{admissions: []string{p.AdmissionID}}
}

func bindTelemetry(p *wire.TelemetryParams) scope {
	return scope{admissions: []string{p.AdmissionID}}
}

func bindEndSession(p *wire.EndSessionParams) scope { return scope{sessions: []string{p.Session}} }

func bindFinalize(p *wire.FinalizeParams) scope { return scope{admissions: []string{p.AdmissionID}} }

var opIndex = func() map[wire.Op]*opSpec {
	m := make(map[wire.Op]*opSpec, len(opTable))
	for i := range opTable {
		m[opTable[i].name] = &opTable[i]
	}
	return m
}()

func knownOps() string {
	names := make([]string, 0, len(opTable))
	for _, o := range opTable {
		names = append(names, string(o.name))
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// operator reports whether token is the operator token.
func (h *Handler) operator(token string) bool {
	return h.token != "" && subtle.ConstantTimeCompare([]byte(token), []byte(h.token)) == 1
}

func needsOperator(op wire.Op) *wire.Error {
	return wire.Errorf(wire.Unauthorized, "%s needs the operator token (only a human at the keyboard decides)", op)
}
