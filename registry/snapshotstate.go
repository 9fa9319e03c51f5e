package registry

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/leasedeck/leasedeck/approvals"
	"github.com/leasedeck/leasedeck/schemas"
)

// The folded state as a snapshot holds it: every field of State, of each
// LeaseState (compacted or not, its places in the files included), of
// each Session and Admission, and the approval Book's requests, decisions
// and remembered grants. The JSON trees a record carries (the signed
// lease, the declaration, a grant's raw manifest) are kept in canonical
// form, so that they read back exactly as a replay of the journal parses
// them. snapshot_test.go checks that no field of these types is left out.

type snapState struct {
	Leases       []snapLease             `json:"leases"` // in decision order (State.Order)
	Sessions     map[string]*Session     `json:"sessions"`
	Admissions   map[string]snapAdmitted `json:"admissions"`
	Capabilities map[string]string       `json:"capabilities"`
	Book         approvals.State         `json:"approvals"`
	ClientAsks   []ClientAsk             `json:"client_asks,omitempty"`   // open
	AnsweredAsks []ClientAsk             `json:"answered_asks,omitempty"` // oldest first
}

type snapLease struct {
	ID           string          `json:"id"`
	ParentID     string          `json:"parent_id"`
	Status       Status          `json:"status"`
	Declared     json.RawMessage `json:"declared,omitempty"`
	DeclaredHash string          `json:"declared_hash"`
	Granted      *snapManifest   `json:"granted"`
	Lease        json.RawMessage `json:"lease,omitempty"`
	GrantedHash  string          `json:"granted_hash"`
	Narrowing    string          `json:"narrowing"`
	Reasons      []string        `json:"reasons"`
	Reason       string          `json:"reason"`
	RevokedBy    string          `json:"revoked_by"`
	IssuedAt     time.Time       `json:"issued_at"`
	ExpiresAt    time.Time       `json:"expires_at"`
	ClosedAt     time.Time       `json:"closed_at"`
	Spent        Spend           `json:"spent"`
	SpendSeries  SpendSeries     `json:"spend_series"`
	Children     []string        `json:"children"`
	Activity     []GateEvent     `json:"activity"`
	LastActivity time.Time       `json:"last_activity"`
	Decisions    int             `json:"decisions"`
	Compacted    bool            `json:"compacted"`
	Run          *Confinement    `json:"run,omitempty"`
	Where        snapRange       `json:"where"`
	Agent        Agent           `json:"agent"`
	Purpose      string          `json:"purpose"`
}

type snapRange struct {
	Located   bool   `json:"located"`
	Record    int64  `json:"record"`
	RecordSeq uint64 `json:"record_seq"`
	First     int64  `json:"first"`
	FirstSeq  uint64 `json:"first_seq"`
	Last      int64  `json:"last"`
}

type snapManifest struct {
	Raw           json.RawMessage `json:"raw,omitempty"`
	SchemaVersion string          `json:"schema_version"`
	Agent         Agent           `json:"agent"`
	Purpose       string          `json:"purpose"`
	HasPurpose    bool            `json:"has_purpose"`
	Allow         Allow           `json:"allow"`
	Deny          Deny            `json:"deny"`
	BudgetVals    [6]float64      `json:"budget_values"`
	BudgetSet     [6]bool         `json:"budget_set"`
	Approvals     []string        `json:"approvals"`
}

type snapAdmitted struct {
	Admission
	PendingOK map[string]int `json:"pending_ok"`
}

// canonicalTree keeps a record's JSON tree as a replay would parse it.
func canonicalTree(m map[string]any) (json.RawMessage, error) {
	if m == nil {
		return nil, nil
	}
	return schemas.Canonical(m)
}

func parseTree(raw json.RawMessage, what string) (map[string]any, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	v, err := schemas.ParseJSON(raw)
	m, ok := v.(map[string]any)
	if err != nil || !ok {
		return nil, fmt.Errorf("%s is not a JSON object", what)
	}
	return m, nil
}

