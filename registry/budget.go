package registry

import (
	"errors"
	"fmt"
	"math"

	"github.com/leasedeck/leasedeck/registry/record"
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
	if err := CheckFigures(u.Tokens, u.CostUSD); err != nil {
		return err
	}
	d := record.Details{LeaseID: id, Tokens: u.Tokens, CostUSD: u.CostUSD, Source: u.Source}
	return s.appendAudit(record.NewAudit(EventBudgetSpent, s.Now(), "", d))
}

// ErrBadRequest marks a request whose values are malformed (a figure
// that is not a number a budget can hold); the socket answers bad_request.
var ErrBadRequest = errors.New("bad request")

// CheckFigures refuses usage figures a budget cannot hold: not finite,
// negative, tokens that are not a whole number, or either above the
// largest integer a JSON number carries exactly (the lease-record
// schema's maximum for usage tokens). Below that bound no number of
// reports can push a sum to infinity in practice, and the fold saturates
// anyway.
func CheckFigures(tokens, costUSD *float64) error {
	limit := record.MaxTokens()
	for _, f := range []struct {
		name  string
		v     *float64
		whole bool
	}{{"tokens", tokens, true}, {"cost_usd", costUSD, false}} {
		switch v := f.v; {
		case v == nil:
		case math.IsNaN(*v) || math.IsInf(*v, 0):
			return fmt.Errorf("%w: %s must be a finite number", ErrBadRequest, f.name)
		case *v < 0:
			return fmt.Errorf("%w: %s must not be negative", ErrBadRequest, f.name)
		case *v > limit:
			return fmt.Errorf("%w: %s must be at most %.0f", ErrBadRequest, f.name, limit)
		case f.whole && *v != math.Trunc(*v):
			return fmt.Errorf("%w: %s must be a whole number", ErrBadRequest, f.name)
		}
	}
	return nil
}

// figure is a usage figure as the fold charges it. The socket refuses
// bad figures, but a journal may already hold one (an older writer, a
// line written before the check): a missing, negative or NaN figure
// charges nothing (a refund would reopen a budget), an infinite one
// charges the most there is (it can only exhaust a budget).
func figure(v *float64) float64 {
	switch {
	case v == nil || math.IsNaN(*v) || *v <= 0:
		return 0
	case math.IsInf(*v, 1) || *v > math.MaxFloat64:
		return math.MaxFloat64
	}
	return *v
}

// saturatingAdd adds two non-negative figures, stopping at the largest
// float instead of overflowing to +Inf.
func saturatingAdd(a, b float64) float64 {
	if s := a + b; !math.IsInf(s, 0) && !math.IsNaN(s) {
		return s
	}
	return math.MaxFloat64
}
