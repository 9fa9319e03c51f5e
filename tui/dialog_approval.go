package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/leasedeck/leasedeck/approvals"
)

// approvalState is the approval modal's state.
type approvalState struct {
	id      string
	guard   bool
	typing  bool
	reason  string
	sending string
	err     string
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
	fresh := false
	for _, r := range m.deck.Pending() {
		if !m.seenReq[r.ID] {
			m.seenReq[r.ID] = true
			fresh = true
		}
	}
	if fresh && !m.readOnly() {
		cmds = append(cmds, tea.Raw("\a"))
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
		m.overlay = noOverlay
	}
	if c, _, ok := m.candidate(); ok && m.overlay == noOverlay {
		cmds = append(cmds, m.openApproval(c.ID))
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

// showApprovals brings back requests put aside with esc (the `a` key).
func (m *model) showApprovals() tea.Cmd {
	if why := m.canAct(); why != "" && m.opts.Actor == nil {
		return m.setFlash(why, true)
	}
	clear(m.deferred)
	if _, _, ok := m.candidate(); !ok {
		return m.setFlash("no pending approvals", false)
	}
	return m.syncApproval()
}

// openApproval shows a request with the key guard up: for 400 ms every
// decision key is ignored, so a keystroke meant for the tree cannot
// decide a request that popped up under it.
func (m *model) openApproval(id string) tea.Cmd {
	err := ""
	if m.appr.id == id {
		err = m.appr.err
	}
	m.overlay = approvalOverlay
	m.appr = approvalState{id: id, guard: true, err: err}
	return m.timer(m.opts.guard, func(time.Time) tea.Msg { return guardOffMsg{id} })
}

func (m *model) approvalKey(msg tea.KeyPressMsg) tea.Cmd {
	a := &m.appr
	k := m.keys.Approval
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
	if key.Matches(msg, k.Defer) {
		// Hide every request pending now; the next new one pops up.
		for _, r := range m.deck.Pending() {
			m.deferred[r.ID] = true
		}
		m.overlay = noOverlay
		return m.setFlash("approvals deferred: press a to see them", false)
	}
	if a.guard {
		return nil // the 400 ms guard: a stray key decides nothing
	}
	switch {
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
	return tea.Batch(m.setFlash(verb+" "+clean(label)+"…", false), run)
}

func (m *model) approvalCardFor() approvalCard {
	r, _, _ := m.deck.Book.Get(m.appr.id)
	c := approvalCard{t: m.theme, Tool: r.Tool, Summary: r.Summary, Why: r.Reason, Names: r.Names, Client: r.Client,
		Lease: shortID(r.LeaseID), Left: r.Deadline.Sub(m.now), Guard: m.appr.guard,
		Typing: m.appr.typing, Reason: m.appr.reason, Sending: m.appr.sending, Err: m.appr.err}
	if l := m.deck.St.Leases[r.LeaseID]; l != nil {
		c.Agent = l.Agent().Name
		c.Purpose = l.Purpose()
	}
	if _, n, _ := m.candidate(); n > 1 {
		c.More = n - 1
	}
	return c
}

// approvalCard is what the approval modal shows.
type approvalCard struct {
	t             *theme
	Agent, Client string
	Lease         string // short id
	Purpose       string
	Tool          string
	Summary       string // redacted by the registry
	Why           string
	Names         []string
	Left          time.Duration // until the deadline
	Guard         bool          // keys are ignored for now
	Typing        bool          // a deny reason is being typed
	Reason        string
	Sending       string // "approving…", "denying…"
	More          int    // requests waiting behind this one
	Err           string
}

// approvalBox is the approval dialog as the screen shows it.
func (m *model) approvalBox() string { return m.approvalCardFor().Render(min(m.w-4, 84)) }

// Render draws the approval modal, width cells wide.
func (c approvalCard) Render(width int) string {
	t := c.t
	inner := max(width-4, 10)
	var lines []string
	head := t.bold(t.Warn).Render("⚑ APPROVAL NEEDED")
	if c.More > 0 {
		head += t.Muted.Render(fmt.Sprintf("   %d more waiting", c.More))
	}
	lines = append(lines, head, "")
	field := func(name, v string, st lipgloss.Style) {
		lines = append(lines, fit(t.Muted.Render(fmt.Sprintf("%-8s", name))+st.Render(clean(v)), inner))
	}
	agent := c.Agent
	if c.Client != "" && !strings.Contains(agent, c.Client) {
		agent += " [" + c.Client + "]"
	}
	field("agent", agent, t.Text)
	field("lease", c.Lease+"  "+c.Purpose, t.Text)
	field("tool", c.Tool, t.bold(t.Text))
	field("call", c.Summary, t.Text)
	field("why", c.Why, t.Warn)
	if len(c.Names) > 0 {
		field("needs", strings.Join(c.Names, ", "), t.Muted)
	}
	left := "expires in " + fmtLeft(c.Left) + " (then denied)"
	if c.Left <= 0 {
		left = "deadline passed: the registry denies it"
	}
	lines = append(lines, fit(t.Muted.Render(left), inner), "")
	switch {
	case c.Sending != "":
		lines = append(lines, t.Muted.Render(c.Sending))
	case c.Typing:
		lines = append(lines, fit("Deny reason (optional): "+c.Reason+"▏", inner),
			t.Key.Render("enter")+" deny   "+t.Key.Render("esc")+" back")
	default:
		deny := t.reverse(t.bold(t.Danger)).Render(" n Deny ")
		lines = append(lines,
			deny+"  "+t.Key.Render("y")+" approve once  "+t.Key.Render("Y")+" approve for this lease  "+t.Key.Render("esc")+" later",
			t.Muted.Render("enter denies; it never approves"))
	}
	if c.Guard {
		lines = append(lines, t.Warn.Render("… keys ignored for a moment, so a stray keystroke cannot decide"))
	}
	if c.Err != "" {
		lines = append(lines, fit(t.Danger.Render("✗ "+clean(c.Err)), inner))
	}
	for i := range lines {
		lines[i] = fit(lines[i], inner)
	}
	return t.Modal.Width(width).Render(strings.Join(lines, "\n"))
}
