package tui

import (
	"github.com/leasedeck/leasedeck/registry/record"
	"github.com/leasedeck/leasedeck/termtext"

	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/leasedeck/leasedeck/approvals"
)

// The approval dialog: one held call, shown in full, decided with a key.
//
// A request must never take a key that was typed for something else. So
// a request that arrives by itself opens only when no text is being typed
// (no other dialog is open) and the keyboard has been still for a moment
// (quietMsg); it then ignores keys for the guard (400 ms); and a key that
// arrives during the guard is taken as meant for the screen beneath: the
// dialog steps aside, the key goes where it was aimed, and the request
// comes back when the keyboard is still again. Only a key of its own,
// pressed after the guard and after a pause (not hard on the heels of
// another, as the y of a typed "ready" is), decides.

// approvalState is the approval dialog's state.
type approvalState struct {
	id        string
	gen       int  // which opening; a guard timer from an older one is ignored
	guard     bool // keys step the dialog aside for now
	fromQueue bool // opened from the approvals view: esc goes back there
	typing    bool
	reason    string
	sending   string
	err       string
	scroll    int // first line of the call text shown
}

// candidate is the request the approval modal should show: the oldest
// pending one not decided from here, not deferred, on a live lease.
func (m *model) candidate() (approvals.Request, int, bool) {
	var out approvals.Request
	found, n := false, 0
	for _, r := range m.deck.Pending() {
		if m.deciding[r.ID] || m.deferred[r.ID] {
			continue
		}
		if ok, _ := m.deck.St.Live(r.LeaseID, m.now); !ok {
			continue
		}
		n++
		if !found {
			out, found = r, true
		}
	}
	return out, n, found
}

// syncApproval opens, switches or closes the approval modal after any
// change, and rings the bell for requests never seen before.
func (m *model) syncApproval() tea.Cmd {
	var cmds []tea.Cmd
	fresh := 0
	for _, r := range m.deck.Pending() {
		if !m.seenReq[r.ID] {
			m.seenReq[r.ID] = true
			fresh++
		}
	}
	if fresh > 0 && !m.readOnly() {
		cmds = append(cmds, m.ring(fresh))
	}
	m.prune()
	if m.readOnly() {
		return tea.Batch(cmds...)
	}
	if m.overlay == approvalOverlay {
		// Keep showing a request while it is still waiting for a human.
		if m.isPending(m.appr.id) && !m.deciding[m.appr.id] && !m.deferred[m.appr.id] && m.leaseLive(m.appr.id) {
			return tea.Batch(cmds...)
		}
		if m.appr.typing && !m.quiet {
			// Decided elsewhere, or expired, while a reason was being
			// typed: the rest of that typing must not land on the
			// screen beneath (an x there would start a revocation).
			m.swallow = true
			cmds = append(cmds, m.setFlash("the request closed while you typed: keys are ignored until you pause", true))
		}
		m.overlay = noOverlay
		if m.appr.fromQueue {
			m.overlay = queueOverlay
		}
	}
	// Never over another dialog (a filter or a reason being typed), and
	// never while the keyboard is busy.
	if c, _, ok := m.candidate(); ok && m.overlay == noOverlay && m.quiet {
		cmds = append(cmds, m.openApproval(c.ID, false))
	}
	return tea.Batch(cmds...)
}

func (m *model) leaseLive(approvalID string) bool {
	r, _, ok := m.deck.Book.Get(approvalID)
	if !ok {
		return false
	}
	live, _ := m.deck.St.Live(r.LeaseID, m.now)
	return live
}

// prune forgets decided requests once the sets grow: a decided request
// never comes back, so a long-running cockpit need not remember it.
func (m *model) prune() {
	if len(m.seenReq)+len(m.deciding)+len(m.deferred) < 1024 {
		return
	}
	pending := map[string]bool{}
	for _, r := range m.deck.Pending() {
		pending[r.ID] = true
	}
	for _, set := range []map[string]bool{m.seenReq, m.deciding, m.deferred} {
		for id := range set {
			if !pending[id] {
				delete(set, id)
			}
		}
	}
}

func (m *model) isPending(id string) bool {
	for _, r := range m.deck.Pending() {
		if r.ID == id {
			return true
		}
	}
	return false
}

