package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/leasedeck/leasedeck/registry"
	"github.com/leasedeck/leasedeck/registry/record"
)

// The clock ticks once a second only while something on screen counts
// seconds (an approval's countdown, a lease with under an hour left, the
// Budget tab); otherwise once a minute, on the minute. An idle cockpit
// thus wakes up once a minute, not sixty or even one time a second.
func (m *model) needSeconds() bool {
	if m.overlay == approvalOverlay || m.overlay == queueOverlay || m.tab == tabBudget || m.tab == tabActivity {
		return true
	}
	for _, r := range m.tree.visible() {
		if l := m.deck.St.Leases[r.id]; l != nil && l.Status == registry.Granted {
			if left := l.ExpiresAt.Sub(m.now); left > 0 && left < time.Hour {
				return true
			}
		}
	}
	return false
}

// scheduleTick starts a new clock chain; an older one dies at its next
// tick (its generation no longer matches).
func (m *model) scheduleTick() tea.Cmd {
	m.tickGen++
	gen := m.tickGen
	m.tickFast = m.needSeconds()
	d := time.Minute
	if m.tickFast {
		d = time.Second
	}
	now := m.opts.now
	return tea.Every(d, func(time.Time) tea.Msg { return tickMsg{now(), gen} })
}

// setNow moves the clock. The header's figures and a time-sorted tree
// are refreshed only when a lease may have expired since.
func (m *model) setNow(t time.Time) {
	m.now = t
	if !m.nextExpiry.IsZero() && !t.Before(m.nextExpiry) {
		m.recount()
		if m.tree.sort == sortTimeLeft || m.tree.sort == sortStatus || !m.tree.filter.empty() {
			m.tree.rebuild(m.deck, m.now)
		}
	}
}

// latest is the newest time in a batch: the clock until the first tick.
func latest(es []entry) time.Time {
	var t time.Time
	for i := range es {
		if at, err := registry.ParseTime(record.When(es[i].Kind, es[i].Value)); err == nil && at.After(t) {
			t = at
		}
	}
	return t
}
