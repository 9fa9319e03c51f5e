package registry

import (
	"sort"
	"time"

	"github.com/leasedeck/leasedeck/registry/record"
)

// sweeper expires leases and approval requests exactly when they fall
// due, sleeping in between (no polling while idle).
func (s *Service) sweeper() {
	defer close(s.done)
	for {
		next := s.nextDue()
		var timer <-chan time.Time
		var t *time.Timer
		if !next.IsZero() {
			d := next.Sub(s.Now())
			if d < 0 {
				d = 0
			}
			t = time.NewTimer(d + time.Millisecond)
			timer = t.C
		}
		select {
		case <-s.stop:
			if t != nil {
				t.Stop()
			}
			return
		case <-s.kickCh:
		case <-timer:
		}
		if t != nil {
			t.Stop()
		}
		if s.Health() == nil {
			s.sweep()
		}
	}
}

// wakeBy makes sure the sweeper wakes no later than t. Only a deadline
// earlier than the one it sleeps towards needs a kick (and a rescan), so
// issuing thousands of leases does not rescan thousands of times.
func (s *Service) wakeBy(t time.Time) {
	s.mu.Lock()
	earlier := s.sweepAt.IsZero() || t.Before(s.sweepAt)
	if earlier {
		s.sweepAt = t
	}
	s.mu.Unlock()
	if earlier {
		s.kickSweeper()
	}
}

func (s *Service) kickSweeper() {
	select {
	case s.kickCh <- struct{}{}:
	default:
	}
}

func (s *Service) nextDue() time.Time {
	var next time.Time
	s.mu.Lock()
	for _, l := range s.st.Leases {
		if l.Status == Granted && (next.IsZero() || l.ExpiresAt.Before(next)) {
			next = l.ExpiresAt
		}
	}
	s.mu.Unlock()
	if d, ok := s.book.NextDeadline(); ok && (next.IsZero() || d.Before(next)) {
		next = d
	}
	s.mu.Lock()
	s.sweepAt = next
	s.mu.Unlock()
	return next
}

// sweep writes `expired` for leases past expires_at and expires due
// approval requests whose waiter did not do it itself.
func (s *Service) sweep() {
	now := s.Now()
	var recs []record.Lease
	s.mu.Lock()
	ids := make([]string, 0)
	for id, l := range s.st.Leases {
		if s.closable(id) && !now.Before(l.ExpiresAt) {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		l := s.st.Leases[id]
		r := record.NewClosed(record.Expired, l.ExpiresAt, id, l.ParentID, "")
		recs = append(recs, r)
	}
	s.claimClose(ids)
	s.mu.Unlock()
	if len(recs) > 0 {
		s.appendLeases(recs...)
	}
	s.releaseClose(ids)
	for _, r := range s.book.Due(now) {
		s.expireApproval(r.ID, "expiry")
	}
}