// openApproval shows a request. One that opens by itself has the key
// guard up; one the user picked from the approvals view does not.
func (m *model) openApproval(id string, picked bool) tea.Cmd {
	err := ""
	if m.appr.id == id {
		err = m.appr.err
	}
	m.apprGen++
	m.overlay = approvalOverlay
	m.appr = approvalState{id: id, gen: m.apprGen, guard: !picked, fromQueue: picked, err: err}
	if picked {
		return nil
	}
	gen := m.apprGen
	return m.timer(m.opts.guard, func(time.Time) tea.Msg { return guardOffMsg{id, gen} })
}

// stepAside closes a request that opened under a keystroke and hands the
// key to the screen beneath, where it was aimed.
func (m *model) stepAside(msg tea.KeyPressMsg) tea.Cmd {
	typing := m.appr.guard || m.typing
	m.overlay = noOverlay
	if !typing {
		return m.onKey(msg) // a key for the screen beneath, pressed at leisure
	}
	return tea.Batch(m.setFlash("request put aside: you were typing (a lists it)", false), m.onKey(msg))
}

func (m *model) approvalKey(msg tea.KeyPressMsg) tea.Cmd {
	a := &m.appr
	k := m.keys.Approval
	if !a.fromQueue && !a.typing && (a.guard || m.typing || !m.approvalBinding(msg)) {
		// A request that opened by itself takes only a deliberate key:
		// one after the guard, after a pause, and one of its own. Any
		// other is typing meant for the screen beneath.
		return m.stepAside(msg)
	}
	if a.sending != "" {
		return nil
	}
	if a.typing {
		switch {
		case key.Matches(msg, m.keys.Reason.Confirm):
			reason := strings.TrimSpace(a.reason)
			if reason == "" {
				reason = "denied in the cockpit"
			}
			return m.decide(a.id, "denied", "", reason)
		case key.Matches(msg, m.keys.Reason.Cancel):
			a.typing = false
			return nil
		}
		a.reason, _ = editText(a.reason, msg, m.keys.Reason.Clear)
		return nil
	}
	switch {
	case key.Matches(msg, k.Defer):
		if a.fromQueue {
			m.overlay = queueOverlay
			return nil
		}
		// Hide every request pending now; the next new one pops up.
		for _, r := range m.deck.Pending() {
			m.deferred[r.ID] = true
		}
		m.overlay = noOverlay
		return m.setFlash("approvals deferred: press a to see them", false)
	case key.Matches(msg, k.ScrollDown):
		a.scroll++
	case key.Matches(msg, k.ScrollUp):
		a.scroll = max(a.scroll-1, 0)
	case key.Matches(msg, k.ApproveOnce):
		return m.decide(a.id, "approved", "once", "")
	case key.Matches(msg, k.ApproveLease):
		return m.decide(a.id, "approved", "lease", "")
	case key.Matches(msg, k.Deny), key.Matches(msg, k.Enter):
		// Enter only ever starts a deny: it never approves.
		a.typing, a.reason = true, ""
	}
	return nil
}

// approvalBinding: the key is one the approval dialog answers.
func (m *model) approvalBinding(msg tea.KeyPressMsg) bool {
	k := m.keys.Approval
	for _, b := range []key.Binding{k.ApproveOnce, k.ApproveLease, k.Deny, k.Enter, k.Defer, k.ScrollDown, k.ScrollUp} {
		if key.Matches(msg, b) {
			return true
		}
	}
	return false
}

func (m *model) decide(id, outcome, scope, reason string) tea.Cmd {
	if why := m.canAct(); why != "" {
		m.appr.err = why
		m.appr.typing = false
		return nil
	}
	r, _, _ := m.deck.Book.Get(id)
	label := r.Tool
	if r.Summary != "" {
		label = r.Summary
	}
	verb := "approving"
	if outcome == "denied" {
		verb = "denying"
	}
	m.deciding[id] = true
	m.overlay = noOverlay
	if m.appr.fromQueue {
		m.overlay = queueOverlay
	}
	m.actionID++
	aid, actor := m.actionID, m.opts.Actor
	kind := "approve"
	if outcome == "denied" {
		kind = "deny"
	} else if scope == "lease" {
		kind = "approve-lease"
	}
	run := func() tea.Msg {
		err := actor.Decide(id, outcome, scope, reason)
		return actionDone{id: aid, kind: kind, target: id, label: label, err: err}
	}
	return tea.Batch(m.setFlash(verb+" "+termtext.Clean(label)+"…", false), run)
}

