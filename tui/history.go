package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/leasedeck/leasedeck/registry"
)

// A cockpit that starts from a snapshot shows the tree at once: every
// lease's status, spend and children are in the snapshot. A closed lease
// comes out of it compacted, without its signed lease, declaration and
// recent decisions; those are read back from the journal (each line
// checked) the first time the lease is selected, off the UI goroutine.

// deckFrom is a deck whose fold starts from a snapshot.
func deckFrom(s *registry.SnapshotStart) *deck {
	d := newDeck()
	d.St, d.Book = s.State, s.Book
	for _, id := range d.St.Order {
		if !d.inTree[id] {
			d.index(id)
		}
	}
	d.refreshPending()
	return d
}

// historyMsg is a compacted lease's history, read back.
type historyMsg struct {
	id  string
	h   registry.History
	err error
}

// ensureHistory asks, once, for the history of a compacted lease.
func (m *model) ensureHistory(id string) tea.Cmd {
	l := m.deck.St.Leases[id]
	if l == nil || m.opts.Key == nil || m.history == nil || m.history[id] {
		return nil
	}
	ref, compacted := registry.HistoryOf(l)
	if !compacted {
		return nil
	}
	m.history[id] = true
	dir, key := m.opts.JournalDir, *m.opts.Key
	return func() tea.Msg {
		h, err := ref.Read(dir, key)
		return historyMsg{id: id, h: h, err: err}
	}
}

// onHistory puts a history into the lease it was read for. One that
// could not be read (the files changed) leaves the lease as it was; the
// next load (a reset) tries again.
func (m *model) onHistory(msg historyMsg) {
	l := m.deck.St.Leases[msg.id]
	if l == nil || msg.err != nil || !l.Compacted {
		return
	}
	l.Expand(msg.h)
	delete(m.docs, msg.id)
	m.deck.bump(msg.id)
	m.detail = detailCache{}
	if m.tree.selected() == msg.id {
		m.ensureDoc(msg.id)
	}
}
