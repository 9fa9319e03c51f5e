package tui

import (
	"sort"
	"strings"
	"time"

	"github.com/leasedeck/leasedeck/registry"
)

// The lease tree is flattened into rows once per change (a batch, an
// expand, a filter, a sort), never per frame, and View renders only the
// rows in the window (UI rule 5): a frame costs the same at 10 leases and
// at 10,000.

type sortMode int

const (
	sortIssued sortMode = iota
	sortStatus
	sortAgent
	sortTimeLeft
	sortSpend
	sortModes
)

var sortNames = [...]string{"issue order", "status", "agent", "time left", "steps spent"}

func (s sortMode) String() string { return sortNames[s] }

type row struct {
	id      string
	depth   int
	hasKids bool
	context bool // shown only because a descendant matches the filter
}

type tree struct {
	rows      []row
	index     map[string]int
	cursor    int
	offset    int
	height    int
	collapsed map[string]bool
	filter    filterQuery
	sort      sortMode
}

func newTree() tree {
	return tree{index: map[string]int{}, collapsed: map[string]bool{}}
}

func (t *tree) selected() string {
	if t.cursor < 0 || t.cursor >= len(t.rows) {
		return ""
	}
	return t.rows[t.cursor].id
}

// rebuild flattens the tree, keeping the cursor on the same lease.
func (t *tree) rebuild(d *deck, now time.Time) {
	sel := t.selected()
	var show map[string]bool
	var matched map[string]bool
	if !t.filter.empty() {
		show, matched = map[string]bool{}, map[string]bool{}
		for _, id := range d.St.Order {
			l := d.St.Leases[id]
			if !t.filter.match(d, l, now) {
				continue
			}
			matched[id] = true
			show[id] = true
			for _, a := range d.St.Chain(id) {
				show[a] = true
			}
		}
	}
	t.rows = t.rows[:0]
	clear(t.index)
	type frame struct {
		id    string
		depth int
	}
	var stack []frame
	push := func(ids []string, depth int) {
		ids = t.sorted(d, ids, now)
		for i := len(ids) - 1; i >= 0; i-- {
			if show == nil || show[ids[i]] {
				stack = append(stack, frame{ids[i], depth})
			}
		}
	}
	push(d.Roots(), 0)
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		kids := d.Children(f.id)
		r := row{id: f.id, depth: f.depth, hasKids: len(kids) > 0}
		if matched != nil && !matched[f.id] {
			r.context = true
		}
		t.index[f.id] = len(t.rows)
		t.rows = append(t.rows, r)
		if len(kids) > 0 && !t.collapsed[f.id] {
			push(kids, f.depth+1)
		}
	}
	if i, ok := t.index[sel]; ok {
		t.cursor = i
	}
	t.clamp()
}

func (t *tree) sorted(d *deck, ids []string, now time.Time) []string {
	if t.sort == sortIssued || len(ids) < 2 {
		return ids
	}
	out := append([]string(nil), ids...)
	st := d.St
	key := func(id string) (float64, string) {
		l := st.Leases[id]
		switch t.sort {
		case sortStatus:
			return float64(statusRank(d, l, now)), ""
		case sortAgent:
			return 0, strings.ToLower(l.Agent().Name)
		case sortTimeLeft:
			if l.Status != registry.Granted {
				return 1e18, ""
			}
			return float64(l.ExpiresAt.Sub(now)), ""
		case sortSpend:
			return -l.Spent.Steps, ""
		}
		return 0, ""
	}
	sort.SliceStable(out, func(i, j int) bool {
		ni, si := key(out[i])
		nj, sj := key(out[j])
		if ni != nj {
			return ni < nj
		}
		return si < sj
	})
	return out
}

func statusRank(d *deck, l *registry.LeaseState, now time.Time) int {
	switch displayStatus(d.St, l, now) {
	case "live":
		if d.PendingFor(l.ID) > 0 {
			return 0
		}
		return 1
	case "granted":
		return 2
	case "refused":
		return 3
	}
	return 4
}

func (t *tree) clamp() {
	if t.cursor >= len(t.rows) {
		t.cursor = len(t.rows) - 1
	}
	if t.cursor < 0 {
		t.cursor = 0
	}
	t.scrollToCursor()
}

func (t *tree) scrollToCursor() {
	h := max(t.height, 1)
	if t.cursor < t.offset {
		t.offset = t.cursor
	}
	if t.cursor >= t.offset+h {
		t.offset = t.cursor - h + 1
	}
	if maxOff := len(t.rows) - h; t.offset > maxOff {
		t.offset = max(maxOff, 0)
	}
	if t.offset < 0 {
		t.offset = 0
	}
}

func (t *tree) move(n int) {
	t.cursor += n
	t.clamp()
}

// scroll moves the window (mouse wheel) and drags the cursor along only
// when it would leave the window.
func (t *tree) scroll(n int) {
	h := max(t.height, 1)
	t.offset += n
	if maxOff := len(t.rows) - h; t.offset > maxOff {
		t.offset = max(maxOff, 0)
	}
	if t.offset < 0 {
		t.offset = 0
	}
	if t.cursor < t.offset {
		t.cursor = t.offset
	}
	if t.cursor >= t.offset+h {
		t.cursor = t.offset + h - 1
	}
	t.clamp()
}

// visible is the window of rows to render.
func (t *tree) visible() []row {
	end := min(t.offset+max(t.height, 0), len(t.rows))
	if t.offset >= end {
		return nil
	}
	return t.rows[t.offset:end]
}

// displayStatus is what a person should read about a lease now: "live"
// (granted, unexpired, whole chain live), "granted" (its own record is
// open but an ancestor closed and the cascade line has not arrived),
// "expired" as soon as expires_at passes, or the closing event.
func displayStatus(st *registry.State, l *registry.LeaseState, now time.Time) string {
	switch {
	case l.Status == registry.Granted && !now.Before(l.ExpiresAt):
		return "expired"
	case l.Status == registry.Granted:
		if ok, _ := st.Live(l.ID, now); ok {
			return "live"
		}
		return "granted"
	}
	return string(l.Status)
}
