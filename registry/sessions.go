package registry

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/leasedeck/leasedeck/redact"
	"github.com/leasedeck/leasedeck/registry/record"
	"github.com/leasedeck/leasedeck/registry/resources"
)

// Sessions and admissions: the registry half of the bridge's lifecycle
// contract. A client session (Claude Code, Codex, …) gets one lease, on
// its first turn; a subagent session gets a child lease under its parent
// session's; every turn is an admission under the session's lease. All
// of it is folded from audit lines, so it survives restarts. Session ids,
// turn ids and prompts arrive raw over the 0600 socket and are stored only
// as salted hashes (HMAC with the deployment key).

// Admission is one turn under a session's lease.
type Admission struct {
	ID          string
	LeaseID     string
	SessionHash string
	Client      string
	BegunAt     time.Time
	Gated       int // pre-tool calls gated
	Allowed     int
	Denied      int
	Reported    int      // post-tool reports
	Ungated     int      // post-tool reports with no allowed pre-tool before them
	Violations  []string // scope violations seen
	Telemetry   int      // usage reports with an accurate source
	Estimates   int      // usage reports without one
	Finalized   string   // "", "certified", "non_certified", "aborted"
	pendingOK   map[string]int
}

// Session is a client session: its lease and, for a subagent, its parent.
type Session struct {
	Hash       string
	LeaseID    string
	Client     string
	ParentHash string
	Current    string // the latest admission
}

// accurateSources are the cost/token provenances charged to budgets;
// anything else is recorded as an estimate and not charged.
var accurateSources = map[string]bool{"provider_reported": true, "sdk_result_message": true}

// SaltedHash hashes an identifier or prompt with the deployment key, so
// equal inputs fold to the same session while the journal never holds them.
func (s *Service) SaltedHash(kind, value string) string {
	return s.cfg.Key.MAC([]byte("leasedeck:" + kind + "\x00" + value))
}

// AdmitRequest starts a turn.
type AdmitRequest struct {
	Client        string
	Session       string // raw client session id
	ParentSession string // raw parent session id, for a subagent
	AgentName     string // display name for a new lease
	Manifest      any    // the declared manifest for a new session lease
	Prompt        string // raw prompt; only its salted hash is kept
	Turn          string // raw turn id; only its salted hash is kept
	// Resume returns the session's current admission when it has one
	// still open, instead of starting a new turn (a tool call from a
	// client whose turn began before the hooks did, a subagent's calls).
	Resume bool
	// NoTurn makes sure the session has its lease without starting a
	// turn: a client's SessionStart, whose first turn begins with the
	// first prompt. An empty turn would never be finalized.
	NoTurn bool
	// RunTicket is the ticket of the confined run the hook runs in
	// (RunTicketEnv): the session's lease is issued under the run's.
	RunTicket string
}

// AdmitResult is the admission and the lease it runs under.
type AdmitResult struct {
	AdmissionID string       `json:"admission_id,omitempty"`
	LeaseID     string       `json:"lease_id,omitempty"`
	Allowed     bool         `json:"allowed"`
	Reason      string       `json:"reason,omitempty"`
	Refusals    []string     `json:"refusals,omitempty"`
	Lease       LeaseView    `json:"lease"`
	Context     string       `json:"context,omitempty"`
	Issue       *IssueResult `json:"issue,omitempty"`
}

