package registry

import (
	"time"

	"github.com/leasedeck/leasedeck/redact"
	"github.com/leasedeck/leasedeck/registry/record"
)

// Approve where the human is: with policy.json `approvals.where: "client"`
// a call the gate holds for a human is put to the client's own permission
// prompt (Claude Code's permissionDecision "ask") instead of the cockpit,
// when the hook says it can ask one there. The registry journals the hold
// (leasedeck.approval.client_asked), charges the call as it charges an
// allowed one (once the client asks, nothing can stop the call), and
// journals what the client's next events say became of it
// (leasedeck.approval.client_answered):
//
//   - a post-tool report with the same tool_use_id (the client's PostToolUse
//     or PostToolUseFailure: the tool ran, so the user allowed it) →
//     "allowed-by-user";
//   - a post-tool report with status "denied" (Claude Code's
//     PermissionDenied) → "declined";
//   - the turn finalized (Stop, SessionEnd) with no post-tool report for
//     it → "declined", inferred: the client runs a call's PostToolUse
//     before it ends the turn;
//   - nothing else: a session that never ends a turn leaves it "unknown"
//     (still open), which the cockpit shows.
//
// The outcome is evidence from the client's hooks, never a decision: the
// call was already charged and checked as an allowed call (its post-tool
// report is scope-checked like any other), and it cannot be approved in
// the cockpit (it is not in the approval book).

// Outcomes of a call asked in the client.
const (
	AskAllowedByUser = "allowed-by-user"
	AskDeclined      = "declined"
	AskUnknown       = "unknown"
)

// maxAnsweredAsks bounds the answered asks kept in memory for display.
const maxAnsweredAsks = 64

// ClientAsk is one call asked in the client.
type ClientAsk struct {
	ID          string // the approval id
	LeaseID     string
	AdmissionID string
	Client      string
	Tool        string
	ToolUseID   string
	Summary     string
	Names       string
	InputHash   string
	AskedAt     time.Time
	Outcome     string // "" while open, else one of the Ask* outcomes
	Source      string // the evidence the outcome was read from
	AnsweredAt  time.Time
}

// askInClient records a held call as asked in the client and answers
// ask. The caller reserved one step for it.
func (s *Service) askInClient(req GateRequest, res GateResult) GateAnswer {
	defer s.unreserve(req.LeaseID, 1)
	id := NewLeaseID()
	a := record.NewAudit(EventApprovalClientAsked, s.Now(), req.Summary, record.Details{
		ApprovalID: id, LeaseID: req.LeaseID, AdmissionID: req.admission, Tool: req.Call.Tool, Client: req.Client,
		Decision: string(VerdictAsk), Names: joinNames(res.Approvals), Steps: record.Float(1),
		Extra: map[string]any{"tool_use_id": redact.OneLine(req.ToolUseID, 120)},
	})
	a.Reasoning = redact.OneLine("asked in the client's own prompt: "+res.Reason, 500)
	a.RequestHash = req.InputHash
	a.Outcome = "partial"
	ref, err := s.appendAuditRef(a)
	if err != nil {
		return GateAnswer{Verdict: VerdictDeny, Reason: "the request could not be recorded, so the call is refused: " + err.Error()}
	}
	return GateAnswer{Verdict: VerdictAsk, AskedIn: ApproveInClient, ApprovalID: id, Approvals: res.Approvals,
		Reason: "leasedeck asks you here: " + res.Reason}.recorded(ref)
}

func joinNames(n []string) string {
	out := ""
	for i, s := range n {
		if i > 0 {
			out += " "
		}
		out += s
	}
	return out
}

// openAsk finds the open ask of admission a post-tool report is about: by
// tool_use_id when both carry one, else by the tool and the exact input.
func (st *State) openAsk(admission, toolUseID, tool, inputHash string) *ClientAsk {
	var best *ClientAsk
	for _, c := range st.ClientAsks {
		if c.AdmissionID != admission || c.Tool != tool {
			continue
		}
		if toolUseID != "" && c.ToolUseID != "" {
			if c.ToolUseID == toolUseID {
				return c
			}
			continue
		}
		if c.InputHash == inputHash && (best == nil || c.AskedAt.Before(best.AskedAt)) {
			best = c
		}
	}
	return best
}

