package tui

import (
	"github.com/leasedeck/leasedeck/registry/record"
	"github.com/leasedeck/leasedeck/termtext"

	"fmt"
	"sort"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/leasedeck/leasedeck/approvals"
)

// The approvals view: every pending request across agents in one list —
// a queue to work through rather than a stream of pop-ups. A request is
// opened (enter) to be read in full and decided; many are denied at once
// with one reason (space marks, D denies).

type queueSort int

const (
	queueByAge queueSort = iota
	queueByDeadline
	queueByAgent
	queueSorts
)

var queueSortNames = [...]string{"oldest first", "deadline first", "agent"}

func (s queueSort) String() string { return queueSortNames[s] }

// queueState is the approvals view's state.
type queueState struct {
	cursor    int
	sort      queueSort
	filter    string
	filtering bool            // the filter is being typed
	marked    map[string]bool // requests to deny together
	typing    bool            // the bulk deny reason is being typed
	reason    string
	sending   bool
	err       string
}

// queueRow is one pending request as the view lists it.
type queueRow struct {
	req    approvals.Request
	agent  string
	live   bool
	marked bool
}

// openQueue shows the approvals view (the `a` key).
func (m *model) openQueue() tea.Cmd {
	if m.readOnly() && m.opts.Actor == nil && len(m.deck.Pending()) == 0 {
		return m.setFlash("no pending approvals", false)
	}
	clear(m.deferred)
	// A fresh view each time: no filter or marks left from before, so
	// what a bulk deny acts on is what is on screen now.
	m.queue = queueState{sort: m.queue.sort, marked: map[string]bool{}}
	m.overlay = queueOverlay
	return nil
}

// queueRows lists the pending requests the view shows, filtered and
// sorted; decisions sent from here drop out at once.
func (m *model) queueRows() []queueRow {
	f := strings.ToLower(strings.TrimSpace(m.queue.filter))
	var rows []queueRow
	for _, r := range m.deck.Pending() {
		if m.deciding[r.ID] {
			continue
		}
		qr := queueRow{req: r, marked: m.queue.marked[r.ID]}
		if l := m.deck.St.Leases[r.LeaseID]; l != nil {
			qr.agent = l.Agent().Name
		}
		qr.live, _ = m.deck.St.Live(r.LeaseID, m.now)
		if f != "" && !strings.Contains(strings.ToLower(qr.agent+" "+r.Client+" "+r.Tool+" "+r.Summary+" "+r.Call.Text+" "+r.LeaseID+" "+strings.Join(r.Names, " ")), f) {
			continue
		}
		rows = append(rows, qr)
	}
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i].req, rows[j].req
		switch m.queue.sort {
		case queueByDeadline:
			return a.Deadline.Before(b.Deadline)
		case queueByAgent:
			return strings.ToLower(rows[i].agent) < strings.ToLower(rows[j].agent)
		}
		return a.CreatedAt.Before(b.CreatedAt)
	})
	return rows
}

func (m *model) queueKey(msg tea.KeyPressMsg) tea.Cmd {
	q := &m.queue
	k := m.keys.Queue
	if q.sending {
		return nil
	}
	if q.filtering {
		switch {
		case key.Matches(msg, m.keys.Filter.Apply):
			q.filtering = false
		case key.Matches(msg, m.keys.Filter.Clear):
			q.filtering, q.filter = false, ""
		default:
			q.filter, _ = editText(q.filter, msg, m.keys.Reason.Clear)
			q.cursor = 0
		}
		return nil
	}
	if q.typing {
		return m.queueReasonKey(msg)
	}
	rows := m.queueRows()
	q.cursor = min(max(q.cursor, 0), max(len(rows)-1, 0))
	switch {
	case key.Matches(msg, k.Close):
		m.overlay = noOverlay
		return m.syncApproval()
	case key.Matches(msg, k.Up):
		q.cursor = max(q.cursor-1, 0)
	case key.Matches(msg, k.Down):
		q.cursor = min(q.cursor+1, max(len(rows)-1, 0))
	case key.Matches(msg, k.Sort):
		q.sort = (q.sort + 1) % queueSorts
	case key.Matches(msg, k.Filter):
		q.filtering = true
	case key.Matches(msg, k.Mark):
		if len(rows) > 0 {
			id := rows[q.cursor].req.ID
			q.marked[id] = !q.marked[id]
			q.cursor = min(q.cursor+1, len(rows)-1)
		}
	case key.Matches(msg, k.MarkAll):
		all := true
		for _, r := range rows {
			all = all && q.marked[r.req.ID]
		}
		for _, r := range rows {
			q.marked[r.req.ID] = !all
		}
	case key.Matches(msg, k.Open):
		if len(rows) > 0 {
			return m.openApproval(rows[q.cursor].req.ID, true)
		}
	case key.Matches(msg, k.DenyMarked):
		if why := m.canAct(); why != "" {
			q.err = why
			return nil
		}
		if len(m.queueTargets(rows)) > 0 {
			q.typing, q.reason, q.err = true, "", ""
		}
	case key.Matches(msg, k.Mute):
		return m.toggleMute()
	}
	return nil
}

