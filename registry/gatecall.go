package registry

import (
	"context"
	"encoding/json"
	"time"

	"github.com/leasedeck/leasedeck/approvals"
	"github.com/leasedeck/leasedeck/redact"
	"github.com/leasedeck/leasedeck/registry/record"
	"github.com/leasedeck/leasedeck/registry/resources"
	"github.com/leasedeck/leasedeck/schemas"
)

// GateRequest is one tool call presented under a lease.
type GateRequest struct {
	LeaseID string
	Call    ToolCall
	Client  string
	Summary string // redacted one-line summary; derived from the tool when empty
	// InputHash binds an approval to the exact input; derived when empty.
	InputHash string
	// MaxWait caps how long a call that needs a human may wait (the
	// client's own hook timeout minus a margin). Zero: the policy's.
	MaxWait time.Duration
	// DryRun decides without recording or spending anything (`check`).
	DryRun bool
	// ClientPrompt: the hook can put a held call to the client's own
	// permission prompt; the policy decides whether it is (clientask.go).
	ClientPrompt bool
	// ToolUseID is the client's id of the call (clipped; it is the
	// model's text), which its post-tool event repeats.
	ToolUseID string

	admission string // the lifecycle turn this call belongs to, if any
	// decided is the human decision a held call was answered by, so its
	// gate line says who decided and how far it reaches.
	decided *approvals.Decision
}

// GateAnswer is the gate's final answer to a call.
type GateAnswer struct {
	Verdict    Verdict  `json:"decision"`
	Reason     string   `json:"reason"`
	ApprovalID string   `json:"approval_id,omitempty"`
	Approvals  []string `json:"approvals,omitempty"`
	DecidedBy  string   `json:"decided_by,omitempty"`
	AskedIn    string   `json:"asked_in,omitempty"`

	// refused is set when the call was refused before anything was
	// recorded (too many approvals pending): the socket answers its code.
	refused error
	// Seq and EventID name the audit line that records this answer, so a
	// client can point to it; zero when nothing could be recorded.
	Seq     uint64 `json:"seq,omitempty"`
	EventID string `json:"event_id,omitempty"`
}

// recorded is the answer naming the audit line that records it.
func (a GateAnswer) recorded(r auditRef) GateAnswer {
	a.Seq, a.EventID = r.Seq, r.EventID
	return a
}

// Gate decides a tool call. A call that needs a human waits here until
// the decision is durable, the deadline passes (deny) or ctx ends (deny).
//
// Everything that costs in proportion to the input — its size, the shell
// parse, the secret scan, the summary, the hash — is done before the
// registry's lock is taken, so one large call cannot stall every other
// agent. The summary a human reads is derived here from the call itself
// (redacted), never taken from the caller.
func (s *Service) Gate(ctx context.Context, req GateRequest) GateAnswer {
	now := s.Now()
	facts := s.factsOf(req.Call)
	req.Summary = facts.summary
	if req.InputHash == "" {
		if facts.tooBig != "" {
			req.InputHash = plainHash(req.Call) // refused unread: no approval binds to it
		} else {
			req.InputHash = inputHash(req.Call)
		}
	}
	// An unhealthy journal refuses every call, so a dry run answers what the
	// call would get: deny, with the reason.
	if err := s.Health(); err != nil {
		return GateAnswer{Verdict: VerdictDeny, Reason: err.Error()}
	}
	if facts.tooBig != "" {
		return s.refuseCall(req, VerdictDeny, facts.tooBig)
	}
	if len(facts.use.GitReads) > 0 || len(facts.use.TreeReads) > 0 {
		// The walk below a recursive read's roots and the read of a
		// repository read the file system: done before the lock, against
		// the lease's deny list (which a lease keeps for life; decide
		// reads again if it differs).
		s.mu.Lock()
		deny, ok := s.leaseDeny(req.LeaseID)
		s.mu.Unlock()
		if ok {
			deny = treeDeny(deny)
			if len(facts.use.GitReads) > 0 {
				facts.use.GitChecked = &resources.GitCheck{Deny: deny, Result: resources.CheckGitReads(facts.use.GitReads, deny)}
			}
			if len(facts.use.TreeReads) > 0 {
				facts.use.TreeChecked = &resources.TreeCheck{Deny: deny, Result: resources.CheckTrees(facts.use.TreeReads, deny)}
			}
		}
	}
	s.mu.Lock()
	res := s.cfg.Calls.decide(s.st, req.LeaseID, req.Call, facts, now, s.book.Covered)
	if res.Verdict == VerdictAllow || res.Verdict == VerdictAsk {
		if why := s.reservedOut(req.LeaseID); why != "" {
			res.Verdict, res.Reason = VerdictBlock, why
		}
	}
	inClient := res.Verdict == VerdictAsk && req.admission != "" && req.ClientPrompt && s.cfg.Policy != nil && s.cfg.Policy.ApproveIn == ApproveInClient
	if req.DryRun {
		s.mu.Unlock()
		// A dry run is journaled like a call, so probing the gate shows.
		ans := GateAnswer{Verdict: res.Verdict, Reason: res.Reason, Approvals: res.Approvals}
		if inClient {
			ans.AskedIn = ApproveInClient
		}
		ref, err := s.recordGate(req, res.Verdict, res.Reason, "")
		if err != nil {
			return GateAnswer{Verdict: VerdictDeny, Reason: "the check could not be recorded, so it answers deny: " + err.Error()}
		}
		return ans.recorded(ref)
	}
	switch res.Verdict {
	case VerdictAllow:
		s.reserve(req.LeaseID, 1)
		s.mu.Unlock()
		return s.commitAllow(req, res.Reason, "")
	case VerdictAsk:
		if inClient {
			// Charged now, as an allowed call is: once the client asks,
			// the registry can no longer stop the call.
			s.reserve(req.LeaseID, 1)
			s.mu.Unlock()
			return s.askInClient(req, res)
		}
		s.mu.Unlock()
		return s.askCapped(ctx, req, res)
	default:
		s.mu.Unlock()
		return s.refuseCall(req, res.Verdict, res.Reason)
	}
}

