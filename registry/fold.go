package registry

import (
	"fmt"
	"strings"

	"github.com/leasedeck/leasedeck/approvals"
	"github.com/leasedeck/leasedeck/journal"
	"github.com/leasedeck/leasedeck/registry/record"
)

// FoldLine applies one parsed journal line to a state and an approval
// book. It is the one definition of what the journal means, shared by the
// registry, `journal verify` and every cockpit watching the files.
func FoldLine(st *State, book *approvals.Book, l *record.Line) error {
	if l.Kind == journal.Leases {
		r := &l.Lease
		if err := st.applyLease(l); err != nil {
			return err
		}
		if r.Event != record.Granted && r.Event != record.Refused && r.Event != record.Narrowed && r.LeaseID != "" {
			book.ForgetLease(r.LeaseID)
		}
		return nil
	}
	a := &l.Audit
	st.applyAudit(l)
	d := &a.Details
	switch a.EventType {
	case EventApprovalAsked:
		deadline, _ := ParseTime(d.Deadline)
		return book.Add(approvals.Request{
			ID: d.ApprovalID, LeaseID: d.LeaseID, Client: d.Client,
			Tool: d.Tool, Summary: a.Summary, Reason: a.Reasoning,
			Names: splitNames(d.Names), InputHash: a.RequestHash,
			CreatedAt: a.Time(), Deadline: deadline, Call: callFromRecord(a.Extra),
		})
	case EventApprovalDecided:
		err := book.Apply(approvals.Decision{
			RequestID: d.ApprovalID, Outcome: approvals.Outcome(d.Outcome),
			Scope: approvals.Scope(d.Scope), Reason: a.Reasoning, By: d.By, At: a.Time(),
		})
		if l := st.Leases[d.LeaseID]; l != nil && l.Status != Granted {
			// A closed lease remembers no grant, whether its close is
			// folded before the decision (a replay folds leases.jsonl
			// first) or after it (live, or from a snapshot).
			book.ForgetLease(d.LeaseID)
		}
		return err
	}
	return nil
}

func splitNames(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, " ")
}

// applyLease folds one lease record. Unknown events from a newer writer
// are ignored (additive rule, SPEC §10); a record about an unknown lease
// is an error the caller reports (journal verify).
func (s *State) applyLease(line *record.Line) error {
	r := &line.Lease
	id := r.LeaseID
	switch r.Event {
	case record.Granted:
		if r.Lease == nil {
			return fmt.Errorf("granted record for %s carries no lease", id)
		}
		sl := r.Signed()
		man, err := ParseManifest(sl.Manifest)
		if err != nil {
			return fmt.Errorf("granted record for %s: %v", id, err)
		}
		l := &LeaseState{
			ID: id, ParentID: sl.ParentLeaseID, Status: Granted,
			Granted: man, Lease: r.Lease, GrantedHash: r.GrantedHash,
			DeclaredHash: sl.DeclaredHash, Declared: r.Declared,
			IssuedAt: sl.Issued(), ExpiresAt: sl.Expires(),
		}
		l.where.start(line)
		return s.add(l)
	case record.Refused:
		at := r.Time()
		l := &LeaseState{ID: id, ParentID: r.ParentLeaseID, Status: Refused,
			DeclaredHash: r.DeclaredHash, Reason: r.Reason, IssuedAt: at, ClosedAt: at,
			Declared: r.Declared, Reasons: r.SortedReasons()}
		l.where.start(line)
		if err := s.add(l); err != nil {
			return err
		}
		l.compact()
		return nil
	}
	l := s.Leases[id]
	if l == nil {
		switch r.Event {
		case record.Narrowed, record.Heartbeat, record.Attached:
			return fmt.Errorf("%s record for unknown lease %s", r.Event, id)
		}
		if r.Event.Closes() {
			return fmt.Errorf("%s record for unknown lease %s", r.Event, id)
		}
		return nil
	}
	switch {
	case r.Event == record.Narrowed:
		l.Narrowing = r.Reason
	case r.Event.Closes():
		if l.Status != Granted {
			// The first close in the file decides; a later one changes
			// nothing. The registry writes one close per lease (closers
			// claim the lease first, closeclaim.go), but journals written
			// before that claim existed can hold two closes raced onto one
			// lease, and those must still fold and be served, not be
			// opened read-only.
			return nil
		}
		l.Status = Status(r.Event)
		l.ClosedAt = r.Time()
		if r.Event == record.Revoked {
			l.RevokedBy = r.By
		}
		if r.Reason != "" {
			l.Reason = r.Reason
		}
		l.compact()
	}
	return nil
}

