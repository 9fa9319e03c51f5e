package registry

import (
	"fmt"
	"time"

	"github.com/leasedeck/leasedeck/registry/record"
)

// Status is a lease's status as folded from the lease journal. It is
// never stored anywhere but in the lines that produced it.
type Status string

// Statuses of SPEC §6.1 that a lease can be in.
const (
	Granted   Status = "granted"
	Refused   Status = "refused"
	Revoked   Status = "revoked"
	Stopped   Status = "stopped"
	Completed Status = "completed"
	Expired   Status = "expired"
)

// Spend is what a lease (and, through charging up the chain, its
// descendants) has used.
type Spend struct {
	Steps   float64
	Tokens  float64
	CostUSD float64
}

func (s Spend) of(f BudgetField) float64 {
	switch f {
	case Steps:
		return s.Steps
	case Tokens:
		return s.Tokens
	case CostUSD:
		return s.CostUSD
	}
	return 0
}

// GateEvent is one gate decision remembered for the cockpit's Activity tab.
type GateEvent struct {
	At       time.Time
	Tool     string
	Decision string
	Reason   string
	Summary  string
}

// LeaseState is everything folded about one lease (or one refusal).
type LeaseState struct {
	ID       string
	ParentID string
	Status   Status

	Declared     map[string]any
	DeclaredHash string
	Granted      *Manifest // nil for a refusal
	Lease        map[string]any
	GrantedHash  string
	Narrowing    string // the `narrowed` record's summary, when the grant took anything away

	Reasons   []string // refusal codes
	Reason    string   // refusal, revocation or stop prose
	RevokedBy string

	IssuedAt, ExpiresAt, ClosedAt time.Time

	Spent Spend
	// SpendSeries is the lease's own charges over time, for the cockpit.
	SpendSeries SpendSeries
	Children    []string // every child ever issued, in issue order
	// Activity is the recent gate decisions, while the lease is open (or
	// its lines' places in the files are not known).
	Activity []GateEvent
	// LastActivity and Decisions summarise every gate decision ever made
	// under the lease, open or closed.
	LastActivity time.Time
	Decisions    int

	// Compacted: the lease is closed and only its summary is in memory;
	// the signed lease, the declaration and the activity are read back
	// from the journal on demand (see compact.go).
	Compacted bool
	// Run is how the process tree of a confined run's lease is held (the
	// run's leasedeck.run.confined line, ended by leasedeck.run.ended);
	// nil for a lease no run holds. Kept when the lease is compacted.
	Run     *Confinement
	where   lineRange
	agent   Agent  // kept for display once Declared is dropped
	purpose string // likewise
}

// maxActivity bounds the per-lease activity kept in memory.
const maxActivity = 200

// Agent is the declared (or granted) identity, for display.
func (l *LeaseState) Agent() Agent {
	if l.Granted != nil {
		return l.Granted.Agent
	}
	if l.Compacted {
		return l.agent
	}
	if m, err := ParseManifest(l.Declared); err == nil {
		return m.Agent
	}
	return Agent{}
}

// Purpose is the declared purpose, for display.
func (l *LeaseState) Purpose() string {
	if l.Granted != nil {
		return l.Granted.Purpose
	}
	if l.Compacted {
		return l.purpose
	}
	if m, err := ParseManifest(l.Declared); err == nil {
		return m.Purpose
	}
	return ""
}

// Open reports whether the lease's own record leaves it able to act at
// now: granted and not yet at expires_at. Ancestors are checked by
// State.Live.
func (l *LeaseState) Open(now time.Time) bool {
	return l.Status == Granted && now.Before(l.ExpiresAt)
}

