package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/leasedeck/leasedeck/approvals"
	"github.com/leasedeck/leasedeck/journal"
	"github.com/leasedeck/leasedeck/registry/resources"
	"github.com/leasedeck/leasedeck/schemas"
)

// Config is what a registry service needs from its workspace.
type Config struct {
	Workspace       string    // absolute workspace root; tool paths are relative to it
	JournalDir      string    // .leasedeck/journal
	LockPath        string    // .leasedeck/registry.lock
	Key             Key       // the deployment key (signs leases, macs journal lines)
	Root            *Manifest // the root policy every parentless manifest narrows against
	DefaultLifetime time.Duration
	ApprovalTimeout time.Duration
	SessionID       string           // issuer_session_id; default: a fresh id per start
	Now             func() time.Time // default time.Now
}

// Service is the long-running registry: the only thing that issues
// leases, decides tool calls, spends budgets, revokes and holds gated
// calls until a human decides. Every change is appended to the journal
// (and fsync'd) first, and only then applied and answered.
type Service struct {
	cfg    Config
	w      *journal.Writer
	issuer Issuer
	book   *approvals.Book
	ver    Verifier

	mu sync.Mutex
	st *State
	// In-flight reservations, so that concurrent decisions made while a
	// line is being written cannot together overspend a budget or a
	// fan-out: steps reserved under each lease (charged up the chain) and
	// children being issued under each parent.
	inflightSteps    map[string]float64
	inflightChildren map[string]int

	foldErr  error // set when replay found records that do not fold
	stop     chan struct{}
	done     chan struct{}
	kickCh   chan struct{} // wakes the sweeper when a new deadline appears
	sweepAt  time.Time     // when the sleeping sweeper wakes (zero: never); under mu
	closeErr error
	once     sync.Once
}

// Errors a caller can tell apart (the socket maps them to codes).
var (
	ErrUnknownLease = errors.New("unknown lease")
	ErrNotAllowed   = errors.New("not allowed")
	ErrClosed       = errors.New("lease already closed")
)

// Open replays the journal, takes the workspace lock (through the journal
// writer), expires what has expired and orphaned approval requests, and
// starts the sweeper that expires leases and approvals on time.
func Open(cfg Config) (*Service, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.SessionID == "" {
		cfg.SessionID = "leasedeck-" + NewLeaseID()[:8]
	}
	if cfg.DefaultLifetime <= 0 {
		cfg.DefaultLifetime = 8 * time.Hour
	}
	if cfg.ApprovalTimeout <= 0 {
		cfg.ApprovalTimeout = 5 * time.Minute
	}
	s := &Service{
		cfg:              cfg,
		issuer:           Issuer{Key: cfg.Key, SessionID: cfg.SessionID, DefaultLifetime: cfg.DefaultLifetime},
		book:             approvals.New(),
		st:               NewState(),
		inflightSteps:    map[string]float64{},
		inflightChildren: map[string]int{},
		stop:             make(chan struct{}),
		done:             make(chan struct{}),
		kickCh:           make(chan struct{}, 1),
	}
	var replayErr []string
	w, err := journal.Open(cfg.JournalDir, cfg.Key.Bytes(), journal.Options{
		LockPath: cfg.LockPath,
		Now:      cfg.Now,
		Replay: func(k journal.Kind, l *journal.Line) error {
			if err := s.fold(k, l.Value); err != nil {
				replayErr = append(replayErr, fmt.Sprintf("%s line %d: %v", k, l.Number, err))
			}
			return nil
		},
	})
	if err != nil {
		return nil, err
	}
	s.w = w
	if len(replayErr) > 0 {
		// A record does not fold (after a break, lines that depend on a
		// damaged one cannot): keep the evidence, serve it read-only, and
		// refuse to add to it.
		more := ""
		if len(replayErr) > 3 {
			more = fmt.Sprintf(" (and %d more)", len(replayErr)-3)
			replayErr = replayErr[:3]
		}
		s.foldErr = fmt.Errorf("journal does not fold: %s%s", strings.Join(replayErr, "; "), more)
	}
	if s.Health() == nil {
		s.appendAudit(auditRecord(EventRegistryStarted, cfg.Now(), "registry started", map[string]any{"issuer_session": cfg.SessionID}))
		s.expireOrphans()
		s.sweep()
	}
	go s.sweeper()
	return s, nil
}

