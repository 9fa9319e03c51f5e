package tui

import (
	"github.com/leasedeck/leasedeck/registry/record"
	"github.com/leasedeck/leasedeck/termtext"

	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/leasedeck/leasedeck/bridge"
	"github.com/leasedeck/leasedeck/registry"
)

// layout is computed once per resize (or when a banner comes or goes),
// never per frame (UI rule 5).
type layout struct {
	tooSmall     bool
	side         bool // tree and detail side by side
	banners      []string
	treeY, treeW int // first row of the tree's rows, and its width
	treeH        int // rows of leases
	detX, detY   int
	detW, detH   int // detail content lines (below the tab bar)
	feedY, feedH int
}

// Minimum usable size; below it the cockpit says so instead of drawing.
const (
	minW = 60
	minH = 16
)

func (m *model) relayout() {
	w, h := m.w, m.h
	l := layout{banners: m.banners()}
	if w < minW || h < minH {
		l.tooSmall = true
		m.lay = l
		return
	}
	top := 1 + len(l.banners) // header, banners
	feedH := min(max(h/6, 3), 10)
	l.side = w >= 120
	if !l.side {
		feedH = min(max(h/8, 2), 6)
	}
	mainH := h - top - 1 - feedH - 1 // feed title, status bar
	if l.side {
		l.treeW = w * 58 / 100
		l.treeY = top + 2
		l.treeH = mainH - 2
		l.detX, l.detW = l.treeW+1, w-l.treeW-1
		l.detY = top + 1
		l.detH = mainH - 1
	} else {
		// The tree takes what its rows need, up to 55%; the detail pane
		// gets the rest.
		want := len(m.tree.rows) + 3
		if len(m.tree.rows) == 0 {
			want = 9 // room for what to do next
		}
		treePart := min(max(want, 6), max(mainH*55/100, 6))
		l.treeW = w
		l.treeY = top + 2
		l.treeH = treePart - 2
		l.detW = w
		l.detY = top + treePart + 1
		l.detH = mainH - treePart - 1
	}
	l.feedY = top + mainH + 1
	l.feedH = feedH
	m.lay = l
	m.tree.height = l.treeH
	m.tree.clamp()
}

// View draws the screen. It reads only the model: no I/O, no clock.
func (m *model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = m.title()
	return v
}

// render is View's content: exactly m.h lines of m.w cells.
func (m *model) render() string {
	if m.w == 0 || m.h == 0 {
		return ""
	}
	if m.lay.tooSmall {
		return m.tooSmall()
	}
	t := m.theme
	lines := make([]string, 0, m.h)
	lines = append(lines, m.header())
	for _, b := range m.lay.banners {
		lines = append(lines, banner(t, b, m.w))
	}
	treeLines := m.treePane()
	detLines := m.detailPane()
	if m.lay.side {
		sep := t.Muted.Render("│")
		for i := range treeLines {
			d := ""
			if i < len(detLines) {
				d = detLines[i]
			}
			lines = append(lines, treeLines[i]+sep+fit(d, m.lay.detW))
		}
	} else {
		lines = append(lines, treeLines...)
		lines = append(lines, detLines...)
	}
	lines = append(lines, m.feedPane()...)
	lines = append(lines, m.statusLine())
	for len(lines) < m.h {
		lines = append(lines, strings.Repeat(" ", m.w))
	}
	lines = lines[:m.h]
	if d, ok := dialogs[m.overlay]; ok {
		if box := d.box(m); box != "" {
			lines = overlay(lines, box, m.w)
		}
	}
	return strings.Join(lines, "\n")
}

func (m *model) tooSmall() string {
	msg := fmt.Sprintf("leasedeck: terminal too small (%d×%d); needs at least %d×%d. q quits.", m.w, m.h, minW, minH)
	lines := wrapWords("", msg, m.w)
	for i := range lines {
		lines[i] = fit(lines[i], m.w)
	}
	for len(lines) < m.h {
		lines = append(lines, strings.Repeat(" ", m.w))
	}
	return strings.Join(lines[:m.h], "\n")
}

// recount refreshes the header's figures; it walks every lease, so it
// runs in Update (a batch, a tick), never per frame.
func (m *model) recount() {
	c := counts{total: len(m.deck.St.Order)}
	var next time.Time
	for _, id := range m.deck.St.Order {
		l := m.deck.St.Leases[id]
		switch {
		case l.Status == registry.Refused:
			c.refused++
		case l.Open(m.now):
			c.live++
			if next.IsZero() || l.ExpiresAt.Before(next) {
				next = l.ExpiresAt
			}
		}
	}
	m.counts, m.nextExpiry = c, next
}

type counts struct{ live, total, refused int }

func (m *model) header() string {
	t := m.theme
	left := t.Title.Render(" leasedeck ") + t.Muted.Render(termtext.Clean(m.opts.Workspace))
	if m.opts.Note != "" {
		left += "  " + t.Warn.Render(termtext.Clean(m.opts.Note))
	}
	c := m.counts
	right := fmt.Sprintf("%d live · %d leases · %d refused ", c.live, c.total, c.refused)
	if !m.loaded {
		right = "reading the journal… "
	}
	room := m.w - len([]rune(right)) - 2
	return fit(left, max(room, 0)) + "  " + t.Muted.Render(right)
}

