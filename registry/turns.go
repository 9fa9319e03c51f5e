package registry

import (
	"context"
	"fmt"
	"strings"

	"github.com/leasedeck/leasedeck/redact"
	"github.com/leasedeck/leasedeck/registry/record"
	"github.com/leasedeck/leasedeck/registry/resources"
)

// Turns: the gate, reports, telemetry and certification of a session's
// admissions.

// admissionLease resolves an admission to its lease.
func (s *Service) admissionLease(id string) (*Admission, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.st.Admissions[id]
	if a == nil {
		return nil, fmt.Errorf("%w: unknown admission_id %q", ErrUnknownLease, id)
	}
	cp := *a
	return &cp, nil
}

// GateAdmission is the pre-tool gate for a call in a turn.
func (s *Service) GateAdmission(ctx context.Context, admissionID string, req GateRequest) (GateAnswer, error) {
	a, err := s.admissionLease(admissionID)
	if err != nil {
		return GateAnswer{}, err
	}
	req.LeaseID = a.LeaseID
	req.Client = a.Client
	req.admission = admissionID
	return s.Gate(ctx, req), nil
}

// ReportResult is a post-tool report's outcome.
type ReportResult struct {
	Violation bool   `json:"violation"`
	Reason    string `json:"reason,omitempty"`
	Revoked   []string
}

// ReportCall is Report for a call the client names (toolUseID, its
// post-tool event's tool_use_id): a call asked in the client is answered
// by it (clientask.go) before it is reported.
func (s *Service) ReportCall(admissionID string, call ToolCall, status, resultHash, toolUseID string) (ReportResult, error) {
	if err := s.Health(); err != nil {
		return ReportResult{}, err
	}
	a, err := s.admissionLease(admissionID)
	if err != nil {
		return ReportResult{}, err
	}
	var out ReportResult
	if err := s.reportAsk(admissionID, call, status, toolUseID); err != nil {
		return ReportResult{}, err
	}
	// As for the gate: derived before the lock, the summary from the call
	// itself (redacted); an input too large for the gate was never allowed.
	summary := redact.Summary(call.Tool, call.Input, 200)
	var writes []resources.PathRef
	if oversize(call) == "" {
		if use, err := resources.FromToolCall(s.cfg.Workspace, call.Tool, call.Input); err == nil {
			writes = use.Writes
		}
	}
	s.mu.Lock()
	l := s.st.Leases[a.LeaseID]
	if l != nil && l.Granted != nil && status != "denied" && status != "error" {
		for _, w := range writes {
			if !w.Inside || !matchAny(l.Granted.Allow.WritePaths, w.Rel) || deniedPath(l.Granted, w) {
				out.Violation = true
				out.Reason = "scope violation: wrote " + displayPath(w) + " outside write_paths"
				break
			}
		}
	}
	s.mu.Unlock()
	rec := record.NewAudit(EventToolReported, s.Now(), summary, record.Details{AdmissionID: admissionID, LeaseID: a.LeaseID,
		Tool: call.Tool, Status: status, Violation: record.Bool(out.Violation)})
	rec.RequestHash = resultHash
	if out.Violation {
		rec.Reasoning = out.Reason
	}
	if err := s.appendAudit(rec); err != nil {
		return out, err
	}
	if out.Violation {
		if ok, _ := s.Live(a.LeaseID); ok {
			res, err := s.Revoke(a.LeaseID, "issuer", out.Reason)
			if err != nil {
				return out, err
			}
			out.Revoked = res.Revoked
		}
	}
	return out, nil
}

func deniedPath(g *Manifest, p resources.PathRef) bool {
	for _, pat := range g.Deny.Paths {
		if resources.MatchDenyPath(pat, p) {
			return true
		}
	}
	return false
}

// Telemetry records usage for a turn: figures with an accurate source are
// charged to the lease and its ancestors; others are kept as estimates
// and never charged. The warnings say which.
func (s *Service) Telemetry(admissionID string, tokens, cost *float64, source string) ([]string, error) {
	a, err := s.admissionLease(admissionID)
	if err != nil {
		return nil, err
	}
	if err := CheckFigures(tokens, cost); err != nil {
		return nil, err
	}
	var warnings []string
	if !accurateSources[source] {
		if tokens != nil || cost != nil {
			warnings = append(warnings, fmt.Sprintf("usage with source %q is not accurate: recorded as an estimate, not charged to the budget", orUnknown(source)))
		}
		tokens, cost = nil, nil
	}
	d := record.Details{AdmissionID: admissionID, LeaseID: a.LeaseID, Source: orUnknown(source),
		Accurate: record.Bool(accurateSources[source]), Tokens: tokens, CostUSD: cost}
	return warnings, s.appendAudit(record.NewAudit(EventBudgetSpent, s.Now(), "", d))
}