// answerAsk journals the outcome of an open ask.
func (s *Service) answerAsk(c ClientAsk, outcome, source string) error {
	a := record.NewAudit(EventApprovalClientAnswered, s.Now(), c.Summary, record.Details{
		ApprovalID: c.ID, LeaseID: c.LeaseID, AdmissionID: c.AdmissionID, Tool: c.Tool, Client: c.Client,
		Outcome: outcome, Source: source, By: "client",
	})
	a.RequestHash = c.InputHash
	return s.appendAudit(a)
}

// reportAsk answers the open ask a post-tool report is about, if any.
func (s *Service) reportAsk(admission string, call ToolCall, status, toolUseID string) error {
	hash := inputHash(call)
	if oversize(call) != "" {
		hash = plainHash(call)
	}
	s.mu.Lock()
	c := s.st.openAsk(admission, redact.OneLine(toolUseID, 120), call.Tool, hash)
	var found ClientAsk
	if c != nil {
		found = *c
	}
	s.mu.Unlock()
	if c == nil {
		return nil
	}
	if status == "denied" {
		return s.answerAsk(found, AskDeclined, "the client's permission-denied event")
	}
	return s.answerAsk(found, AskAllowedByUser, "the client's post-tool event (status "+orUnknown(status)+"): the tool ran")
}

// declineOpenAsks answers every open ask of a turn that ends: no post-tool
// report came for it, so the client did not run it.
func (s *Service) declineOpenAsks(admission string) error {
	s.mu.Lock()
	var open []ClientAsk
	for _, c := range s.st.ClientAsks {
		if c.AdmissionID == admission {
			open = append(open, *c)
		}
	}
	s.mu.Unlock()
	for _, c := range open {
		if err := s.answerAsk(c, AskDeclined, "the turn ended with no post-tool event for it"); err != nil {
			return err
		}
	}
	return nil
}

// foldClientAsk applies the two client-ask events to the state: an ask is
// charged and counted as an allowed call (its post-tool report is then
// gated, not "ungated"); an answer closes it.
func (st *State) foldClientAsk(a *record.Audit) {
	d := &a.Details
	switch a.EventType {
	case EventApprovalClientAsked:
		tid, _ := d.Extra["tool_use_id"].(string)
		st.ClientAsks[d.ApprovalID] = &ClientAsk{ID: d.ApprovalID, LeaseID: d.LeaseID, AdmissionID: d.AdmissionID,
			Client: d.Client, Tool: d.Tool, ToolUseID: tid, Summary: a.Summary, Names: d.Names,
			InputHash: a.RequestHash, AskedAt: a.Time()}
		if adm := st.Admissions[d.AdmissionID]; adm != nil {
			adm.Gated++
			adm.Allowed++
			adm.pendingOK[d.Tool]++
		}
	case EventApprovalClientAnswered:
		c := st.ClientAsks[d.ApprovalID]
		if c == nil {
			return
		}
		delete(st.ClientAsks, d.ApprovalID)
		c.Outcome, c.Source, c.AnsweredAt = d.Outcome, d.Source, a.Time()
		if adm := st.Admissions[c.AdmissionID]; adm != nil && c.Outcome == AskDeclined && adm.pendingOK[c.Tool] > 0 {
			adm.pendingOK[c.Tool]-- // it never ran: no report will take it
		}
		st.AnsweredAsks = append(st.AnsweredAsks, *c)
		if len(st.AnsweredAsks) > 2*maxAnsweredAsks {
			st.AnsweredAsks = append([]ClientAsk(nil), st.AnsweredAsks[len(st.AnsweredAsks)-maxAnsweredAsks:]...)
		}
	}
}
