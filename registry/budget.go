package registry

import (
	"fmt"
)

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
