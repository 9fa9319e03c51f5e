package registry

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/approvals"
	"github.com/leasedeck/leasedeck/journal"
	"github.com/leasedeck/leasedeck/registry/record"
)

// Closing a lease is decided and written by several paths at once: the
// agent finishing, an operator revoking, a cascade from an ancestor, the
// sweeper expiring it. Exactly one close may reach the journal; a second
// one is a line that does not fold, and after a restart the registry
// would serve its journal read-only and refuse every call.
func TestConcurrentClosesWriteOneClose(t *testing.T) {
	f := newFixture(t)
	for round := range 30 {
		parent := f.issue(agentManifest("p", 10, nil), "")
		child := f.issue(agentManifest("c", 5, nil), parent)
		if round%3 == 2 {
			// Both due, so the sweeper races the closers too.
			f.clk.Add(2 * time.Hour)
			f.svc.kickSweeper()
		}
		var wg sync.WaitGroup
		var closed atomic.Int32
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var err error
				switch i % 4 {
				case 0:
					err = f.svc.Finish(child, Completed, "")
				case 1:
					_, err = f.svc.Revoke(child, "issuer", "race")
				case 2:
					_, err = f.svc.Revoke(parent, "issuer", "cascade race")
				default:
					err = f.svc.Finish(parent, Stopped, "")
				}
				if err == nil {
					closed.Add(1)
				} else if !errors.Is(err, ErrClosed) {
					t.Errorf("round %d: %v", round, err)
				}
			}()
		}
		wg.Wait()
		if h := f.svc.Health(); h != nil {
			t.Fatalf("round %d: the registry is unhealthy: %v", round, h)
		}
	}
	f.restart()
	if h := f.svc.Health(); h != nil {
		t.Fatalf("after a restart: %v", h)
	}
}

// A journal that already holds two closes of one lease (written before
// closers claimed a lease) folds: the first close decides, and the
// registry serves it, not read-only.
func TestSecondCloseInTheJournalFolds(t *testing.T) {
	st := NewState()
	id := "0b9a7f0e-0000-4000-8000-000000000001"
	st.Leases[id] = &LeaseState{ID: id, Status: Granted}
	first := parsedLease(t, record.NewClosed(record.Expired, time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC), id, "", ""))
	second := parsedLease(t, record.NewRevoked(time.Date(2026, 12, 1, 12, 0, 1, 0, time.UTC), id, "", "issuer", "late"))
	for _, l := range []*record.Line{first, second} {
		if err := FoldLine(st, approvals.New(), l); err != nil {
			t.Fatal(err)
		}
	}
	if l := st.Leases[id]; l.Status != Expired || l.RevokedBy != "" {
		t.Fatalf("the second close changed the lease: %+v", l)
	}
}

func parsedLease(t *testing.T, r record.Lease) *record.Line {
	t.Helper()
	l := record.Parse(journal.Leases, r.Value())
	return &l
}