// snapshotOf copies st and the book into their snapshot form. It runs
// under the service's lock; what it keeps refers to nothing the fold
// changes later (the record trees are encoded here).
func snapshotOf(st *State, book *approvals.Book) (*snapState, error) {
	out := &snapState{Leases: make([]snapLease, 0, len(st.Order)), Sessions: make(map[string]*Session, len(st.Sessions)),
		Admissions: make(map[string]snapAdmitted, len(st.Admissions)), Capabilities: make(map[string]string, len(st.Capabilities)),
		Book: book.Export()}
	for _, id := range st.Order {
		sl, err := leaseSnapshot(st.Leases[id])
		if err != nil {
			return nil, fmt.Errorf("lease %s: %w", id, err)
		}
		out.Leases = append(out.Leases, sl)
	}
	for h, s := range st.Sessions {
		c := *s
		out.Sessions[h] = &c
	}
	for id, a := range st.Admissions {
		c := snapAdmitted{Admission: *a, PendingOK: make(map[string]int, len(a.pendingOK))}
		c.pendingOK = nil // carried by PendingOK
		c.Violations = cloneStrings(a.Violations)
		for k, v := range a.pendingOK {
			c.PendingOK[k] = v
		}
		if a.pendingOK == nil {
			c.PendingOK = nil
		}
		out.Admissions[id] = c
	}
	for k, v := range st.Capabilities {
		out.Capabilities[k] = v
	}
	for _, c := range st.ClientAsks {
		out.ClientAsks = append(out.ClientAsks, *c)
	}
	out.AnsweredAsks = append([]ClientAsk(nil), st.AnsweredAsks...)
	return out, nil
}

func leaseSnapshot(l *LeaseState) (snapLease, error) {
	s := snapLease{ID: l.ID, ParentID: l.ParentID, Status: l.Status, DeclaredHash: l.DeclaredHash, GrantedHash: l.GrantedHash,
		Narrowing: l.Narrowing, Reasons: l.Reasons, Reason: l.Reason, RevokedBy: l.RevokedBy,
		IssuedAt: l.IssuedAt, ExpiresAt: l.ExpiresAt, ClosedAt: l.ClosedAt, Spent: l.Spent, SpendSeries: l.SpendSeries.clone(), Children: l.Children,
		Activity: l.Activity, LastActivity: l.LastActivity, Decisions: l.Decisions, Compacted: l.Compacted,
		Run: cloneConfinement(l.Run),
		Where: snapRange{Located: l.where.located, Record: l.where.record, RecordSeq: l.where.recordSeq,
			First: l.where.first, FirstSeq: l.where.firstSeq, Last: l.where.last},
		Agent: l.agent, Purpose: l.purpose}
	// The slices are copied: the fold appends to them after the lock.
	s.Reasons = cloneStrings(l.Reasons)
	s.Children = cloneStrings(l.Children)
	if l.Activity != nil {
		s.Activity = append(make([]GateEvent, 0, len(l.Activity)), l.Activity...)
	}
	var err error
	if s.Declared, err = canonicalTree(l.Declared); err != nil {
		return s, fmt.Errorf("its declaration: %w", err)
	}
	if s.Lease, err = canonicalTree(l.Lease); err != nil {
		return s, fmt.Errorf("its signed lease: %w", err)
	}
	if g := l.Granted; g != nil {
		m := &snapManifest{SchemaVersion: g.SchemaVersion, Agent: g.Agent, Purpose: g.Purpose, HasPurpose: g.HasPurpose,
			Allow: g.Allow, Deny: g.Deny, BudgetVals: g.Budget.vals, BudgetSet: g.Budget.set, Approvals: g.Approvals}
		if m.Raw, err = canonicalTree(g.Raw); err != nil {
			return s, fmt.Errorf("its granted manifest: %w", err)
		}
		s.Granted = m
	}
	return s, nil
}