// State is the registry's state, a fold of the two journal files.
type State struct {
	Leases map[string]*LeaseState
	Order  []string // lease ids in the order they were decided

	Sessions   map[string]*Session   // by salted session hash
	Admissions map[string]*Admission // by admission id
	// Capabilities maps a session capability's hash to the session it
	// was handed to (the capability itself is never stored).
	Capabilities map[string]string
	// ClientAsks are the calls asked in the client whose outcome no event
	// has told yet, by approval id; AnsweredAsks the latest answered ones,
	// oldest first (clientask.go).
	ClientAsks   map[string]*ClientAsk
	AnsweredAsks []ClientAsk
}

// NewState returns an empty state.
func NewState() *State {
	return &State{Leases: map[string]*LeaseState{}, Sessions: map[string]*Session{}, Admissions: map[string]*Admission{},
		Capabilities: map[string]string{}, ClientAsks: map[string]*ClientAsk{}}
}

// Chain returns the ancestors of id, parent first.
func (s *State) Chain(id string) []string {
	var out []string
	seen := map[string]bool{id: true}
	for l := s.Leases[id]; l != nil && l.ParentID != ""; l = s.Leases[l.ParentID] {
		if seen[l.ParentID] {
			break // a cycle cannot be written by us; do not loop on a forged one
		}
		seen[l.ParentID] = true
		out = append(out, l.ParentID)
	}
	return out
}

// Live reports whether id and every ancestor are open at now, and if not,
// why: a lease opens nothing after expires_at, after revocation of itself
// or any ancestor, or once closed.
func (s *State) Live(id string, now time.Time) (bool, string) {
	l := s.Leases[id]
	if l == nil {
		return false, "unknown lease " + id
	}
	for _, cur := range append([]string{id}, s.Chain(id)...) {
		c := s.Leases[cur]
		if c == nil {
			return false, "ancestor lease " + cur + " is unknown"
		}
		who := "lease"
		if cur != id {
			who = "ancestor lease " + record.ShortID(cur)
		}
		switch {
		case c.Status == Granted && !now.Before(c.ExpiresAt):
			return false, fmt.Sprintf("%s expired at %s", who, FormatTime(c.ExpiresAt))
		case c.Status == Revoked:
			return false, fmt.Sprintf("%s was revoked: %s", who, c.Reason)
		case c.Status != Granted:
			return false, fmt.Sprintf("%s is %s", who, c.Status)
		}
	}
	return true, ""
}

// LiveChildren counts id's children that are open at now.
func (s *State) LiveChildren(id string, now time.Time) int {
	l := s.Leases[id]
	if l == nil {
		return 0
	}
	n := 0
	for _, c := range l.Children {
		if cl := s.Leases[c]; cl != nil && cl.Open(now) {
			n++
		}
	}
	return n
}

// Subtree returns id and all its descendants, children before parents
// (the order a cascade revokes in), without recursion.
func (s *State) Subtree(id string) []string {
	var order []string
	stack := []string{id}
	seen := map[string]bool{}
	for len(stack) > 0 {
		cur := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[cur] {
			continue
		}
		seen[cur] = true
		order = append(order, cur)
		if l := s.Leases[cur]; l != nil {
			stack = append(stack, l.Children...)
		}
	}
	// order is parents before children; reverse it.
	for i, j := 0, len(order)-1; i < j; i, j = i+1, j-1 {
		order[i], order[j] = order[j], order[i]
	}
	return order
}

// Remaining is the budget id may still spend: for each field, the minimum
// over the lease and its ancestors of granted minus spent, so fan-out
// cannot multiply authority. fan_out is the lease's own grant minus its
// live children; wall_clock_ms is the time left until expires_at; depth is
// the lease's own.
func (s *State) Remaining(id string, now time.Time) Budget {
	var b Budget
	l := s.Leases[id]
	if l == nil || l.Granted == nil {
		return b
	}
	for _, f := range []BudgetField{Steps, Tokens, CostUSD} {
		for _, cur := range append([]string{id}, s.Chain(id)...) {
			c := s.Leases[cur]
			if c == nil || c.Granted == nil {
				continue
			}
			if g, ok := c.Granted.Budget.Get(f); ok {
				left := g - c.Spent.of(f)
				if left < 0 {
					left = 0
				}
				if cur2, ok := b.Get(f); !ok || left < cur2 {
					b.Set(f, left)
				}
			}
		}
	}
	if d, ok := l.Granted.Budget.Get(Depth); ok {
		b.Set(Depth, d)
	}
	if fo, ok := l.Granted.Budget.Get(FanOut); ok {
		left := fo - float64(s.LiveChildren(id, now))
		if left < 0 {
			left = 0
		}
		b.Set(FanOut, left)
	}
	ms := l.ExpiresAt.Sub(now).Milliseconds()
	if ms < 0 {
		ms = 0
	}
	b.Set(WallClockMs, float64(ms))
	return b
}