// queueTargets are the requests a bulk deny acts on: the marked ones
// shown, or else the one under the cursor.
func (m *model) queueTargets(rows []queueRow) []string {
	var ids []string
	for _, r := range rows {
		if r.marked {
			ids = append(ids, r.req.ID)
		}
	}
	if len(ids) == 0 && len(rows) > 0 {
		ids = []string{rows[min(m.queue.cursor, len(rows)-1)].req.ID}
	}
	return ids
}

// queueReasonKey edits the one reason a bulk deny sends to every agent.
func (m *model) queueReasonKey(msg tea.KeyPressMsg) tea.Cmd {
	q := &m.queue
	switch {
	case key.Matches(msg, m.keys.Reason.Cancel):
		q.typing = false
		return nil
	case key.Matches(msg, m.keys.Reason.Confirm):
		reason := strings.TrimSpace(q.reason)
		if reason == "" {
			reason = "denied in the cockpit"
		}
		ids := m.queueTargets(m.queueRows())
		q.typing = false
		return m.denyMany(ids, reason, "deny-many")
	}
	q.reason, _ = editText(q.reason, msg, m.keys.Reason.Clear)
	return nil
}

// denyMany denies requests one after another in one command, with one
// reason, and reports how many were denied.
func (m *model) denyMany(ids []string, reason, kind string) tea.Cmd {
	if len(ids) == 0 || m.opts.Actor == nil {
		return nil
	}
	for _, id := range ids {
		m.deciding[id] = true
		delete(m.queue.marked, id)
	}
	m.actionID++
	aid, actor := m.actionID, m.opts.Actor
	ids = append([]string(nil), ids...)
	return func() tea.Msg {
		done := actionDone{id: aid, kind: kind, label: reason}
		for _, id := range ids {
			if err := actor.Decide(id, "denied", "", reason); err != nil {
				done.failed = append(done.failed, id)
				done.err = err
				continue
			}
			done.revoked++ // counts the denials
		}
		return done
	}
}

// queueBox draws the approvals view: nearly the whole screen.
func (m *model) queueBox() string {
	return queueView{t: m.theme, rows: m.queueRows(), st: m.queue, now: m.now, height: m.h - 4,
		canAct: m.canAct(), muted: m.bellMuted, asked: m.askedRows()}.Render(m.w - 4)
}

// queueView is the approvals view's component.
type queueView struct {
	t      *theme
	rows   []queueRow
	st     queueState
	now    time.Time
	height int
	canAct string
	muted  bool
	asked  []askedRow // calls asked in the client: shown, never decided here
}

