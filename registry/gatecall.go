package registry

import (
	"context"
	"encoding/json"
	"strings"
	"time"

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

	admission string // the lifecycle turn this call belongs to, if any
}

// GateAnswer is the gate's final answer to a call.
type GateAnswer struct {
	Verdict    Verdict  `json:"decision"`
	Reason     string   `json:"reason"`
	ApprovalID string   `json:"approval_id,omitempty"`
	Approvals  []string `json:"approvals,omitempty"`
	DecidedBy  string   `json:"decided_by,omitempty"`
}

// Gate decides a tool call. A call that needs a human waits here until
// the decision is durable, the deadline passes (deny) or ctx ends (deny).
func (s *Service) Gate(ctx context.Context, req GateRequest) GateAnswer {
	now := s.Now()
	if req.InputHash == "" {
		req.InputHash = inputHash(req.Call)
	}
	if !req.DryRun {
		if err := s.Health(); err != nil {
			return GateAnswer{Verdict: VerdictDeny, Reason: err.Error()}
		}
	}
	s.mu.Lock()
	res := Evaluate(s.st, s.cfg.Workspace, req.LeaseID, req.Call, now, s.book.Covered)
	if req.Summary == "" {
		req.Summary = summarizeUse(req.Call.Tool, res.Use)
	}
	if res.Verdict == VerdictAllow || res.Verdict == VerdictAsk {
		if why := s.reservedOut(req.LeaseID); why != "" {
			res.Verdict, res.Reason = VerdictBlock, why
		}
	}
	if req.DryRun {
		s.mu.Unlock()
		return GateAnswer{Verdict: res.Verdict, Reason: res.Reason, Approvals: res.Approvals}
	}
	switch res.Verdict {
	case VerdictAllow:
		s.reserve(req.LeaseID, 1)
		s.mu.Unlock()
		return s.commitAllow(req, res.Reason, "")
	case VerdictAsk:
		s.mu.Unlock()
		return s.ask(ctx, req, res)
	default:
		s.mu.Unlock()
		if err := s.recordGate(req, res.Verdict, res.Reason, ""); err != nil {
			return GateAnswer{Verdict: res.Verdict, Reason: res.Reason + " (and the decision could not be recorded: " + err.Error() + ")"}
		}
		return GateAnswer{Verdict: res.Verdict, Reason: res.Reason}
	}
}

// commitAllow records an allowed call (charging one step up the chain)
// and answers allow only once the line is durable.
func (s *Service) commitAllow(req GateRequest, reason, approvalID string) GateAnswer {
	defer s.unreserve(req.LeaseID, 1)
	if err := s.recordGate(req, VerdictAllow, reason, approvalID); err != nil {
		return GateAnswer{Verdict: VerdictDeny, Reason: "the decision could not be recorded, so the call is refused: " + err.Error()}
	}
	return GateAnswer{Verdict: VerdictAllow, Reason: reason, ApprovalID: approvalID}
}

func (s *Service) recordGate(req GateRequest, v Verdict, reason, approvalID string) error {
	et := EventGateDenied
	switch v {
	case VerdictAllow:
		et = EventGateAllowed
	case VerdictAsk:
		et = EventGateHeld
	}
	d := record.Details{LeaseID: req.LeaseID, Tool: req.Call.Tool, Decision: string(v), Client: req.Client,
		ApprovalID: approvalID, AdmissionID: req.admission}
	if v == VerdictAllow {
		d.Steps = record.Float(1)
	}
	rec := record.NewAudit(et, s.Now(), req.Summary, d)
	rec.Reasoning = reason
	rec.RequestHash = req.InputHash
	rec.Outcome = map[Verdict]string{VerdictAllow: "success", VerdictDeny: "failure", VerdictBlock: "failure", VerdictAsk: "partial"}[v]
	return s.appendAudit(rec)
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

// summarizeUse describes a call by what it touches, never by its raw
// input (which may hold secrets or content): the programs it runs, the
// paths it reads and writes, the hosts it reaches.
func summarizeUse(tool string, u resources.Use) string {
	var parts []string
	if len(u.Executables) > 0 {
		parts = append(parts, "runs "+strings.Join(u.Executables, ", "))
	}
	paths := func(verb string, ps []resources.PathRef) {
		if len(ps) == 0 {
			return
		}
		names := make([]string, 0, len(ps))
		for _, p := range ps {
			names = append(names, displayPath(p))
		}
		parts = append(parts, verb+" "+strings.Join(names, ", "))
	}
	paths("writes", u.Writes)
	paths("reads", u.Reads)
	if len(u.Hosts) > 0 {
		parts = append(parts, "reaches "+strings.Join(u.Hosts, ", "))
	}
	if len(parts) == 0 {
		return tool
	}
	return record.ClipField(tool+": "+strings.Join(parts, "; "), record.AuditSummary)
}
