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

// MaxHeldPerTree is how many calls may wait for a human at once across
// one lease tree: a root lease (a client session's, a confined run's, an
// operator's) and every lease issued below it. A tree may hold thousands
// of leases (fan-out 8, depth 4), so the cap per lease alone would let one
// agent hold every connection of the registry waiting. It is a constant,
// not a policy setting: policy.json lies in the workspace, where the
// agent can write it for the next start.
const MaxHeldPerTree = 16

// HeldCallsFor is how many calls may wait for a human at once across
// every tree, for a registry serving maxConnections socket connections
// (0: DefaultMaxConnections): half of them, at least one. A call waiting
// holds its connection, and an agent may begin as many sessions (trees)
// as it likes; the other half stays for calls answered at once, so a
// newcomer always finds a connection that is not waiting for anyone.
func HeldCallsFor(maxConnections int) int {
	if maxConnections <= 0 {
		maxConnections = DefaultMaxConnections
	}
	return max(1, maxConnections/2)
}

// DefaultMaxHeldLocal is how many calls that came over in-process
// connections (Handler.Local: Claude Code's HTTP hooks) may wait for a
// human at once when Config.MaxHeldLocal does not say: half of what the
// HTTP hook server answers at once (hookhttp.MaxInFlight), where a
// waiting hook holds its place as a socket call holds its connection.
const DefaultMaxHeldLocal = 32

// ErrTooManyApprovals: the lease already has as many approval requests
// waiting as the policy allows. Nothing was recorded.
var ErrTooManyApprovals = errors.New("too many pending approvals")

// askLimits are the caps a call that needs a human must fit under: per
// lease, per lease tree, and in all for the way it came (pool).
type askLimits struct {
	lease, tree int
	pool        [poolCount]int
}

// A held call's pool is the way it came: a socket connection, or an
// in-process one (an HTTP hook); each holds a resource of its own.
const (
	poolSocket = iota
	poolLocal
	poolCount
)

// askCap says which cap refused a call (capNone: none did).
type askCap int

const (
	capNone askCap = iota
	capLease
	capTree
	capPool
)

// askCounter counts the approval requests waiting under each lease, each
// lease tree (by its root) and in each pool. Its zero value is ready.
type askCounter struct {
	mu    sync.Mutex
	lease map[string]int
	tree  map[string]int
	pool  [poolCount]int
}

// take reserves a slot under lease, its tree's root and pool, or reports
// the first cap that is full; nothing is taken then.
func (c *askCounter) take(lease, root string, pool int, lim askLimits) askCap {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lease == nil {
		c.lease, c.tree = map[string]int{}, map[string]int{}
	}
	switch {
	case c.lease[lease] >= lim.lease:
		return capLease
	case c.tree[root] >= lim.tree:
		return capTree
	case c.pool[pool] >= lim.pool[pool]:
		return capPool
	}
	c.lease[lease]++
	c.tree[root]++
	c.pool[pool]++
	return capNone
}

func (c *askCounter) release(lease, root string, pool int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lease[lease]--; c.lease[lease] <= 0 {
		delete(c.lease, lease)
	}
	if c.tree[root]--; c.tree[root] <= 0 {
		delete(c.tree, root)
	}
	c.pool[pool]--
}

// askLimits are the caps in force: the policy's per lease, the
// registry's per tree, and what the socket's connection cap and the HTTP
// hook server's in-flight cap leave.
func (s *Service) askLimits() askLimits {
	lim := askLimits{lease: s.cfg.MaxPendingApprovals, tree: MaxHeldPerTree,
		pool: [poolCount]int{poolSocket: s.cfg.MaxHeldCalls, poolLocal: s.cfg.MaxHeldLocal}}
	if lim.lease <= 0 {
		lim.lease = DefaultMaxPendingApprovals
	}
	if lim.pool[poolSocket] <= 0 {
		lim.pool[poolSocket] = HeldCallsFor(0)
	}
	if lim.pool[poolLocal] <= 0 {
		lim.pool[poolLocal] = DefaultMaxHeldLocal
	}
	return lim
}

// heldPool is the pool of a call answered under ctx.
func heldPool(ctx context.Context) int {
	if local, _ := ctx.Value(localKey{}).(bool); local {
		return poolLocal
	}
	return poolSocket
}

// localKey marks the context of a Local connection.
type localKey struct{}

// treeRoot is the root of the tree lease belongs to (lease itself for a
// root).
func (s *Service) treeRoot(lease string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if chain := s.st.Chain(lease); len(chain) > 0 {
		return chain[len(chain)-1]
	}
	return lease
}

// askCapped files an approval request and waits for it, unless a cap is
// full. Past the lease's (the policy's maximum) the call is refused with
// ErrTooManyApprovals before anything is journaled, so a flood of requests
// under one lease cannot bury the one a human should see, nor grow the
// journal. Past its tree's or the registry's total it is refused at once
// with a journaled deny that says which: a flood spread over many leases
// or trees is shown, and never holds more connections waiting.
func (s *Service) askCapped(ctx context.Context, req GateRequest, res GateResult) GateAnswer {
	lim := s.askLimits()
	root := s.treeRoot(req.LeaseID)
	pool := heldPool(ctx)
	const past = "this call needs a human, but it is refused at once, not held: "
	switch s.asks.take(req.LeaseID, root, pool, lim) {
	case capLease:
		err := fmt.Errorf("%w: lease %s already has %d approval request(s) waiting for a human (the policy's max_pending_approvals); this call is refused until some are decided",
			ErrTooManyApprovals, record.ShortID(req.LeaseID), lim.lease)
		return GateAnswer{Verdict: VerdictDeny, Reason: err.Error(), refused: err}
	case capTree:
		return s.refuseCall(req, VerdictDeny, fmt.Sprintf(past+"there are already %d calls waiting for a human in its lease tree (root lease %s and every lease below it), the registry's cap per tree; more are held once a human decides some",
			lim.tree, record.ShortID(root)))
	case capPool:
		why := fmt.Sprintf("the registry already has %d calls waiting for a human, half its connections (the rest stay free for calls answered at once)", lim.pool[pool])
		if pool == poolLocal {
			why = fmt.Sprintf("the registry already has %d calls from HTTP hooks waiting for a human, half of the HTTP hooks it answers at once (the rest stay free for hooks answered at once)", lim.pool[pool])
		}
		return s.refuseCall(req, VerdictDeny, past+why+"; more are held once a human decides some")
	}
	defer s.asks.release(req.LeaseID, root, pool)
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
