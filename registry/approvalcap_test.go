package registry

import (
	"testing"
)

// The three caps on calls waiting for a human, in the order they are
// checked: a full cap refuses without taking anything, and a release
// gives back the slot under the lease, its tree and the total alike.
func TestAskCounterCaps(t *testing.T) {
	lim := askLimits{lease: 2, tree: 3, pool: [poolCount]int{poolSocket: 4, poolLocal: 1}}
	type step struct {
		release     bool
		lease, root string
		want        askCap
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"lease cap", []step{{false, "a", "r", capNone}, {false, "a", "r", capNone}, {false, "a", "r", capLease}}},
		{"tree cap over many leases", []step{{false, "a", "r", capNone}, {false, "b", "r", capNone}, {false, "c", "r", capNone},
			{false, "d", "r", capTree}, {false, "e", "s", capNone}}},
		{"total over many trees", []step{{false, "a", "r", capNone}, {false, "b", "s", capNone}, {false, "c", "t", capNone},
			{false, "d", "u", capNone}, {false, "e", "v", capPool}}},
		{"the lease is told before its tree", []step{{false, "a", "r", capNone}, {false, "a", "r", capNone}, {false, "b", "r", capNone},
			{false, "a", "r", capLease}, {false, "b", "r", capTree}}},
		{"a release frees every count", []step{{false, "a", "r", capNone}, {false, "b", "r", capNone}, {false, "c", "r", capNone},
			{false, "d", "r", capTree}, {false, "d", "s", capNone}, {false, "e", "t", capPool}, {true, "b", "r", capNone},
			{false, "b", "r", capNone}, {true, "c", "r", capNone}, {false, "e", "t", capNone}, {false, "f", "r", capPool}}},
		{"a refusal takes nothing", []step{{false, "a", "r", capNone}, {false, "a", "r", capNone}, {false, "a", "r", capLease},
			{false, "a", "r", capLease}, {false, "b", "r", capNone}, {false, "c", "s", capNone}, {false, "d", "s", capPool}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c askCounter
			for i, s := range tc.steps {
				if s.release {
					c.release(s.lease, s.root, poolSocket)
					continue
				}
				if got := c.take(s.lease, s.root, poolSocket, lim); got != s.want {
					t.Fatalf("step %d (%s under %s): cap %d, want %d", i, s.lease, s.root, got, s.want)
				}
			}
		})
	}
	// Each pool has its own cap: the local one full leaves the socket's.
	var c askCounter
	if c.take("a", "r", poolLocal, lim) != capNone || c.take("b", "s", poolLocal, lim) != capPool || c.take("b", "s", poolSocket, lim) != capNone {
		t.Fatalf("pools: %v %v %v", c.lease, c.tree, c.pool)
	}
	c.release("a", "r", poolLocal)
	c.release("b", "s", poolSocket)
	if len(c.lease) != 0 || len(c.tree) != 0 || c.pool != [poolCount]int{} {
		t.Fatalf("released: %v %v %v", c.lease, c.tree, c.pool)
	}
}

// Half the connection cap may wait for a human, at least one.
func TestHeldCallsFor(t *testing.T) {
	for conns, want := range map[int]int{0: DefaultMaxConnections / 2, 256: 128, 3: 1, 1: 1, 65536: 32768} {
		if got := HeldCallsFor(conns); got != want {
			t.Errorf("HeldCallsFor(%d) = %d, want %d", conns, got, want)
		}
	}
}