// Render draws the view width cells wide.
func (v queueView) Render(width int) string {
	t := v.t
	inner := max(width-4, 20)
	var lines []string
	add := func(s string) { lines = append(lines, fit(s, inner)) }
	marked := 0
	for _, r := range v.rows {
		if r.marked {
			marked++
		}
	}
	head := t.bold(t.Warn).Render(fmt.Sprintf("⚑ APPROVALS — %d waiting", len(v.rows))) + t.Muted.Render("   sort: "+v.st.sort.String())
	if v.st.filter != "" || v.st.filtering {
		head += t.Warn.Render("   filter: " + v.st.filter)
	}
	if marked > 0 {
		head += t.bold(t.Text).Render(fmt.Sprintf("   %d marked", marked))
	}
	if v.muted {
		head += t.Muted.Render("   bell muted")
	}
	add(head)
	agentW := min(max(inner/5, 12), 28)
	add(t.Header.Render(fmt.Sprintf("    %-6s %-7s %-*s %-8s %-9s %s", "AGE", "LEFT", agentW, "AGENT", "LEASE", "TOOL", "WHAT")))
	askedLines := 0
	if len(v.asked) > 0 {
		askedLines = min(len(v.asked), maxAskedShown) + 2
	}
	room := max(v.height-8-askedLines, 3)
	off := 0
	if v.st.cursor >= room {
		off = v.st.cursor - room + 1
	}
	for i := off; i < len(v.rows) && i < off+room; i++ {
		add(v.row(v.rows[i], i == v.st.cursor, agentW, inner))
	}
	if len(v.rows) == 0 {
		msg := "nothing is waiting for a human"
		if v.st.filter != "" {
			msg = "no request matches the filter"
		}
		add(t.Muted.Render("  " + msg))
	}
	for len(lines) < room+2 {
		add("")
	}
	if len(v.asked) > 0 {
		lines = append(lines, renderAsked(t, v.asked, agentW, inner, v.now)...)
	}
	add("")
	lines = append(lines, v.footer(inner)...)
	for i := range lines {
		lines[i] = fit(lines[i], inner)
	}
	return t.Modal.Width(width).Render(strings.Join(lines, "\n"))
}

func (v queueView) row(r queueRow, selected bool, agentW, inner int) string {
	t := v.t
	mark := "  "
	if r.marked {
		mark = "✕ "
	}
	cur := " "
	if selected {
		cur = "▌"
	}
	age := fmtLeft(v.now.Sub(r.req.CreatedAt))
	left := fmtLeft(r.req.Deadline.Sub(v.now))
	if !r.live {
		left = "closed"
	}
	// What it does: the programs the gate derived first (a comment
	// cannot push them out of the column), then the call on one line.
	what := r.req.Summary
	if r.req.Call.Text != "" {
		what = strings.ReplaceAll(r.req.Call.Text, "\n", " ⏎ ")
	}
	if len(r.req.Call.Programs) > 0 {
		what = "runs " + strings.Join(r.req.Call.Programs, ", ") + " · " + what
	}
	s := fmt.Sprintf("%s%s%-6s %-7s %s %-8s %-9s %s", cur, mark, age, left, fit(termtext.Clean(r.agent), agentW),
		record.ShortID(r.req.LeaseID), fit(termtext.Clean(r.req.Tool), 9), termtext.Clean(what))
	s = fit(s, inner)
	if selected {
		return t.Selected.Render(s)
	}
	return s
}

func (v queueView) footer(inner int) []string {
	t := v.t
	switch {
	case v.st.sending:
		return []string{t.Muted.Render("denying…")}
	case v.st.typing:
		n := 0
		for _, r := range v.rows {
			if r.marked {
				n++
			}
		}
		if n == 0 {
			n = 1
		}
		return []string{
			fit(fmt.Sprintf("Deny %d request(s); one reason for every agent: %s▏", n, v.st.reason), inner),
			t.Key.Render("enter") + " deny them   " + t.Key.Render("esc") + " back",
		}
	case v.st.filtering:
		return []string{fit("/ "+v.st.filter+"▏   enter keep · esc clear   (agent, tool, program, text)", inner)}
	}
	k := func(key, what string) string { return t.Key.Render(key) + " " + what }
	out := joinWrapped([]string{k("enter", "open and decide"), k("space", "mark"), k("*", "mark all"),
		k("D", "deny marked (one reason)"), k("s", "sort"), k("/", "filter"), k("M", "mute bell"), k("esc", "close")}, "  ", inner)
	if v.canAct != "" {
		out = append(out, fit(t.Danger.Render("✗ "+v.canAct), inner))
	}
	if v.st.err != "" {
		out = append(out, fit(t.Danger.Render("✗ "+termtext.Clean(v.st.err)), inner))
	}
	return out
}
