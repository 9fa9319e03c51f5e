package registry

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
	"time"
)

// TestSpentOnChainIsRemaining: the gate's budget check gives what it gave
// when it read State.Remaining, on random lease trees with cycles, missing
// and ungranted ancestors, chains longer than chainWalk's array, and
// budgets and spending that are zero, negative, infinite or NaN.
func TestSpentOnChainIsRemaining(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	values := []float64{0, 1, 5, 10, -1, math.Inf(1), math.NaN()}
	r := rand.New(rand.NewSource(11))
	blocked := 0
	for round := range 20000 {
		s := NewState()
		n := 1 + r.Intn(20)
		for i := range n {
			l := &LeaseState{ID: fmt.Sprint("l", i), Status: Granted, IssuedAt: now, ExpiresAt: now.Add(time.Hour)}
			switch k := r.Intn(10); {
			case k < 6 && i > 0:
				l.ParentID = fmt.Sprint("l", r.Intn(i)) // an ordinary tree
			case k == 6:
				l.ParentID = fmt.Sprint("l", r.Intn(n)) // perhaps a cycle, or itself
			case k == 7:
				l.ParentID = "missing"
			}
			if r.Intn(8) != 0 {
				l.Granted = &Manifest{}
				for _, f := range []BudgetField{Steps, Tokens, CostUSD, FanOut} {
					if r.Intn(2) == 0 {
						l.Granted.Budget.Set(f, values[r.Intn(len(values))])
					}
				}
			}
			l.Spent = Spend{Steps: values[r.Intn(len(values))], Tokens: values[r.Intn(len(values))], CostUSD: values[r.Intn(len(values))]}
			s.Leases[l.ID] = l
		}
		for _, id := range []string{"l0", fmt.Sprint("l", n-1), "missing"} {
			want, wantSpent := "", false
			rem := s.Remaining(id, now)
			for _, f := range []BudgetField{Steps, Tokens, CostUSD} {
				if v, ok := rem.Get(f); ok && v <= 0 {
					want, wantSpent = string(f), true
					break
				}
			}
			got, gotSpent := spentOnChain(s, id)
			if string(got) != want || gotSpent != wantSpent {
				t.Fatalf("round %d, lease %s, chain %v: spentOnChain = %q %v, Remaining says %q %v", round, id, s.Chain(id), got, gotSpent, want, wantSpent)
			}
			if gotSpent {
				blocked++
			}
		}
	}
	if blocked == 0 {
		t.Fatal("no chain was ever spent: the comparison says nothing")
	}
}
