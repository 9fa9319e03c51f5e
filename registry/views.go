package registry

import (
	"time"

	"github.com/leasedeck/leasedeck/approvals"
)

// LeaseView is what `leases` lists and the cockpit shows for one lease:
// plain values, safe to marshal and to keep.
type LeaseView struct {
	ID            string             `json:"lease_id"`
	ParentID      string             `json:"parent_lease_id,omitempty"`
	Status        Status             `json:"status"`
	Live          bool               `json:"live"`
	Agent         string             `json:"agent"`
	RuntimeAgent  string             `json:"runtime_agent,omitempty"`
	Purpose       string             `json:"purpose"`
	IssuedAt      string             `json:"issued_at,omitempty"`
	ExpiresAt     string             `json:"expires_at,omitempty"`
	ClosedAt      string             `json:"closed_at,omitempty"`
	Reason        string             `json:"reason,omitempty"`
	Refusals      []string           `json:"refusals,omitempty"`
	RevokedBy     string             `json:"revoked_by,omitempty"`
	Generation    int                `json:"generation"`
	Children      int                `json:"children"`
	LiveChildren  int                `json:"live_children"`
	Budget        map[string]any     `json:"budget,omitempty"`    // granted
	Remaining     map[string]any     `json:"remaining,omitempty"` // now
	Spent         map[string]float64 `json:"spent"`
	Narrowing     string             `json:"narrowing,omitempty"`
	Lease         map[string]any     `json:"lease,omitempty"`    // the signed lease (View only)
	Declared      map[string]any     `json:"declared,omitempty"` // (View only)
	LastDecisions []GateEvent        `json:"activity,omitempty"` // (View only)
	// Confinement: whether the lease's process tree is held in the
	// kernel, and by what (confined.go); absent outside a run.
	Confinement *Confinement `json:"confinement,omitempty"`
	// HistoryError says why a closed lease's history (read back from the
	// journal) is not shown: its lines no longer check.
	HistoryError string `json:"history_error,omitempty"`
}

// View renders one lease for display at now; full adds the signed lease,
// the declaration and recent activity.
func (s *State) View(l *LeaseState, now time.Time, full bool) LeaseView {
	v := LeaseView{
		ID: l.ID, ParentID: l.ParentID, Status: l.Status, Purpose: l.Purpose(),
		Reason: l.Reason, Refusals: l.Reasons, RevokedBy: l.RevokedBy,
		Generation: s.Generation(l.ID), Children: len(l.Children), LiveChildren: s.LiveChildren(l.ID, now),
		Narrowing: l.Narrowing, Confinement: s.ConfinementOf(l.ID),
		Spent: map[string]float64{"steps": l.Spent.Steps, "tokens": l.Spent.Tokens, "cost_usd": l.Spent.CostUSD},
	}
	a := l.Agent()
	v.Agent, v.RuntimeAgent = a.Name, a.RuntimeAgent
	v.Live, _ = s.Live(l.ID, now)
	if l.Status == Granted && !now.Before(l.ExpiresAt) {
		v.Status = Expired // expires_at passed; the `expired` line follows
	}
	if !l.IssuedAt.IsZero() {
		v.IssuedAt = FormatTime(l.IssuedAt)
	}
	if !l.ExpiresAt.IsZero() {
		v.ExpiresAt = FormatTime(l.ExpiresAt)
	}
	if !l.ClosedAt.IsZero() {
		v.ClosedAt = FormatTime(l.ClosedAt)
	}
	if l.Granted != nil {
		v.Budget = l.Granted.Budget.JSON()
		if v.Live {
			v.Remaining = s.Remaining(l.ID, now).JSON()
		}
	}
	if full {
		v.Lease, v.Declared = l.Lease, l.Declared
		v.LastDecisions = append([]GateEvent(nil), l.Activity...)
	}
	return v
}

// Views lists every lease and refusal in decision order.
func (s *Service) Views() []LeaseView {
	now := s.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]LeaseView, 0, len(s.st.Order))
	for _, l := range s.st.Sorted() {
		v := s.st.View(l, now, false)
		v.Confinement = s.confinementLocked(l.ID)
		out = append(out, v)
	}
	return out
}

// View is one lease in full: its signed JSON, declaration and activity.
func (s *Service) View(id string) (LeaseView, bool) {
	now := s.Now()
	s.mu.Lock()
	l := s.st.Leases[id]
	if l == nil {
		s.mu.Unlock()
		return LeaseView{}, false
	}
	v := s.st.View(l, now, true)
	v.Confinement = s.confinementLocked(l.ID)
	compacted, where := l.Compacted, l.where
	s.mu.Unlock()
	if compacted {
		// Read outside the lock: the disk is slower than every gate.
		lease, declared, events, err := s.history(id, where)
		v.Lease, v.Declared, v.LastDecisions = lease, declared, events
		if err != nil {
			v.HistoryError = "the history of this closed lease cannot be shown: " + err.Error()
		}
	}
	return v, true
}

// ApprovalView is a pending request as the socket lists it.
type ApprovalView struct {
	ID        string   `json:"approval_id"`
	LeaseID   string   `json:"lease_id"`
	Client    string   `json:"client,omitempty"`
	Tool      string   `json:"tool"`
	Summary   string   `json:"summary"`
	Reason    string   `json:"reason"`
	Names     []string `json:"names"`
	CreatedAt string   `json:"created_at"`
	Deadline  string   `json:"deadline"`
}

// PendingApprovals lists undecided requests, oldest first.
func (s *Service) PendingApprovals() []ApprovalView {
	var out []ApprovalView
	for _, r := range s.book.Pending() {
		out = append(out, approvalView(r))
	}
	if out == nil {
		out = []ApprovalView{}
	}
	return out
}

func approvalView(r approvals.Request) ApprovalView {
	return ApprovalView{ID: r.ID, LeaseID: r.LeaseID, Client: r.Client, Tool: r.Tool, Summary: r.Summary,
		Reason: r.Reason, Names: r.Names, CreatedAt: FormatTime(r.CreatedAt), Deadline: FormatTime(r.Deadline)}
}