// refuseCall records a refusal (or, for a dry run, the check) and answers
// it.
func (s *Service) refuseCall(req GateRequest, v Verdict, reason string) GateAnswer {
	ref, err := s.recordGate(req, v, reason, "")
	if err != nil {
		return GateAnswer{Verdict: v, Reason: reason + " (and the decision could not be recorded: " + err.Error() + ")"}
	}
	return GateAnswer{Verdict: v, Reason: reason}.recorded(ref)
}

// commitAllow records an allowed call (charging one step up the chain)
// and answers allow only once the line is durable.
func (s *Service) commitAllow(req GateRequest, reason, approvalID string) GateAnswer {
	defer s.unreserve(req.LeaseID, 1)
	ref, err := s.recordGate(req, VerdictAllow, reason, approvalID)
	if err != nil {
		return GateAnswer{Verdict: VerdictDeny, Reason: "the decision could not be recorded, so the call is refused: " + err.Error()}
	}
	return GateAnswer{Verdict: VerdictAllow, Reason: reason, ApprovalID: approvalID}.recorded(ref)
}

func (s *Service) recordGate(req GateRequest, v Verdict, reason, approvalID string) (auditRef, error) {
	et := EventGateDenied
	switch v {
	case VerdictAllow:
		et = EventGateAllowed
	case VerdictAsk:
		et = EventGateHeld
	}
	d := record.Details{LeaseID: req.LeaseID, Tool: req.Call.Tool, Decision: string(v), Client: req.Client,
		ApprovalID: approvalID, AdmissionID: req.admission}
	if req.decided != nil {
		d.By, d.Scope = req.decided.By, string(req.decided.Scope)
	}
	switch {
	case req.DryRun:
		et, d.Extra = EventGateChecked, map[string]any{"dry_run": true}
	case v == VerdictAllow:
		d.Steps = record.Float(1)
	}
	rec := record.NewAudit(et, s.Now(), req.Summary, d)
	// A reason may quote the call (a path, a command): never a secret.
	rec.Reasoning = redact.OneLine(reason, 500)
	rec.RequestHash = req.InputHash
	rec.Outcome = map[Verdict]string{VerdictAllow: "success", VerdictDeny: "failure", VerdictBlock: "failure", VerdictAsk: "partial"}[v]
	return s.appendAuditRef(rec)
}

// plainHash is the SHA-256 of the tool name and the input's JSON, for a
// call too large to canonicalise cheaply.
func plainHash(c ToolCall) string {
	b, _ := json.Marshal(c.Input)
	return schemas.SHA256Hex(append([]byte(c.Tool+"\x00"), b...))
}

// inputHash binds an approval to the exact tool call: the SHA-256 of the
// canonical bytes of the tool name and input.
func inputHash(c ToolCall) string {
	h, err := schemas.Hash(map[string]any{"tool": c.Tool, "input": c.Input})
	if err != nil {
		b, _ := json.Marshal(c.Input)
		return schemas.SHA256Hex(append([]byte(c.Tool+"\x00"), b...))
	}
	return h
}