// applyAudit folds the audit events that change lease state: gate
// decisions (an allowed call spends one step), usage reports, and the
// session and admission events.
func (s *State) applyAudit(line *record.Line) {
	a := &line.Audit
	d := &a.Details
	if d.AdmissionID != "" || a.EventType == EventSessionStarted {
		s.foldSession(a)
	}
	if a.EventType == EventApprovalClientAsked || a.EventType == EventApprovalClientAnswered {
		s.foldClientAsk(a)
	}
	l := s.Leases[d.LeaseID]
	if l == nil {
		return
	}
	switch a.EventType {
	case EventApprovalClientAnswered:
		if !l.Compacted {
			dec := "deny"
			if d.Outcome == AskAllowedByUser {
				dec = "allow"
			}
			l.Activity = append(l.Activity, GateEvent{At: a.Time(), Tool: d.Tool, Decision: dec,
				Reason: "in the client: " + d.Outcome + " (" + d.Source + ")", Summary: a.Summary})
		}
	case EventGateAllowed, EventGateDenied, EventGateHeld, EventApprovalClientAsked:
		if a.EventType == EventGateAllowed || a.EventType == EventApprovalClientAsked {
			s.Charge(d.LeaseID, Spend{Steps: figure(d.Steps)})
			l.SpendSeries.Add(l.IssuedAt, a.Time(), figure(d.Steps), 0)
		}
		at := a.Time()
		l.LastActivity = at
		l.Decisions++
		l.where.addActivity(line)
		if l.Compacted {
			// A call under a closed lease is still answered and recorded
			// (blocked); its line is read back with the rest.
			return
		}
		l.Activity = append(l.Activity, GateEvent{At: at, Tool: d.Tool,
			Decision: d.Decision, Reason: a.Reasoning, Summary: a.Summary})
		if len(l.Activity) >= 2*maxActivity {
			// Trim in halves, not per event: copying the window on every
			// decision would cost O(maxActivity) each time.
			l.Activity = append([]GateEvent(nil), l.Activity[len(l.Activity)-maxActivity:]...)
		}
	case EventBudgetSpent:
		s.Charge(d.LeaseID, Spend{Steps: figure(d.Steps), Tokens: figure(d.Tokens), CostUSD: figure(d.CostUSD)})
		l.SpendSeries.Add(l.IssuedAt, a.Time(), figure(d.Steps), figure(d.Tokens))
	case EventRunConfined:
		c := confinementFromRecord(a)
		l.Run = &c
	case EventRunEnded:
		if l.Run == nil {
			l.Run = &Confinement{RunLeaseID: d.LeaseID, Reason: "the run ended before it reported its confinement"}
		}
		l.Run.Ended = true
	}
}

// confinementFromRecord reads a leasedeck.run.confined line back: the
// run's own flat scalars (see opRunConfined). A member of the wrong type
// reads as its zero value: unconfined, no Landlock, no namespace.
func confinementFromRecord(a *record.Audit) Confinement {
	x := a.Details.Extra
	c := Confinement{RunLeaseID: a.Details.LeaseID}
	c.Confined, _ = x["confined"].(bool)
	c.MountNamespace, _ = x["mount_namespace"].(bool)
	c.Network, _ = x["network"].(string)
	c.Reason, _ = x["reason"].(string)
	if n, ok := number(x["landlock_abi"]); ok && n >= 0 && n < 1<<16 {
		c.LandlockABI = int(n)
	}
	if n, ok := number(x["narrowed_hierarchies"]); ok && n >= 0 && n < 1<<16 {
		c.Narrowed = int(n)
	}
	return c
}

// ConfinementOf is the confinement of id's nearest ancestor-or-self that
// a confined run holds, as the journal records it (nil: none).
func (s *State) ConfinementOf(id string) *Confinement {
	for cur, hops := id, 0; cur != "" && hops < 64; hops++ {
		l := s.Leases[cur]
		if l == nil {
			return nil
		}
		if l.Run != nil {
			c := *l.Run
			return &c
		}
		cur = l.ParentID
	}
	return nil
}

// foldSession applies the session and admission audit events.
func (s *State) foldSession(a *record.Audit) {
	d := &a.Details
	switch a.EventType {
	case EventSessionStarted:
		s.foldSessionRecord(d, "")
		return
	case EventSessionBegun:
		s.foldSessionRecord(d, d.AdmissionID)
		s.Admissions[d.AdmissionID] = &Admission{ID: d.AdmissionID, LeaseID: d.LeaseID, SessionHash: d.SessionHash, Client: d.Client, BegunAt: a.Time(), pendingOK: map[string]int{}}
		return
	}
	adm := s.Admissions[d.AdmissionID]
	if adm == nil {
		return
	}
	switch a.EventType {
	case EventGateAllowed, EventGateDenied:
		adm.Gated++
		if a.EventType == EventGateAllowed {
			adm.Allowed++
			adm.pendingOK[d.Tool]++
		} else {
			adm.Denied++
		}
	case EventToolReported:
		adm.Reported++
		if d.Status != "denied" {
			if adm.pendingOK[d.Tool] > 0 {
				adm.pendingOK[d.Tool]--
			} else {
				adm.Ungated++
			}
		}
		if d.Violation != nil && *d.Violation {
			adm.Violations = append(adm.Violations, a.Reasoning)
		}
	case EventBudgetSpent:
		if d.Accurate != nil && *d.Accurate {
			adm.Telemetry++
		} else {
			adm.Estimates++
		}
	case EventSessionFinalized:
		adm.Finalized = d.Outcome
	}
}