// Admit begins a turn: it finds (or issues) the session's lease and
// records a new admission under it.
func (s *Service) Admit(req AdmitRequest) (AdmitResult, error) {
	if err := s.Health(); err != nil {
		return AdmitResult{Reason: err.Error()}, err
	}
	if req.Session == "" {
		return AdmitResult{}, fmt.Errorf("%w: a session id is required", ErrNotAllowed)
	}
	now := s.Now()
	sh := s.SaltedHash("session", req.Session)
	var parentHash string
	if req.ParentSession != "" {
		parentHash = s.SaltedHash("session", req.ParentSession)
	}
	s.mu.Lock()
	sess := s.st.Sessions[sh]
	leaseID := ""
	if sess != nil {
		if ok, _ := s.st.Live(sess.LeaseID, now); ok {
			leaseID = sess.LeaseID
		}
	}
	parentLease := ""
	if leaseID == "" && parentHash != "" {
		ps := s.st.Sessions[parentHash]
		if ps == nil {
			s.mu.Unlock()
			return AdmitResult{}, ErrUnknownParent
		}
		parentLease = ps.LeaseID
	}
	s.mu.Unlock()
	runLease, err := s.runParent(req.RunTicket, leaseID)
	if err != nil {
		return AdmitResult{Allowed: false, Reason: err.Error()}, nil
	}
	if runLease != "" && parentLease == "" && leaseID == "" {
		parentLease = runLease
	}
	s.mu.Lock()
	if req.Resume && leaseID != "" && sess.Current != "" {
		if a := s.st.Admissions[sess.Current]; a != nil && a.Finalized == "" {
			s.mu.Unlock()
			v, _ := s.View(leaseID)
			return AdmitResult{AdmissionID: a.ID, LeaseID: leaseID, Allowed: true, Lease: v}, nil
		}
	}
	s.mu.Unlock()

	var issued *IssueResult
	if leaseID == "" {
		if sess != nil {
			if ok, why := s.Live(sess.LeaseID); !ok && strings.Contains(why, "revoked") {
				// A revoked session stays revoked: its next turn is
				// blocked rather than quietly re-leased.
				return AdmitResult{Allowed: false, LeaseID: sess.LeaseID, Reason: "the session's lease " + why}, nil
			}
		}
		m, ok := req.Manifest.(map[string]any)
		if !ok {
			return AdmitResult{}, fmt.Errorf("%w: the session has no live lease and no declared manifest came with the request (client %s)", ErrNeedsManifest, req.Client)
		}
		m = withAgentName(m, req.AgentName)
		res, err := s.Issue(m, parentLease)
		if err != nil {
			return AdmitResult{Reason: res.Reason, Refusals: res.Refusals}, err
		}
		issued = &res
		if res.Status != Granted {
			return AdmitResult{Allowed: false, Reason: "no lease: " + res.Reason, Refusals: res.Refusals, Issue: issued}, nil
		}
		leaseID = res.LeaseID
	}
	if req.NoTurn {
		if sess == nil || sess.LeaseID != leaseID {
			d := record.Details{LeaseID: leaseID, SessionHash: sh, Client: req.Client, ParentSessionHash: parentHash}
			if err := s.appendAudit(record.NewAudit(EventSessionStarted, now, "session starts under lease "+shortID(leaseID), d)); err != nil {
				return AdmitResult{Reason: err.Error()}, err
			}
		}
		v, _ := s.View(leaseID)
		return AdmitResult{LeaseID: leaseID, Allowed: true, Lease: v, Context: scopeContext(v), Issue: issued}, nil
	}
	admission := NewLeaseID()
	d := record.Details{AdmissionID: admission, LeaseID: leaseID, SessionHash: sh, Client: req.Client, ParentSessionHash: parentHash}
	if req.Turn != "" {
		d.TurnHash = s.SaltedHash("turn", req.Turn)
	}
	rec := record.NewAudit(EventSessionBegun, now, "turn begins under lease "+shortID(leaseID), d)
	if req.Prompt != "" {
		rec.RequestHash = s.SaltedHash("prompt", req.Prompt)
	}
	if err := s.appendAudit(rec); err != nil {
		return AdmitResult{Reason: err.Error()}, err
	}
	v, _ := s.View(leaseID)
	return AdmitResult{AdmissionID: admission, LeaseID: leaseID, Allowed: true, Lease: v, Context: scopeContext(v), Issue: issued}, nil
}

// ErrNeedsManifest: a session without a live lease was named with no
// declared manifest to issue one from; the caller resends with it.
var ErrNeedsManifest = errors.New("needs a declared manifest")

// Live reports whether a lease can act now, and why not.
func (s *Service) Live(id string) (bool, string) {
	now := s.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.Live(id, now)
}

func withAgentName(m map[string]any, name string) map[string]any {
	if name == "" {
		return m
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	if a, ok := m["agent"].(map[string]any); ok {
		na := make(map[string]any, len(a))
		for k, v := range a {
			na[k] = v
		}
		na["name"] = record.Clip(name, 120)
		out["agent"] = na
	}
	return out
}

// scopeContext tells an agent its scope in a few lines, so it stays inside
// the lease instead of learning it by refusal.
func scopeContext(v LeaseView) string {
	m, err := ParseManifest(v.Lease["manifest"])
	if err != nil || m == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "leasedeck lease %s governs this session (expires %s).\n", shortID(v.ID), v.ExpiresAt)
	fmt.Fprintf(&b, "You may write: %s. You may read: %s.\n", listOrNone(m.Allow.WritePaths), listOrNone(m.Allow.ReadPaths))
	fmt.Fprintf(&b, "Commands allowed: %s.\n", listOrNone(m.Allow.Commands))
	fmt.Fprintf(&b, "Hosts: %s. Denied paths: %s. Denied commands: %s.\n", listOrNone(m.Allow.Hosts), listOrNone(m.Deny.Paths), listOrNone(m.Deny.Commands))
	if len(m.Approvals) > 0 {
		fmt.Fprintf(&b, "A human must approve: %s.\n", strings.Join(m.Approvals, ", "))
	}
	if st, ok := v.Remaining["steps"]; ok {
		fmt.Fprintf(&b, "Budget: %v tool calls left.", st)
	}
	return strings.TrimSpace(b.String())
}

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

// Report records a tool's outcome (its result only as a hash and a
// redacted summary made by the caller) and checks scope: a change outside
// the grant (a write outside write_paths) revokes the lease.
func (s *Service) Report(admissionID string, call ToolCall, status, resultHash, summary string) (ReportResult, error) {
	if err := s.Health(); err != nil {
		return ReportResult{}, err
	}
	a, err := s.admissionLease(admissionID)
	if err != nil {
		return ReportResult{}, err
	}
	var out ReportResult
	// As for the gate: derived before the lock, the summary from the call
	// itself (redacted); an input too large for the gate was never allowed.
	summary = redact.Summary(call.Tool, call.Input, 200)
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