func (m *model) approvalCardFor() approvalCard {
	r, _, _ := m.deck.Book.Get(m.appr.id)
	c := approvalCard{t: m.theme, Req: r, Left: r.Deadline.Sub(m.now), Guard: m.appr.guard,
		Typing: m.appr.typing, Reason: m.appr.reason, Sending: m.appr.sending, Err: m.appr.err,
		Scroll: m.appr.scroll, Room: max(m.h-26, 3)}
	if l := m.deck.St.Leases[r.LeaseID]; l != nil {
		c.Agent = l.Agent().Name
		c.Purpose = l.Purpose()
		if left := l.ExpiresAt.Sub(m.now); left > 0 {
			c.LeaseLeft = fmtLeft(left)
		}
	}
	if _, n, _ := m.candidate(); n > 1 {
		c.More = n - 1
	}
	return c
}

// approvalBox is the approval dialog as the screen shows it.
func (m *model) approvalBox() string { return m.approvalCardFor().Render(min(m.w-4, 100)) }

// approvalCard is what the approval dialog shows: the request as the
// registry recorded it, and the dialog's own state.
type approvalCard struct {
	t         *theme
	Req       approvals.Request
	Agent     string
	Purpose   string
	LeaseLeft string        // the lease's own time left, for what "for this lease" covers
	Left      time.Duration // until the request's deadline
	Guard     bool          // a key now steps the dialog aside
	Typing    bool          // a deny reason is being typed
	Reason    string
	Sending   string // "approving…", "denying…"
	More      int    // requests waiting behind this one
	Err       string
	Scroll    int // first line of the call text shown
	Room      int // lines of call text that fit
}

// callLines is the call's full text as numbered, wrapped lines: every
// line break of the original starts a new numbered line, so a second line
// or a long comment is seen as such and cannot pass for part of the first.
func callLines(text string, width int) []string {
	src := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	numW := len(fmt.Sprint(len(src)))
	var out []string
	for i, l := range src {
		l = termtext.Clean(strings.ReplaceAll(l, "\t", "    "))
		gutter := fmt.Sprintf("%*d│ ", numW, i+1)
		rest := []rune(l)
		w := max(width-numW-2, 8)
		first := true
		for first || len(rest) > 0 {
			n := min(len(rest), w)
			seg := string(rest[:n])
			for n > 0 && ansiWidth(seg) > w {
				n--
				seg = string(rest[:n])
			}
			if n == 0 && len(rest) > 0 {
				n, seg = 1, string(rest[:1])
			}
			rest = rest[n:]
			if first {
				out = append(out, gutter+seg)
			} else {
				out = append(out, strings.Repeat(" ", numW)+"┆ "+seg)
			}
			first = false
		}
	}
	return out
}

// Render draws the approval dialog, width cells wide.
func (c approvalCard) Render(width int) string {
	t := c.t
	inner := max(width-4, 20)
	r := c.Req
	var lines []string
	add := func(s string) { lines = append(lines, fit(s, inner)) }
	head := t.bold(t.Warn).Render("⚑ APPROVAL NEEDED")
	if c.More > 0 {
		head += t.Muted.Render(fmt.Sprintf("   %d more waiting · a lists them all", c.More))
	}
	add(head)
	field := func(name, v string) string { return t.Muted.Render(fmt.Sprintf("%-8s", name)) + v }
	agent := c.Agent
	if r.Client != "" && !strings.Contains(agent, r.Client) {
		agent += " [" + r.Client + "]"
	}
	add(field("agent", termtext.Clean(agent)))
	add(field("lease", record.ShortID(r.LeaseID)+"  "+termtext.Clean(c.Purpose)))
	add(field("tool", t.bold(t.Text).Render(termtext.Clean(r.Tool))))
	for _, l := range wrapWords(fmt.Sprintf("%-8s", "why"), r.Reason, inner) {
		add(t.Warn.Render(l))
	}
	if len(r.Names) > 0 {
		add(field("rule", "the lease's approvals list names "+termtext.Clean(strings.Join(r.Names, ", "))))
	}
	lines = append(lines, c.resources(inner)...)
	lines = append(lines, c.callText(inner)...)
	left := "expires in " + fmtLeft(c.Left) + " (then denied)"
	if c.Left <= 0 {
		left = "deadline passed: the registry denies it"
	}
	add(t.Muted.Render(left))
	add("")
	lines = append(lines, c.footer(inner)...)
	for i := range lines {
		lines[i] = fit(lines[i], inner)
	}
	return t.Modal.Width(width).Render(strings.Join(lines, "\n"))
}