// Close stops the sweeper, answers waiting calls and releases the journal.
func (s *Service) Close() error {
	s.once.Do(func() {
		close(s.stop)
		<-s.done
		s.closeErr = s.w.Close()
	})
	return s.closeErr
}

// Now is the service clock.
func (s *Service) Now() time.Time { return s.cfg.Now() }

// Workspace is the workspace root the gate resolves paths against.
func (s *Service) Workspace() string { return s.cfg.Workspace }

// Journal exposes the writer for status reports (head seq, breaks).
func (s *Service) Journal() *journal.Writer { return s.w }

// Approvals is the book of pending and decided requests.
func (s *Service) Approvals() *approvals.Book { return s.book }

// Health is nil when the service can record decisions; otherwise the
// reason everything is refused (fail closed).
func (s *Service) Health() error {
	if err := s.w.Broken(); err != nil {
		return fmt.Errorf("journal is broken, issuing and gating are refused: %w", err)
	}
	if err := s.w.Err(); err != nil {
		return fmt.Errorf("journal cannot be written, issuing and gating are refused: %w", err)
	}
	if s.foldErr != nil {
		return fmt.Errorf("issuing and gating are refused: %w", s.foldErr)
	}
	return nil
}

// fold applies one journal line to the state and the approval book.
func (s *Service) fold(k journal.Kind, rec map[string]any) error {
	return Fold(s.st, s.book, k, rec)
}

// Fold applies one journal line to a state and an approval book. It is
// the one definition of what the journal means, shared by the registry,
// `journal verify` and every cockpit watching the files.
func Fold(st *State, book *approvals.Book, k journal.Kind, rec map[string]any) error {
	if k == journal.Leases {
		if err := st.ApplyLeaseRecord(rec); err != nil {
			return err
		}
		if ev, _ := rec["event"].(string); ev != "granted" && ev != "refused" && ev != "narrowed" {
			if id, _ := rec["lease_id"].(string); id != "" {
				book.ForgetLease(id)
			}
		}
		return nil
	}
	st.ApplyAudit(rec)
	et, _ := rec["event_type"].(string)
	d, _ := rec["details"].(map[string]any)
	switch et {
	case EventApprovalAsked:
		at, _ := ParseTime(str(rec, "timestamp"))
		deadline, _ := ParseTime(str(d, "deadline"))
		return book.Add(approvals.Request{
			ID: str(d, "approval_id"), LeaseID: str(d, "lease_id"), Client: str(d, "client"),
			Tool: str(d, "tool"), Summary: str(rec, "summary"), Reason: str(rec, "reasoning"),
			Names: splitNames(str(d, "names")), InputHash: str(rec, "request_hash"),
			CreatedAt: at, Deadline: deadline,
		})
	case EventApprovalDecided:
		at, _ := ParseTime(str(rec, "timestamp"))
		return book.Apply(approvals.Decision{
			RequestID: str(d, "approval_id"), Outcome: approvals.Outcome(str(d, "outcome")),
			Scope: approvals.Scope(str(d, "scope")), Reason: str(rec, "reasoning"), By: str(d, "by"), At: at,
		})
	}
	return nil
}

func splitNames(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, " ")
}

// auditRecord builds an audit-event line. details must be flat scalars.
func auditRecord(eventType string, at time.Time, summary string, details map[string]any) map[string]any {
	rec := map[string]any{
		"schema_version": SchemaVersion,
		"timestamp":      FormatTime(at),
		"event_id":       NewLeaseID(),
		"event_type":     eventType,
		"actor":          map[string]any{"kind": "system", "runtime": "leasedeck"},
		"details":        details,
	}
	if summary != "" {
		rec["summary"] = oneLine(summary, 300)
	}
	return rec
}

