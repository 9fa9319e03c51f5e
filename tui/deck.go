package tui

import (
	"time"

	"github.com/leasedeck/leasedeck/approvals"
	"github.com/leasedeck/leasedeck/journal"
	"github.com/leasedeck/leasedeck/registry"
	"github.com/leasedeck/leasedeck/registry/record"
)

// entry is one journal line as the feeder hands it over: already read,
// parsed and chain-checked off the UI goroutine.
type entry struct {
	Kind  journal.Kind
	Seq   uint64
	Value map[string]any
}

// record is the entry's typed record.
func (e *entry) record() record.Line { return record.Parse(e.Kind, e.Value) }

// deck is what the cockpit knows, folded from the journal with
// registry.Fold (the one definition of what a line means) into its own
// State and approvals Book, plus what only a screen needs: a children
// index that includes refusals, per-lease versions for the row cache,
// and the recent lines for the feed.
// It does no I/O; the root model owns it and changes it only in Update.
type deck struct {
	St   *registry.State
	Book *approvals.Book

	kids   map[string][]string // parent → children in decision order, refusals included
	inTree map[string]bool
	roots  []string // leases without a (known) parent, in decision order

	ver  map[string]uint64 // bumped whenever a line changes what a lease's row shows
	tick uint64

	pending        []approvals.Request // oldest first
	pendingByLease map[string]int

	feed  []entry // ring of the newest lines, both files
	feedN int     // lines ever pushed (the ring's write position)

	Lines    int // lines folded since the last reset
	FoldErrs int
	LastErr  string
}

const feedCap = 256

// newDeck returns an empty deck.
func newDeck() *deck {
	return &deck{
		St: registry.NewState(), Book: approvals.New(),
		kids: map[string][]string{}, inTree: map[string]bool{}, ver: map[string]uint64{}, pendingByLease: map[string]int{},
		feed: make([]entry, feedCap),
	}
}

// Apply folds entries in order. It reports whether the set of leases or
// their tree changed (the flattened tree must be rebuilt) and whether the
// pending approvals changed.
func (d *deck) Apply(entries []entry) (treeChanged, approvalsChanged bool) {
	for i := range entries {
		e := &entries[i]
		d.Lines++
		d.feed[d.feedN%feedCap] = *e
		d.feedN++
		l := e.record()
		if err := registry.FoldLine(d.St, d.Book, &l); err != nil {
			// A line that does not fold is shown (banner) and otherwise
			// skipped, exactly as the registry's own replay treats it.
			d.FoldErrs++
			d.LastErr = err.Error()
		}
		id := l.LeaseID()
		if e.Kind == journal.Leases {
			treeChanged = true
			ev := l.Lease.Event
			if (ev == record.Granted || ev == record.Refused) && d.St.Leases[id] != nil && !d.inTree[id] {
				d.index(id)
			}
		} else {
			switch l.Audit.EventType {
			case registry.EventApprovalAsked, registry.EventApprovalDecided:
				approvalsChanged = true
			case registry.EventRunConfined, registry.EventRunEnded:
				// Every lease below a run is held as the run is.
				for _, c := range d.St.Subtree(id) {
					d.bump(c)
				}
			}
		}
		if id != "" {
			d.bump(id)
		}
	}
	if approvalsChanged {
		d.refreshPending()
	}
	return treeChanged, approvalsChanged
}

func (d *deck) index(id string) {
	d.inTree[id] = true
	l := d.St.Leases[id]
	if l.ParentID != "" && d.St.Leases[l.ParentID] != nil {
		d.kids[l.ParentID] = append(d.kids[l.ParentID], id)
		return
	}
	d.roots = append(d.roots, id)
}

// bump marks a lease and its ancestors changed: spend is charged up the
// chain and a parent shows its children's count, so their rows change too.
func (d *deck) bump(id string) {
	d.tick++
	d.ver[id] = d.tick
	for _, a := range d.St.Chain(id) {
		d.ver[a] = d.tick
	}
}

func (d *deck) refreshPending() {
	old := d.pendingByLease
	d.pending = d.Book.Pending()
	d.pendingByLease = make(map[string]int, len(d.pending))
	for _, r := range d.pending {
		d.pendingByLease[r.LeaseID]++
	}
	for id, n := range old {
		if d.pendingByLease[id] != n {
			d.bump(id)
		}
	}
	for id, n := range d.pendingByLease {
		if old[id] != n {
			d.bump(id)
		}
	}
}

// Version is the lease's row version (0 if never changed).
func (d *deck) Version(id string) uint64 { return d.ver[id] }

// Children are id's children in decision order, refusals included.
func (d *deck) Children(id string) []string { return d.kids[id] }

// Roots are the leases without a known parent, in decision order.
func (d *deck) Roots() []string { return d.roots }

// Pending are the undecided approval requests, oldest first.
func (d *deck) Pending() []approvals.Request { return d.pending }

// PendingFor counts a lease's undecided requests.
func (d *deck) PendingFor(id string) int { return d.pendingByLease[id] }

// Feed returns up to n of the newest lines, oldest first.
func (d *deck) Feed(n int) []entry {
	if n > d.feedN {
		n = d.feedN
	}
	if n > feedCap {
		n = feedCap
	}
	out := make([]entry, 0, n)
	for i := d.feedN - n; i < d.feedN; i++ {
		out = append(out, d.feed[i%feedCap])
	}
	return out
}

// LiveSubtree lists the leases a revocation of id would close: id and its
// descendants that are still open, as the registry's cascade does.
func (d *deck) LiveSubtree(id string, now time.Time) []string {
	var out []string
	for _, cur := range d.St.Subtree(id) {
		if l := d.St.Leases[cur]; l != nil && l.Open(now) {
			out = append(out, cur)
		}
	}
	return out
}