// resources lists what the gate derived from the call: what it runs,
// reads, writes and reaches. These come from the call itself, so they
// hold even when the text is long.
func (c approvalCard) resources(inner int) []string {
	t := c.t
	v := c.Req.Call
	var out []string
	if v.Empty() {
		return []string{fit(t.Muted.Render(fmt.Sprintf("%-8s", "derived")+"not recorded (a registry older than this cockpit)"), inner)}
	}
	list := func(name string, items []string, st func(...string) string) {
		if len(items) == 0 {
			return
		}
		for _, l := range wrapItems(fmt.Sprintf("%-8s", name), items, inner) {
			out = append(out, fit(st(l), inner))
		}
	}
	list("runs", v.Programs, t.bold(t.Danger).Render)
	writes := v.Writes
	if v.Bytes > 0 && len(writes) > 0 {
		writes = append(append([]string(nil), writes...), "("+humanBytes(v.Bytes)+" written)")
	}
	list("writes", writes, t.Warn.Render)
	list("reads", v.Reads, t.Text.Render)
	list("reaches", v.Hosts, t.Warn.Render)
	if len(out) == 0 {
		out = append(out, fit(t.Muted.Render(fmt.Sprintf("%-8s", "derived")+"no program, path or host"), inner))
	}
	return out
}

// callText is the whole call, numbered and wrapped, in a window of Room
// lines that j/k scroll.
func (c approvalCard) callText(inner int) []string {
	t := c.t
	text := c.Req.Call.Text
	if text == "" {
		text = c.Req.Summary
	}
	all := callLines(text, inner-2)
	room := max(c.Room, 1)
	off := min(max(c.Scroll, 0), max(len(all)-room, 0))
	title := fmt.Sprintf("call (%d line(s)", strings.Count(text, "\n")+1)
	if len(all) > room {
		title += fmt.Sprintf(", showing %d–%d of %d · j/k scroll", off+1, min(off+room, len(all)), len(all))
	}
	out := []string{fit(t.Muted.Render(title+")"), inner)}
	for _, l := range all[off:min(off+room, len(all))] {
		out = append(out, fit("  "+l, inner))
	}
	if below := len(all) - off - room; below > 0 {
		out = append(out, fit(t.bold(t.Warn).Render(fmt.Sprintf("  ↓ %d more line(s) below: read them before approving", below)), inner))
	}
	return out
}

// footer is the keys, what approving for the lease would cover, the
// guard and any error.
func (c approvalCard) footer(inner int) []string {
	t := c.t
	var out []string
	switch {
	case c.Sending != "":
		out = append(out, t.Muted.Render(c.Sending))
	case c.Typing:
		out = append(out, fit("Deny reason (optional): "+c.Reason+"▏", inner),
			t.Key.Render("enter")+" deny   "+t.Key.Render("esc")+" back")
	default:
		deny := t.reverse(t.bold(t.Danger)).Render(" n Deny ")
		out = append(out,
			deny+"  "+t.Key.Render("y")+" approve once  "+t.Key.Render("Y")+" approve for this lease  "+t.Key.Render("esc")+" later",
			t.Muted.Render("enter denies; it never approves"))
		out = append(out, c.covers(inner)...)
	}
	if c.Guard {
		out = append(out, t.Warn.Render("… just arrived: a key now puts it aside; a stray keystroke cannot decide"))
	}
	if c.Err != "" {
		out = append(out, fit(t.Danger.Render("✗ "+termtext.Clean(c.Err)), inner))
	}
	return out
}

// covers says what Y would approve from then on: every later call of
// this lease that needs only the same approval names.
func (c approvalCard) covers(inner int) []string {
	names := c.Req.Names
	if len(names) == 0 {
		return nil
	}
	until := "until it closes"
	if c.LeaseLeft != "" {
		until += " (in " + c.LeaseLeft + ")"
	}
	s := "Y covers from now on, without asking: every call of lease " + record.ShortID(c.Req.LeaseID) +
		" that needs only " + strings.Join(names, ", ") + ", " + until + "; not its subagents' leases"
	var out []string
	for _, l := range wrapWords("", s, inner) {
		out = append(out, fit(c.t.Muted.Render(l), inner))
	}
	return out
}
