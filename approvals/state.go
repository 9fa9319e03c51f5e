package approvals

import (
	"fmt"
	"slices"
	"sort"
)

// State is everything a Book holds that a journal replay produces: every
// request in the order it was added, its decision once made, and the
// grants remembered for each lease. What only a running registry has — a
// reservation being journaled, the callers blocked in Wait — is not in
// it: a replay has none either. A registry keeps it in its snapshots, so
// that a start from a snapshot rebuilds the same Book as a full replay.
type State struct {
	Seq     uint64              `json:"seq"` // the insertion counter
	Entries []EntryState        `json:"entries"`
	Grants  map[string][]string `json:"grants"` // lease id → approval names, sorted
}

// EntryState is one request and its decision (nil while pending).
type EntryState struct {
	Seq      uint64    `json:"seq"`
	Request  Request   `json:"request"`
	Decision *Decision `json:"decision,omitempty"`
}

// Export returns the Book's state, entries in insertion order.
func (b *Book) Export() State {
	b.mu.Lock()
	defer b.mu.Unlock()
	st := State{Seq: b.seq, Entries: make([]EntryState, 0, len(b.entries)), Grants: make(map[string][]string, len(b.grants))}
	for _, e := range b.entries {
		es := EntryState{Seq: e.seq, Request: e.copyReq()}
		if e.dec != nil {
			d := *e.dec
			es.Decision = &d
		}
		st.Entries = append(st.Entries, es)
	}
	sort.Slice(st.Entries, func(i, j int) bool { return st.Entries[i].Seq < st.Entries[j].Seq })
	for lease, names := range b.grants {
		list := make([]string, 0, len(names))
		for n := range names {
			list = append(list, n)
		}
		sort.Strings(list)
		st.Grants[lease] = list
	}
	return st
}

// FromState rebuilds a Book from Export's state. It refuses a state no
// Book could have produced (an entry without an id or a lease, an id
// twice, a decision that does not validate or names another request), so
// that a damaged snapshot cannot make a Book that a replay never would.
func FromState(st State) (*Book, error) {
	b := New()
	b.seq = st.Seq
	for _, es := range st.Entries {
		r := es.Request
		switch {
		case r.ID == "" || r.LeaseID == "":
			return nil, fmt.Errorf("%w: an entry without an id or a lease id", ErrInvalid)
		case es.Seq == 0 || es.Seq > st.Seq:
			return nil, fmt.Errorf("%w: entry %s has seq %d, past the book's %d", ErrInvalid, r.ID, es.Seq, st.Seq)
		}
		if _, dup := b.entries[r.ID]; dup {
			return nil, fmt.Errorf("approval %s: %w", r.ID, ErrDuplicate)
		}
		r.Names = slices.Clone(r.Names)
		e := &entry{req: r, seq: es.Seq, done: make(chan struct{})}
		if es.Decision != nil {
			d := *es.Decision
			if err := d.Validate(); err != nil {
				return nil, err
			}
			if d.RequestID != r.ID {
				return nil, fmt.Errorf("%w: the decision of %s names %s", ErrInvalid, r.ID, d.RequestID)
			}
			e.dec = &d
			close(e.done)
		} else {
			b.pending[r.ID] = e
		}
		b.entries[r.ID] = e
	}
	for lease, names := range st.Grants {
		g := make(map[string]struct{}, len(names))
		for _, n := range names {
			g[n] = struct{}{}
		}
		b.grants[lease] = g
	}
	return b, nil
}