// oneLine makes s safe for summary/reasoning: no control characters,
// at most max runes.
func oneLine(s string, max int) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			r = ' '
		}
		if n >= max-1 && n > 0 {
			b.WriteRune('…')
			break
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// appendAudit writes an audit line and folds it. It returns the write
// error so that callers fail closed.
func (s *Service) appendAudit(rec map[string]any) error {
	if _, err := s.w.Append(journal.Audit, rec); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fold(journal.Audit, rec)
}

// appendLease writes lease records in order and folds them.
func (s *Service) appendLeases(recs ...map[string]any) error {
	if _, err := s.w.AppendAll(journal.Leases, recs); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range recs {
		if err := s.fold(journal.Leases, r); err != nil {
			return err
		}
	}
	return nil
}

// IssueResult is the answer to presenting a manifest.
type IssueResult struct {
	LeaseID  string         `json:"lease_id"`
	Status   Status         `json:"status"`
	Lease    map[string]any `json:"lease,omitempty"`
	Diff     map[string]any `json:"diff,omitempty"`
	Refusals []string       `json:"refusals,omitempty"`
	Reason   string         `json:"reason,omitempty"`
}

// Issue presents a declared manifest (a JSON tree), optionally under a
// parent lease, and records the decision: `granted` (+ `narrowed` when
// the grant took anything away) or `refused`. Refusals are results, not
// errors; an error means nothing could be recorded.
func (s *Service) Issue(declared any, parentID string) (IssueResult, error) {
	if err := s.Health(); err != nil {
		return IssueResult{Status: Refused, Refusals: []string{"runtime_error:journal_unavailable"}, Reason: err.Error()}, err
	}
	now := s.Now()
	m, _ := ParseManifest(declared)
	errs, err := schemas.Validate(schemas.Manifest, declared)
	if err != nil {
		return IssueResult{}, err
	}
	if len(errs) > 0 || m == nil {
		var parts []string
		for i, e := range errs {
			if i == 3 {
				parts = append(parts, fmt.Sprintf("and %d more", len(errs)-3))
				break
			}
			parts = append(parts, e.String())
		}
		if m == nil {
			parts = append(parts, "/ type the manifest must be a JSON object")
		}
		return s.refuse(declared, parentID, now, []string{"runtime_error:invalid_manifest"}, "manifest does not validate: "+strings.Join(parts, "; "))
	}

	s.mu.Lock()
	var parent Parent
	if parentID == "" {
		parent = Parent{Manifest: s.cfg.Root}
	} else {
		p := s.st.Leases[parentID]
		if p == nil || p.Granted == nil {
			s.mu.Unlock()
			return s.refuse(declared, "", now, []string{"runtime_error:unknown_parent"}, "parent lease "+parentID+" does not exist")
		}
		if ok, why := s.st.Live(parentID, now); !ok {
			s.mu.Unlock()
			return s.refuse(declared, parentID, now, []string{"runtime_error:parent_closed"}, "parent lease cannot delegate: "+why)
		}
		parent, _ = s.st.ParentView(parentID, now)
		s.applyInflight(parentID, parent.Manifest)
	}
	dec, err := s.issuer.Issue(m, parent, now)
	if err != nil {
		s.mu.Unlock()
		return s.refuse(declared, parentID, now, []string{"runtime_error:issue_failed"}, err.Error())
	}
	if dec.Narrowed.Refused() {
		s.mu.Unlock()
		return s.refuse(declared, parentID, now, dec.Narrowed.Refusals, dec.Narrowed.Reason())
	}
	if parentID != "" {
		s.inflightChildren[parentID]++
	}
	s.mu.Unlock()

	recs := []map[string]any{{
		"schema_version": SchemaVersion, "at": dec.Lease["issued_at"], "event": "granted",
		"lease_id": dec.LeaseID, "lease": dec.Lease, "declared": dec.Declared,
		"declared_hash": dec.DeclaredHash, "granted_hash": dec.GrantedHash,
	}}
	if parentID != "" {
		recs[0]["parent_lease_id"] = parentID
	}
	if !dec.Narrowed.Diff.Empty() {
		recs = append(recs, map[string]any{
			"schema_version": SchemaVersion, "at": dec.Lease["issued_at"], "event": "narrowed",
			"lease_id": dec.LeaseID, "reason": dec.Narrowed.Diff.Summary(),
		})
	}
	err = s.appendLeases(recs...)
	if parentID != "" {
		s.mu.Lock()
		s.inflightChildren[parentID]--
		s.mu.Unlock()
	}
	if err != nil {
		return IssueResult{Status: Refused, Refusals: []string{"runtime_error:journal_unavailable"},
			Reason: "the grant could not be recorded, so it is not given: " + err.Error()}, err
	}
	s.wakeBy(dec.ExpiresAt)
	return IssueResult{LeaseID: dec.LeaseID, Status: Granted, Lease: dec.Lease, Diff: dec.Narrowed.Diff.JSON()}, nil
}

// applyInflight subtracts in-flight reservations from a parent view.
func (s *Service) applyInflight(parentID string, view *Manifest) {
	if n := s.inflightChildren[parentID]; n > 0 {
		if fo, ok := view.Budget.Get(FanOut); ok {
			view.Budget.Set(FanOut, max(0, fo-float64(n)))
		}
	}
	if st, ok := view.Budget.Get(Steps); ok {
		view.Budget.Set(Steps, max(0, st-s.inflightUnder(parentID)))
	}
}

// inflightUnder is the steps reserved under id's subtree (reservations
// are recorded on every lease of the chain, so this is one lookup).
func (s *Service) inflightUnder(id string) float64 { return s.inflightSteps[id] }

func (s *Service) refuse(declared any, parentID string, now time.Time, codes []string, reason string) (IssueResult, error) {
	id := NewLeaseID()
	h, err := schemas.Hash(declared)
	if err != nil {
		b, _ := schemas.Pretty(declared)
		h = schemas.SHA256Hex(b)
	}
	rec := map[string]any{
		"schema_version": SchemaVersion, "at": FormatTime(now), "event": "refused",
		"lease_id": id, "reasons": anyList(codes), "reason": oneLine(reason, 2000), "declared_hash": h,
	}
	if obj, ok := declared.(map[string]any); ok {
		if errs, _ := schemas.Validate(schemas.Manifest, obj); len(errs) == 0 {
			rec["declared"] = obj
		}
	}
	if parentID != "" {
		if _, known := s.lease(parentID); known {
			rec["parent_lease_id"] = parentID
		}
	}
	res := IssueResult{LeaseID: id, Status: Refused, Refusals: codes, Reason: reason}
	if err := s.appendLeases(rec); err != nil {
		res.Refusals = append(res.Refusals, "runtime_error:journal_unavailable")
		res.Reason += "; and the refusal could not be recorded: " + err.Error()
		return res, err
	}
	return res, nil
}

func (s *Service) lease(id string) (*LeaseState, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.st.Leases[id]
	return l, ok
}

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
	res := Decide(s.st, s.cfg.Workspace, req.LeaseID, req.Call, now, s.book.Covered)
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

// reservedOut reports a spent chain once in-flight reservations count.
func (s *Service) reservedOut(id string) string {
	for _, cur := range append([]string{id}, s.st.Chain(id)...) {
		c := s.st.Leases[cur]
		if c == nil || c.Granted == nil {
			continue
		}
		if g, ok := c.Granted.Budget.Get(Steps); ok && g-c.Spent.Steps-s.inflightSteps[cur] <= 0 {
			return "budget steps is spent on this lease's chain"
		}
	}
	return ""
}

func (s *Service) reserve(id string, steps float64) {
	for _, cur := range append([]string{id}, s.st.Chain(id)...) {
		s.inflightSteps[cur] += steps
	}
}

func (s *Service) unreserve(id string, steps float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, cur := range append([]string{id}, s.st.Chain(id)...) {
		if s.inflightSteps[cur] -= steps; s.inflightSteps[cur] <= 0 {
			delete(s.inflightSteps, cur)
		}
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
	details := map[string]any{"lease_id": req.LeaseID, "tool": oneLine(req.Call.Tool, 128), "decision": string(v)}
	if req.Client != "" {
		details["client"] = oneLine(req.Client, 64)
	}
	if v == VerdictAllow {
		details["steps"] = int64(1)
	}
	if approvalID != "" {
		details["approval_id"] = approvalID
	}
	if req.admission != "" {
		details["admission_id"] = req.admission
	}
	rec := auditRecord(et, s.Now(), req.Summary, details)
	rec["reasoning"] = oneLine(reason, 500)
	rec["request_hash"] = req.InputHash
	rec["outcome"] = map[Verdict]string{VerdictAllow: "success", VerdictDeny: "failure", VerdictBlock: "failure", VerdictAsk: "partial"}[v]
	return s.appendAudit(rec)
}

// ask files an approval request, waits for the decision and answers.
func (s *Service) ask(ctx context.Context, req GateRequest, res GateResult) GateAnswer {
	now := s.Now()
	wait := s.cfg.ApprovalTimeout
	if req.MaxWait > 0 && req.MaxWait < wait {
		wait = req.MaxWait
	}
	id := NewLeaseID()
	deadline := now.Add(wait)
	ask := auditRecord(EventApprovalAsked, now, req.Summary, map[string]any{
		"approval_id": id, "lease_id": req.LeaseID, "tool": oneLine(req.Call.Tool, 128),
		"names": strings.Join(res.Approvals, " "), "deadline": FormatTime(deadline), "client": oneLine(req.Client, 64),
	})
	ask["reasoning"] = oneLine(res.Reason, 500)
	ask["request_hash"] = req.InputHash
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
		by := "expiry"
		if ctx.Err() != nil {
			by = "caller-gone"
		}
		if e := s.expireApproval(id, by); e != nil {
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
	switch d.Outcome {
	case approvals.Approved:
		s.mu.Lock()
		again := Decide(s.st, s.cfg.Workspace, req.LeaseID, req.Call, s.Now(), func(string, []string) bool { return true })
		if again.Verdict == VerdictAllow {
			if why := s.reservedOut(req.LeaseID); why != "" {
				again.Verdict, again.Reason = VerdictBlock, why
			}
		}
		if again.Verdict != VerdictAllow {
			s.mu.Unlock()
			reason := "approved by a human, but the lease can no longer allow it: " + again.Reason
			s.recordGate(req, again.Verdict, reason, id)
			return GateAnswer{Verdict: again.Verdict, Reason: reason, ApprovalID: id, DecidedBy: d.By}
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
		s.recordGate(req, VerdictDeny, reason, id)
		return GateAnswer{Verdict: VerdictDeny, Reason: reason, ApprovalID: id, DecidedBy: d.By}
	default:
		reason := "the approval request expired without a decision, so the call is denied"
		s.recordGate(req, VerdictDeny, reason, id)
		return GateAnswer{Verdict: VerdictDeny, Reason: reason, ApprovalID: id, DecidedBy: d.By}
	}
}

func scopeText(sc approvals.Scope) string {
	if sc == approvals.ForLease {
		return "for the rest of the lease"
	}
	return "once"
}

// Decide records a human's decision on a pending approval request. The
// waiting call is answered as soon as the decision line is durable.
func (s *Service) Decide(id string, outcome approvals.Outcome, scope approvals.Scope, reason, by string) (approvals.Request, error) {
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
	details := map[string]any{"approval_id": d.RequestID, "lease_id": req.LeaseID, "outcome": string(d.Outcome), "by": oneLine(d.By, 64)}
	if d.Scope != "" {
		details["scope"] = string(d.Scope)
	}
	rec := auditRecord(EventApprovalDecided, d.At, req.Summary, details)
	if d.Reason != "" {
		rec["reasoning"] = oneLine(d.Reason, 500)
	}
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

// RevokeResult lists the leases a revocation closed, children first.
type RevokeResult struct {
	Revoked []string `json:"revoked"`
}

// Revoke closes a lease and its whole live subtree, children first, one
// `revoked` line each, naming by ("issuer" or an ancestor's lease id,
// rule L3) and the reason. All lines go to the journal in one batch.
func (s *Service) Revoke(id, by, reason string) (RevokeResult, error) {
	if err := s.Health(); err != nil {
		return RevokeResult{}, err
	}
	if strings.TrimSpace(reason) == "" {
		return RevokeResult{}, fmt.Errorf("%w: a revocation needs a reason", ErrNotAllowed)
	}
	if by == "" {
		by = "issuer"
	}
	now := s.Now()
	s.mu.Lock()
	l := s.st.Leases[id]
	if l == nil {
		s.mu.Unlock()
		return RevokeResult{}, fmt.Errorf("%w: %s", ErrUnknownLease, id)
	}
	if l.Status != Granted {
		s.mu.Unlock()
		return RevokeResult{}, fmt.Errorf("%w: lease %s is %s", ErrClosed, id, l.Status)
	}
	if by != "issuer" {
		chain := s.st.Chain(id)
		if !contains(chain, by) {
			s.mu.Unlock()
			return RevokeResult{}, fmt.Errorf("%w: %s is neither the issuer nor an ancestor of %s (rule L3)", ErrNotAllowed, by, id)
		}
	}
	var recs []map[string]any
	var ids []string
	for _, cur := range s.st.Subtree(id) {
		c := s.st.Leases[cur]
		if c == nil || c.Status != Granted {
			continue
		}
		r := map[string]any{"schema_version": SchemaVersion, "at": FormatTime(now), "event": "revoked",
			"lease_id": cur, "by": by, "reason": oneLine(reason, 1000)}
		if c.ParentID != "" {
			r["parent_lease_id"] = c.ParentID
		}
		if cur != id {
			r["reason"] = oneLine("ancestor "+id+" revoked: "+reason, 1000)
		}
		recs = append(recs, r)
		ids = append(ids, cur)
	}
	s.mu.Unlock()
	if err := s.appendLeases(recs...); err != nil {
		return RevokeResult{}, err
	}
	return RevokeResult{Revoked: ids}, nil
}

// Finish ends a lease by the agent finishing (completed) or an operator
// stopping it (stopped).
func (s *Service) Finish(id string, ev Status, reason string) error {
	if err := s.Health(); err != nil {
		return err
	}
	s.mu.Lock()
	l := s.st.Leases[id]
	if l == nil {
		s.mu.Unlock()
		return fmt.Errorf("%w: %s", ErrUnknownLease, id)
	}
	if l.Status != Granted {
		s.mu.Unlock()
		return fmt.Errorf("%w: lease %s is %s", ErrClosed, id, l.Status)
	}
	s.mu.Unlock()
	rec := map[string]any{"schema_version": SchemaVersion, "at": FormatTime(s.Now()), "event": string(ev), "lease_id": id}
	if ev == Stopped {
		if reason == "" {
			reason = "stopped by an operator"
		}
		rec["reason"] = oneLine(reason, 1000)
	}
	if l.ParentID != "" {
		rec["parent_lease_id"] = l.ParentID
	}
	return s.appendLeases(rec)
}

// Usage is a usage report for a lease.
type Usage struct {
	Tokens  *float64 `json:"tokens,omitempty"`
	CostUSD *float64 `json:"cost_usd,omitempty"`
	Source  string   `json:"source,omitempty"`
}

// RecordUsage charges tokens and cost (from telemetry with an accurate
// source) to the lease and every ancestor.
func (s *Service) RecordUsage(id string, u Usage) error {
	if err := s.Health(); err != nil {
		return err
	}
	if _, ok := s.lease(id); !ok {
		return fmt.Errorf("%w: %s", ErrUnknownLease, id)
	}
	details := map[string]any{"lease_id": id}
	if u.Tokens != nil {
		if *u.Tokens < 0 {
			return fmt.Errorf("%w: tokens must not be negative", ErrNotAllowed)
		}
		details["tokens"] = int64(*u.Tokens)
	}
	if u.CostUSD != nil {
		if *u.CostUSD < 0 {
			return fmt.Errorf("%w: cost_usd must not be negative", ErrNotAllowed)
		}
		details["cost_usd"] = *u.CostUSD
	}
	if u.Source != "" {
		details["source"] = oneLine(u.Source, 64)
	}
	return s.appendAudit(auditRecord(EventBudgetSpent, s.Now(), "", details))
}

// Snapshot runs fn with the state under the lock. fn must not keep
// references past its return, nor call back into the service.
func (s *Service) Snapshot(fn func(st *State)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn(s.st)
}

// sweeper expires leases and approval requests exactly when they fall
// due, sleeping in between (no polling while idle).
func (s *Service) sweeper() {
	defer close(s.done)
	for {
		next := s.nextDue()
		var timer <-chan time.Time
		var t *time.Timer
		if !next.IsZero() {
			d := next.Sub(s.Now())
			if d < 0 {
				d = 0
			}
			t = time.NewTimer(d + time.Millisecond)
			timer = t.C
		}
		select {
		case <-s.stop:
			if t != nil {
				t.Stop()
			}
			return
		case <-s.kickCh:
		case <-timer:
		}
		if t != nil {
			t.Stop()
		}
		if s.Health() == nil {
			s.sweep()
		}
	}
}

// wakeBy makes sure the sweeper wakes no later than t. Only a deadline
// earlier than the one it sleeps towards needs a kick (and a rescan), so
// issuing thousands of leases does not rescan thousands of times.
func (s *Service) wakeBy(t time.Time) {
	s.mu.Lock()
	earlier := s.sweepAt.IsZero() || t.Before(s.sweepAt)
	if earlier {
		s.sweepAt = t
	}
	s.mu.Unlock()
	if earlier {
		s.kickSweeper()
	}
}

func (s *Service) kickSweeper() {
	select {
	case s.kickCh <- struct{}{}:
	default:
	}
}

func (s *Service) nextDue() time.Time {
	var next time.Time
	s.mu.Lock()
	for _, l := range s.st.Leases {
		if l.Status == Granted && (next.IsZero() || l.ExpiresAt.Before(next)) {
			next = l.ExpiresAt
		}
	}
	s.mu.Unlock()
	if d, ok := s.book.NextDeadline(); ok && (next.IsZero() || d.Before(next)) {
		next = d
	}
	s.mu.Lock()
	s.sweepAt = next
	s.mu.Unlock()
	return next
}

// sweep writes `expired` for leases past expires_at and expires due
// approval requests whose waiter did not do it itself.
func (s *Service) sweep() {
	now := s.Now()
	var recs []map[string]any
	s.mu.Lock()
	ids := make([]string, 0)
	for id, l := range s.st.Leases {
		if l.Status == Granted && !now.Before(l.ExpiresAt) {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		l := s.st.Leases[id]
		r := map[string]any{"schema_version": SchemaVersion, "at": FormatTime(l.ExpiresAt), "event": "expired", "lease_id": id}
		if l.ParentID != "" {
			r["parent_lease_id"] = l.ParentID
		}
		recs = append(recs, r)
	}
	s.mu.Unlock()
	if len(recs) > 0 {
		s.appendLeases(recs...)
	}
	for _, r := range s.book.Due(now) {
		s.expireApproval(r.ID, "expiry")
	}
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
	return oneLine(tool+": "+strings.Join(parts, "; "), 300)
}
