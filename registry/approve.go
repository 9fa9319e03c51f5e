package registry

import (
	"context"
	"fmt"
	"strings"

	"github.com/leasedeck/leasedeck/approvals"
	"github.com/leasedeck/leasedeck/redact"
	"github.com/leasedeck/leasedeck/registry/record"
)

// ask files an approval request, waits for the decision and answers.
func (s *Service) ask(ctx context.Context, req GateRequest, res GateResult) GateAnswer {
	now := s.Now()
	wait := s.approvalTimeout()
	if req.MaxWait > 0 && req.MaxWait < wait {
		wait = req.MaxWait
	}
	id := NewLeaseID()
	deadline := now.Add(wait)
	ask := record.NewAudit(EventApprovalAsked, now, req.Summary, record.Details{
		ApprovalID: id, LeaseID: req.LeaseID, Tool: req.Call.Tool,
		Names: strings.Join(res.Approvals, " "), Deadline: FormatTime(deadline), Client: req.Client,
	})
	ask.Reasoning = redact.OneLine(res.Reason, 500)
	ask.RequestHash = req.InputHash
	ask.Extra = map[string]any{"call": callRecord(callView(req.Call, res.Use))}
	if err := s.appendAudit(ask); err != nil {
		return GateAnswer{Verdict: VerdictDeny, Reason: "the approval request could not be recorded, so the call is refused: " + err.Error()}
	}
	s.wakeBy(deadline)
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	d, err := s.book.Wait(wctx, id)
	if err != nil {
		// No decision in time, or the caller went away: expire it, unless
		// a decision is being recorded right now.
		end := s.expireApproval
		if ctx.Err() != nil {
			end = s.cancelApproval // the caller hung up: never approvable now
		}
		if e := end(id, "expiry"); e != nil {
			if d2, e2 := s.book.Wait(context.Background(), id); e2 == nil {
				d = d2
			} else {
				return GateAnswer{Verdict: VerdictDeny, ApprovalID: id, Reason: "no decision: " + e.Error()}
			}
		} else {
			_, dd, _ := s.book.Get(id)
			if dd != nil {
				d = *dd
			}
		}
	}
	if d.Outcome != "" {
		req.decided = &d
	}
	switch d.Outcome {
	case approvals.Approved:
		s.mu.Lock()
		again := Evaluate(s.st, s.cfg.Workspace, req.LeaseID, req.Call, s.Now(), func(string, []string) bool { return true })
		if again.Verdict == VerdictAllow {
			if why := s.reservedOut(req.LeaseID); why != "" {
				again.Verdict, again.Reason = VerdictBlock, why
			}
		}
		if again.Verdict != VerdictAllow {
			s.mu.Unlock()
			reason := "approved by a human, but the lease can no longer allow it: " + again.Reason
			ref, _ := s.recordGate(req, again.Verdict, reason, id)
			return GateAnswer{Verdict: again.Verdict, Reason: reason, ApprovalID: id, DecidedBy: d.By}.recorded(ref)
		}
		s.reserve(req.LeaseID, 1)
		s.mu.Unlock()
		a := s.commitAllow(req, "approved by a human ("+scopeText(d.Scope)+")", id)
		a.DecidedBy = d.By
		return a
	case approvals.Denied:
		reason := "a human denied this call"
		if d.Reason != "" {
			reason += ": " + d.Reason
		}
		ref, _ := s.recordGate(req, VerdictDeny, reason, id)
		return GateAnswer{Verdict: VerdictDeny, Reason: reason, ApprovalID: id, DecidedBy: d.By}.recorded(ref)
	default:
		reason := "the approval request expired without a decision, so the call is denied"
		ref, _ := s.recordGate(req, VerdictDeny, reason, id)
		return GateAnswer{Verdict: VerdictDeny, Reason: reason, ApprovalID: id, DecidedBy: d.By}.recorded(ref)
	}
}

func scopeText(sc approvals.Scope) string {
	if sc == approvals.ForLease {
		return "for the rest of the lease"
	}
	return "once"
}

// DecideApproval records a human's decision on a pending approval request. The
// waiting call is answered as soon as the decision line is durable.
func (s *Service) DecideApproval(id string, outcome approvals.Outcome, scope approvals.Scope, reason, by string) (approvals.Request, error) {
	if err := s.Health(); err != nil {
		return approvals.Request{}, err
	}
	req, _, ok := s.book.Get(id)
	if !ok {
		return approvals.Request{}, fmt.Errorf("approval %s: %w", id, approvals.ErrUnknown)
	}
	if err := s.book.Reserve(id); err != nil {
		return req, err
	}
	d := approvals.Decision{RequestID: id, Outcome: outcome, Scope: scope, Reason: reason, By: by, At: s.Now()}
	if err := d.Validate(); err != nil {
		s.book.Release(id)
		return req, err
	}
	if err := s.recordDecision(req, d); err != nil {
		s.book.Release(id)
		return req, err
	}
	return req, nil
}

func (s *Service) recordDecision(req approvals.Request, d approvals.Decision) error {
	rec := record.NewAudit(EventApprovalDecided, d.At, req.Summary, record.Details{
		ApprovalID: d.RequestID, LeaseID: req.LeaseID, Outcome: string(d.Outcome), By: d.By, Scope: string(d.Scope)})
	rec.Reasoning = d.Reason
	return s.appendAudit(rec) // folding applies it to the book and wakes waiters
}

func (s *Service) expireApproval(id, by string) error {
	req, _, ok := s.book.Get(id)
	if !ok {
		return fmt.Errorf("approval %s: %w", id, approvals.ErrUnknown)
	}
	if err := s.book.Reserve(id); err != nil {
		return err
	}
	if err := s.recordDecision(req, approvals.Decision{RequestID: id, Outcome: approvals.Expired, By: by, At: s.Now()}); err != nil {
		s.book.Release(id)
		return err
	}
	return nil
}

// expireOrphans expires requests replayed from the journal: after a
// restart no waiter is left to answer.
func (s *Service) expireOrphans() {
	for _, r := range s.book.Orphans() {
		s.expireApproval(r.ID, "restart")
	}
}