func orUnknown(s string) string {
	if s == "" {
		return "unavailable"
	}
	return s
}

// FinalizeResult is a turn's certification.
type FinalizeResult struct {
	Certified        bool     `json:"certified"`
	Reasons          []string `json:"reasons,omitempty"`
	TelemetryQuality string   `json:"telemetry_quality"`
}

// Finalize ends a turn: certified when every tool call was gated, nothing
// escaped the grant and telemetry is complete. endSession also completes
// the session's lease (the client session or subagent ended).
func (s *Service) Finalize(admissionID, stopReason string, endSession bool, aborted bool) (FinalizeResult, error) {
	if err := s.Health(); err != nil {
		return FinalizeResult{}, err
	}
	a, err := s.admissionLease(admissionID)
	if err != nil {
		return FinalizeResult{}, err
	}
	if err := s.declineOpenAsks(admissionID); err != nil {
		return FinalizeResult{}, err
	}
	res := FinalizeResult{TelemetryQuality: a.quality()}
	if a.Ungated > 0 {
		res.Reasons = append(res.Reasons, fmt.Sprintf("%d tool call(s) ran without an allowed pre-tool gate", a.Ungated))
	}
	for _, v := range a.Violations {
		res.Reasons = append(res.Reasons, v)
	}
	if ok, why := s.Live(a.LeaseID); !ok {
		res.Reasons = append(res.Reasons, "the lease "+why)
	}
	if res.TelemetryQuality != "complete" {
		res.Reasons = append(res.Reasons, "telemetry is "+res.TelemetryQuality+" (no usage with an accurate source)")
	}
	if aborted {
		res.Reasons = append(res.Reasons, "the turn was aborted: "+orUnknown(stopReason))
	}
	res.Certified = len(res.Reasons) == 0
	outcome := "non_certified"
	if res.Certified {
		outcome = "certified"
	}
	if aborted {
		outcome = "aborted"
	}
	rec := record.NewAudit(EventSessionFinalized, s.Now(), "turn "+outcome, record.Details{AdmissionID: admissionID, LeaseID: a.LeaseID,
		Outcome: outcome, TelemetryQuality: res.TelemetryQuality, EndSession: record.Bool(endSession), StopReason: stopReason})
	rec.Reasoning = strings.Join(res.Reasons, "; ")
	if err := s.appendAudit(rec); err != nil {
		return res, err
	}
	if endSession {
		if ok, _ := s.Live(a.LeaseID); ok {
			// Children first: a subagent's lease ends with the session.
			for _, id := range s.liveSubtree(a.LeaseID) {
				if err := s.Finish(id, Completed, ""); err != nil {
					return res, err
				}
			}
		}
	}
	return res, nil
}

func (s *Service) liveSubtree(id string) []string {
	now := s.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, cur := range s.st.Subtree(id) {
		if l := s.st.Leases[cur]; l != nil && l.Open(now) {
			out = append(out, cur)
		}
	}
	return out
}

// EndSession ends a client session (SessionEnd, a subagent's stop): its
// open turn, if any, is finalized; its lease and live subtree complete.
// With no open turn nothing new is certified: the answer is the last
// turn's certification.
func (s *Service) EndSession(session, stopReason string) (FinalizeResult, error) {
	if err := s.Health(); err != nil {
		return FinalizeResult{}, err
	}
	sh := s.SaltedHash("session", session)
	s.mu.Lock()
	sess := s.st.Sessions[sh]
	var open, last *Admission
	if sess != nil {
		if a := s.st.Admissions[sess.Current]; a != nil {
			if a.Finalized == "" {
				open = a
			} else {
				cp := *a
				last = &cp
			}
		}
	}
	s.mu.Unlock()
	if sess == nil {
		return FinalizeResult{}, fmt.Errorf("%w: unknown session", ErrUnknownLease)
	}
	if open != nil {
		return s.Finalize(open.ID, stopReason, true, false)
	}
	res := FinalizeResult{TelemetryQuality: "insufficient", Reasons: []string{"the session ended with no turn finalized"}}
	if last != nil {
		res = FinalizeResult{Certified: last.Finalized == "certified", TelemetryQuality: last.quality()}
		if !res.Certified {
			res.Reasons = []string{"the session's last turn was " + last.Finalized}
		}
	}
	if ok, _ := s.Live(sess.LeaseID); ok {
		for _, id := range s.liveSubtree(sess.LeaseID) {
			if err := s.Finish(id, Completed, ""); err != nil {
				return res, err
			}
		}
	}
	return res, nil
}

func (a *Admission) quality() string {
	switch {
	case a.Telemetry > 0 && a.Estimates == 0:
		return "complete"
	case a.Telemetry > 0 || a.Estimates > 0:
		return "partial"
	}
	return "insufficient"
}