func (m *model) treePane() []string {
	t := m.theme
	w := m.lay.treeW
	out := make([]string, 0, m.lay.treeH+2)
	title := "Leases"
	if !m.tree.filter.empty() {
		title += fmt.Sprintf(" — filter %q: %d shown", m.tree.filter.raw, len(m.tree.rows))
	}
	left := t.Title.Render(title) + t.Muted.Render("  sort: "+m.tree.sort.String())
	hint := t.Muted.Render("? keys & legend · a approvals · / filter ")
	if room := w - ansiWidth(left) - ansiWidth(hint); room >= 2 {
		left += strings.Repeat(" ", room) + hint
	}
	out = append(out, fit(left, w))
	out = append(out, renderLeaseHeader(t, w))
	vis := m.tree.visible()
	for i, r := range vis {
		out = append(out, m.row(r, m.tree.offset+i == m.tree.cursor, w))
	}
	if len(m.tree.rows) == 0 {
		switch {
		case !m.loaded:
			out = append(out, fit(t.Muted.Render("  reading the journal…"), w))
		case !m.tree.filter.empty():
			out = append(out, fit(t.Muted.Render("  nothing matches the filter (esc in / clears it)"), w))
		default:
			for _, l := range emptyHelp(m.opts.Workspace) {
				out = append(out, fit("  "+l, w))
			}
		}
	}
	for len(out) < m.lay.treeH+2 {
		out = append(out, strings.Repeat(" ", w))
	}
	return out[:m.lay.treeH+2]
}

// emptyHelp is what an empty cockpit says to do next: the exact commands
// that connect a client and begin a session.
func emptyHelp(workspace string) []string {
	clients := bridge.Clients()
	ws := workspace
	if ws == "" {
		ws = "."
	}
	return []string{
		"No leases yet: they appear here as agents begin sessions in this workspace.",
		"1. Connect a client:  leasedeck install " + clients[0],
		"   (or: " + strings.Join(clients[1:], ", ") + ")",
		"2. Start it here:     cd " + termtext.Clean(ws) + " && claude   (or codex, gemini)",
		"   Its first prompt begins a session, and its lease appears here.",
		"Or watch a simulated fleet first:  leasedeck demo",
	}
}

func (m *model) detailPane() []string {
	t := m.theme
	w, h := m.lay.detW, m.lay.detH
	out := make([]string, 0, h+1)
	var tabs []string
	for i, n := range tabNames {
		label := fmt.Sprintf("%d %s", i+1, n)
		if tab(i) == m.tab {
			tabs = append(tabs, t.TabOn.Render(label))
		} else {
			tabs = append(tabs, t.TabOff.Render(label))
		}
	}
	out = append(out, fit(" "+strings.Join(tabs, "  "), w))
	body := m.detailLines(w - 1)
	off := min(m.detailOff, max(len(body)-h, 0))
	for i := off; i < len(body) && len(out) < h+1; i++ {
		out = append(out, " "+body[i])
	}
	for len(out) < h+1 {
		out = append(out, strings.Repeat(" ", w))
	}
	if len(body) > h && h > 0 {
		more := fmt.Sprintf(" %d–%d of %d ", off+1, min(off+h, len(body)), len(body))
		last := out[h]
		out[h] = fit(last, max(w-ansi.StringWidth(more), 0)) + t.Muted.Render(more)
	}
	return out
}

// detailLines renders the active tab for the selected lease, cached by
// (lease, tab, width, version); the Budget tab also by the second, since
// its gauges move with the clock.
func (m *model) detailLines(w int) []string {
	id := m.tree.selected()
	l := m.deck.St.Leases[id]
	if l == nil {
		return []string{m.theme.Muted.Render("select a lease to see why it got what it got")}
	}
	var sec int64
	if m.tab == tabBudget || m.tab == tabActivity || !l.Open(m.now) {
		sec = m.now.Unix() // gauges move; a closed lease says how long ago
	}
	c := &m.detail
	if c.lines != nil && c.id == id && c.tab == m.tab && c.width == w && c.ver == m.deck.Version(id) && c.sec == sec {
		return c.lines
	}
	t := m.theme
	a := l.Agent()
	head := []string{
		fit(t.bold(t.Text).Render(termtext.Clean(a.Name))+t.Muted.Render("  "+termtext.Clean(a.RuntimeAgent)+"  "+l.ID), w),
		fit(t.Muted.Render(termtext.Clean(l.Purpose())), w),
		"",
	}
	if m.lay.detH < 12 {
		// A short pane: one line of who, the rest for the tab.
		held := ""
		if l.Status != registry.Refused {
			held = " · " + confinementWord(t, m.deck.St.ConfinementOf(id))
		}
		head = []string{fit(t.bold(t.Text).Render(termtext.Clean(a.Name))+t.Muted.Render(" · "+record.ShortID(l.ID))+held+t.Muted.Render(" · "+termtext.Clean(l.Purpose())), w)}
	}
	if m.lay.detH >= 12 && l.Status != registry.Refused {
		// Above the blank line that ends the head: what holds the tree.
		head = append(head[:len(head)-1], append(renderConfinement(t, m.deck.St.ConfinementOf(id), id, w), "")...)
	}
	if cv, ok := computeClosed(m.deck, l, m.now); ok {
		head = append(head, renderClosed(t, cv, m.loc, m.now, w)...)
	}
	var body []string
	switch m.tab {
	case tabNarrowing:
		body = renderNarrowing(t, computeNarrowing(l), w)
	case tabBudget:
		body = renderBudget(t, computeBudget(m.deck, l, m.now, min(max(w-12, 10), 60)), w)
	case tabActivity:
		body = renderActivity(t, l.Activity, m.loc, w)
	case tabLease:
		d, ok := m.docs[id]
		if !ok {
			body = []string{t.Muted.Render("…")}
		} else {
			body = renderLease(t, d, w)
		}
	}
	*c = detailCache{id: id, tab: m.tab, width: w, ver: m.deck.Version(id), sec: sec, lines: append(head, body...)}
	return c.lines
}

type detailCache struct {
	id    string
	tab   tab
	width int
	ver   uint64
	sec   int64
	lines []string
}
