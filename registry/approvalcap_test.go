package registry

import (
	"testing"
)

// The three caps on calls waiting for a human, in the order they are
// checked: a full cap refuses without taking anything, and a release
// gives back the slot under the lease, its tree and the total alike.
func TestAskCounterCaps(t *testing.T) {
	lim := askLimits{lease: 2, tree: 3, total: 4}
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
			{false, "d", "u", capNone}, {false, "e", "v", capTotal}}},
		{"the lease is told before its tree", []step{{false, "a", "r", capNone}, {false, "a", "r", capNone}, {false, "b", "r", capNone},
			{false, "a", "r", capLease}, {false, "b", "r", capTree}}},
		{"a release frees every count", []step{{false, "a", "r", capNone}, {false, "b", "r", capNone}, {false, "c", "r", capNone},
			{false, "d", "r", capTree}, {false, "d", "s", capNone}, {false, "e", "t", capTotal}, {true, "b", "r", capNone},
			{false, "b", "r", capNone}, {true, "c", "r", capNone}, {false, "e", "t", capNone}, {false, "f", "r", capTotal}}},
		{"a refusal takes nothing", []step{{false, "a", "r", capNone}, {false, "a", "r", capNone}, {false, "a", "r", capLease},
			{false, "a", "r", capLease}, {false, "b", "r", capNone}, {false, "c", "s", capNone}, {false, "d", "s", capTotal}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c askCounter
			for i, s := range tc.steps {
				if s.release {
					c.release(s.lease, s.root)
					continue
				}
				if got := c.take(s.lease, s.root, lim); got != s.want {
					t.Fatalf("step %d (%s under %s): cap %d, want %d", i, s.lease, s.root, got, s.want)
				}
			}
		})
	}
	var c askCounter
	c.take("a", "r", lim)
	c.release("a", "r")
	if len(c.lease) != 0 || len(c.tree) != 0 || c.total != 0 {
		t.Fatalf("released: %v %v %d", c.lease, c.tree, c.total)
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
