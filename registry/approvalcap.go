package registry

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/leasedeck/leasedeck/approvals"
	"github.com/leasedeck/leasedeck/registry/record"
)

// DefaultMaxPendingApprovals is how many approval requests may wait at
// once under one lease when the policy does not say.
const DefaultMaxPendingApprovals = 5

// ErrTooManyApprovals: the lease already has as many approval requests
// waiting as the policy allows. Nothing was recorded.
var ErrTooManyApprovals = errors.New("too many pending approvals")

// askCounter counts the approval requests waiting under each lease. Its
// zero value is ready.
type askCounter struct {
	mu sync.Mutex
	n  map[string]int
}

// take reserves a slot under lease, or reports false when max are taken.
func (c *askCounter) take(lease string, max int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	if c.n[lease] >= max {
		return false
	}
	c.n[lease]++
	return true
}

func (c *askCounter) release(lease string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n[lease]--; c.n[lease] <= 0 {
		delete(c.n, lease)
	}
}

// askCapped files an approval request and waits for it, unless the lease
// already has the policy's maximum waiting: then the call is refused with
// ErrTooManyApprovals before anything is journaled, so a flood of requests
// cannot bury the one a human should see, nor grow the journal.
func (s *Service) askCapped(ctx context.Context, req GateRequest, res GateResult) GateAnswer {
	max := s.cfg.MaxPendingApprovals
	if max <= 0 {
		max = DefaultMaxPendingApprovals
	}
	if !s.asks.take(req.LeaseID, max) {
		err := fmt.Errorf("%w: lease %s already has %d approval request(s) waiting for a human (the policy's max_pending_approvals); this call is refused until some are decided",
			ErrTooManyApprovals, record.ShortID(req.LeaseID), max)
		return GateAnswer{Verdict: VerdictDeny, Reason: err.Error(), refused: err}
	}
	defer s.asks.release(req.LeaseID)
	return s.ask(ctx, req, res)
}

// cancelApproval ends a request whose caller hung up before a human
// decided: journaled as cancelled, by "caller-gone", and never approvable
// afterwards (a later decision finds it decided).
func (s *Service) cancelApproval(id, _ string) error {
	req, _, ok := s.book.Get(id)
	if !ok {
		return fmt.Errorf("approval %s: %w", id, approvals.ErrUnknown)
	}
	if err := s.book.Reserve(id); err != nil {
		return err
	}
	d := approvals.Decision{RequestID: id, Outcome: approvals.Cancelled, By: "caller-gone", At: s.Now()}
	if err := s.recordDecision(req, d); err != nil {
		s.book.Release(id)
		return err
	}
	return nil
}
