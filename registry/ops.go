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
// P (members P does not know are ignored, for forward compatibility).
func op[P, R any](name wire.Op, access wire.Access, doc string,
	handle func(h *Handler, ctx context.Context, c *call, p *P) (R, *wire.Error)) opSpec {
	return opSpec{name: name, access: access, doc: doc,
		serve: func(ctx context.Context, h *Handler, c *call, line []byte) (any, *wire.Error) {
			var p P
			if err := json.Unmarshal(line, &p); err != nil {
				return nil, decodeError(err)
			}
			r, e := handle(h, ctx, c, &p)
			if e != nil {
				return nil, e
			}
			return r, nil
		}}
}

// opTable is every op the socket answers. README's "Socket API" section
// is tested against it.
var opTable = []opSpec{
	op(wire.OpStatus, wire.ReadOnly, "workspace, pid, key fingerprint, journal heads, pending approvals, health", (*Handler).opStatus),
	op(wire.OpIssue, wire.Session, "issue a lease from `manifest` under `parent` (or the root policy); a refusal is an answer", (*Handler).opIssue),
	op(wire.OpGate, wire.Session, "decide a tool call (`tool`, `input`) under `lease_id`, `admission_id` or `session`; waits while a human decides", (*Handler).opGate),
	op(wire.OpCheck, wire.Session, "the same decision as gate, spending nothing, journaled as a check (`ask` when a human would decide)", (*Handler).opCheck),
	op(wire.OpUsage, wire.Session, "charge `tokens` and `cost_usd` (with their `source`) to `lease_id` and its ancestors", (*Handler).opUsage),
	op(wire.OpFinish, wire.Session, "end `lease_id`: `status` \"completed\", or \"stopped\" (operator only)", (*Handler).opFinish),
	op(wire.OpLeases, wire.ReadOnly, "list every lease and refusal", (*Handler).opLeases),
	op(wire.OpLease, wire.ReadOnly, "one lease in full: the signed lease, the declaration, recent activity", (*Handler).opLease),
	op(wire.OpRevoke, wire.Operator, "revoke `lease_id` and its live subtree, with a `reason`, `by` the issuer or an ancestor", (*Handler).opRevoke),
	op(wire.OpApprovals, wire.ReadOnly, "list pending approval requests", (*Handler).opApprovals),
	op(wire.OpAdmit, wire.Session, "begin a turn of `session` (issuing its lease from `manifest` on the first), or with `no_turn` only make sure of the lease", (*Handler).opAdmit),
	op(wire.OpReport, wire.Session, "record a tool's outcome (post-tool) for `admission_id`; a write outside the grant revokes the lease", (*Handler).opReport),
	op(wire.OpTelemetry, wire.Session, "record a turn's usage; figures with an accurate `source` are charged", (*Handler).opTelemetry),
	op(wire.OpEndSession, wire.Session, "end `session`: finalize its open turn, complete its lease and live subtree", (*Handler).opEndSession),
	op(wire.OpFinalize, wire.Session, "end the turn `admission_id` and certify it", (*Handler).opFinalize),
	op(wire.OpRunBegin, wire.Operator, "issue a confined run's session lease from the `client`'s `manifest`; answers the lease and the run ticket its tree's hooks present", (*Handler).opRunBegin),
	op(wire.OpRunConfined, wire.Operator, "record how the run's tree under `lease_id` is held (`confined`, `landlock_abi`, `mount_namespace`, `network`, or the `reason` it is not)", (*Handler).opRunConfined),
	op(wire.OpRunLive, wire.Operator, "whether the run's `lease_id` may still act: live on its whole chain, with budget left", (*Handler).opRunLive),
	op(wire.OpRunEnd, wire.Operator, "record the end of the run under `lease_id` (`exit_code`, `stopped`, `reason`); closes its ticket and completes its lease", (*Handler).opRunEnd),
	op(wire.OpEgress, wire.Operator, "journal one egress connection of the run under `lease_id` (`phase`, `host`, `port`, `allowed`, `reason`, bytes)", (*Handler).opEgress),
	op(wire.OpDecide, wire.Operator, "approve or deny a pending approval (`outcome`, `scope` once or lease, `reason`)", (*Handler).opDecide),
}

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