// ParentView is the manifest a child of id is narrowed against: the
// parent's grant with its remaining budget (SPEC §5: "parent remaining").
func (s *State) ParentView(id string, now time.Time) (Parent, error) {
	l := s.Leases[id]
	if l == nil || l.Granted == nil {
		return Parent{}, fmt.Errorf("unknown parent lease %s", id)
	}
	view := *l.Granted
	view.Budget = s.Remaining(id, now)
	return Parent{ID: id, Manifest: &view, ExpiresAt: l.ExpiresAt}, nil
}

// Charge spends on id and every ancestor. Sums saturate at the largest
// float: a spend can exhaust a budget, never wrap or become infinite.
func (s *State) Charge(id string, sp Spend) {
	for _, cur := range append([]string{id}, s.Chain(id)...) {
		if c := s.Leases[cur]; c != nil {
			c.Spent.Steps = saturatingAdd(c.Spent.Steps, sp.Steps)
			c.Spent.Tokens = saturatingAdd(c.Spent.Tokens, sp.Tokens)
			c.Spent.CostUSD = saturatingAdd(c.Spent.CostUSD, sp.CostUSD)
		}
	}
}

func (s *State) add(l *LeaseState) error {
	if _, dup := s.Leases[l.ID]; dup {
		return fmt.Errorf("lease id %s decided twice", l.ID)
	}
	s.Leases[l.ID] = l
	s.Order = append(s.Order, l.ID)
	if l.ParentID != "" && l.Status == Granted {
		p := s.Leases[l.ParentID]
		if p == nil {
			return fmt.Errorf("lease %s names unknown parent %s", l.ID, l.ParentID)
		}
		p.Children = append(p.Children, l.ID)
	}
	return nil
}

// Audit event types leasedeck writes (record holds the vocabulary).
const (
	EventGateAllowed      = record.GateAllowed
	EventGateDenied       = record.GateDenied
	EventGateHeld         = record.GateHeld
	EventBudgetSpent      = record.BudgetSpent
	EventApprovalAsked    = record.ApprovalAsked
	EventApprovalDecided  = record.ApprovalDecided
	EventRegistryStarted  = record.RegistryStarted
	EventToolReported     = record.ToolReported
	EventScopeViolation   = record.ScopeViolation
	EventSessionStarted   = record.SessionStarted
	EventSessionBegun     = record.SessionBegun
	EventSessionFinalized = record.SessionFinalized

	EventApprovalClientAsked    = record.ApprovalClientAsked
	EventApprovalClientAnswered = record.ApprovalClientAnswered
)

// Sorted returns leases in decision order (parents always before
// children, since a child is issued after its parent).
func (s *State) Sorted() []*LeaseState {
	out := make([]*LeaseState, 0, len(s.Order))
	for _, id := range s.Order {
		out = append(out, s.Leases[id])
	}
	return out
}

// Roots are leases without a parent, in decision order.
func (s *State) Roots() []string {
	var out []string
	for _, id := range s.Order {
		if s.Leases[id].ParentID == "" || s.Leases[s.Leases[id].ParentID] == nil {
			out = append(out, id)
		}
	}
	return out
}

// Generation is how deep id is in its tree (a root is 0).
func (s *State) Generation(id string) int { return len(s.Chain(id)) }