// cloneConfinement copies a run's record: the fold changes it in place
// (the run's end) after the lock.
func cloneConfinement(c *Confinement) *Confinement {
	if c == nil {
		return nil
	}
	cp := *c
	return &cp
}

func cloneStrings(s []string) []string {
	if s == nil {
		return nil
	}
	return append(make([]string, 0, len(s)), s...)
}

// restore rebuilds the state and the book a snapshot was taken of.
func (ss *snapState) restore() (*State, *approvals.Book, error) {
	st := NewState()
	for i := range ss.Leases {
		l, err := ss.Leases[i].restore()
		if err != nil {
			return nil, nil, fmt.Errorf("lease %s: %w", ss.Leases[i].ID, err)
		}
		if _, dup := st.Leases[l.ID]; dup || l.ID == "" {
			return nil, nil, fmt.Errorf("lease id %q twice or empty", l.ID)
		}
		st.Leases[l.ID] = l
		st.Order = append(st.Order, l.ID)
	}
	for _, l := range st.Leases {
		for _, c := range l.Children {
			if st.Leases[c] == nil {
				return nil, nil, fmt.Errorf("lease %s names unknown child %s", l.ID, c)
			}
		}
	}
	for h, s := range ss.Sessions {
		if s == nil {
			return nil, nil, fmt.Errorf("session %s is empty", h)
		}
		st.Sessions[h] = s
	}
	for id, a := range ss.Admissions {
		adm := a.Admission
		adm.pendingOK = a.PendingOK
		st.Admissions[id] = &adm
	}
	for k, v := range ss.Capabilities {
		st.Capabilities[k] = v
	}
	for i := range ss.ClientAsks {
		c := ss.ClientAsks[i]
		if c.ID == "" {
			return nil, nil, fmt.Errorf("a client ask without an id")
		}
		st.ClientAsks[c.ID] = &c
	}
	st.AnsweredAsks = ss.AnsweredAsks
	book, err := approvals.FromState(ss.Book)
	if err != nil {
		return nil, nil, err
	}
	return st, book, nil
}

func (s *snapLease) restore() (*LeaseState, error) {
	l := &LeaseState{ID: s.ID, ParentID: s.ParentID, Status: s.Status, DeclaredHash: s.DeclaredHash, GrantedHash: s.GrantedHash,
		Narrowing: s.Narrowing, Reasons: s.Reasons, Reason: s.Reason, RevokedBy: s.RevokedBy,
		IssuedAt: s.IssuedAt, ExpiresAt: s.ExpiresAt, ClosedAt: s.ClosedAt, Spent: s.Spent, SpendSeries: s.SpendSeries, Children: s.Children,
		Activity: s.Activity, LastActivity: s.LastActivity, Decisions: s.Decisions, Compacted: s.Compacted,
		Run: cloneConfinement(s.Run),
		where: lineRange{located: s.Where.Located, record: s.Where.Record, recordSeq: s.Where.RecordSeq,
			first: s.Where.First, firstSeq: s.Where.FirstSeq, last: s.Where.Last},
		agent: s.Agent, purpose: s.Purpose}
	if !s.SpendSeries.valid() {
		return nil, fmt.Errorf("its spend series is not one the fold keeps")
	}
	var err error
	if l.Declared, err = parseTree(s.Declared, "the declaration"); err != nil {
		return nil, err
	}
	if l.Lease, err = parseTree(s.Lease, "the signed lease"); err != nil {
		return nil, err
	}
	if g := s.Granted; g != nil {
		m := &Manifest{SchemaVersion: g.SchemaVersion, Agent: g.Agent, Purpose: g.Purpose, HasPurpose: g.HasPurpose,
			Allow: g.Allow, Deny: g.Deny, Budget: Budget{vals: g.BudgetVals, set: g.BudgetSet}, Approvals: g.Approvals}
		if m.Raw, err = parseTree(g.Raw, "the granted manifest"); err != nil {
			return nil, err
		}
		l.Granted = m
	}
	return l, nil
}
