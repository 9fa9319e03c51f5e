package tui

import (
	"github.com/leasedeck/leasedeck/registry/record"
	"github.com/leasedeck/leasedeck/termtext"

	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

type revokeState struct {
	id      string
	reason  string
	cascade int
	sending bool
	err     string
}

func (m *model) startRevoke() tea.Cmd {
	if why := m.canAct(); why != "" {
		return m.setFlash(why, true)
	}
	id := m.tree.selected()
	l := m.deck.St.Leases[id]
	if l == nil {
		return m.setFlash("no lease selected", true)
	}
	if !l.Open(m.now) {
		return m.setFlash(fmt.Sprintf("lease %s is %s: nothing to revoke", record.ShortID(id), displayStatus(m.deck.St, l, m.now)), true)
	}
	m.overlay = revokeOverlay
	m.rev = revokeState{id: id, cascade: len(m.deck.LiveSubtree(id, m.now))}
	return nil
}

func (m *model) revokeKey(msg tea.KeyPressMsg) tea.Cmd {
	r := &m.rev
	if r.sending {
		return nil
	}
	switch {
	case key.Matches(msg, m.keys.Reason.Cancel):
		m.overlay = noOverlay
		return m.syncApproval()
	case key.Matches(msg, m.keys.Reason.Confirm):
		reason := strings.TrimSpace(r.reason)
		if reason == "" {
			r.err = "a revocation needs a reason"
			return nil
		}
		if why := m.canAct(); why != "" {
			r.err = why
			return nil
		}
		r.sending, r.err = true, ""
		m.actionID++
		aid, actor, id := m.actionID, m.opts.Actor, r.id
		return func() tea.Msg {
			ids, err := actor.Revoke(id, reason)
			return actionDone{id: aid, kind: "revoke", target: id, revoked: len(ids), err: err}
		}
	}
	r.reason, _ = editText(r.reason, msg, m.keys.Reason.Clear)
	return nil
}

func (m *model) revokeCardFor() revokeCard {
	c := revokeCard{t: m.theme, Lease: record.ShortID(m.rev.id), Cascade: m.rev.cascade, Reason: m.rev.reason, Sending: m.rev.sending, Err: m.rev.err}
	if l := m.deck.St.Leases[m.rev.id]; l != nil {
		c.Agent, c.Purpose = l.Agent().Name, l.Purpose()
	}
	return c
}

// revokeCard is what the revoke confirmation shows.
type revokeCard struct {
	t       *theme
	Lease   string // short id
	Agent   string
	Purpose string
	Cascade int // live leases the cascade closes, this one included
	Reason  string
	Sending bool
	Err     string
}

// revokeBox is the revoke dialog as the screen shows it.
func (m *model) revokeBox() string { return m.revokeCardFor().Render(min(m.w-4, 80)) }

// Render draws the revoke confirmation with its blast radius.
func (c revokeCard) Render(width int) string {
	t := c.t
	inner := max(width-4, 10)
	radius := "This closes 1 live lease: this one."
	if c.Cascade > 1 {
		radius = fmt.Sprintf("This closes %d live leases: this one and %d below it.", c.Cascade, c.Cascade-1)
	}
	if c.Cascade == 0 {
		radius = "This lease is not open; there is nothing to revoke."
	}
	lines := []string{
		t.bold(t.Danger).Render("REVOKE LEASE " + c.Lease),
		"",
		termtext.Clean(c.Agent) + t.Muted.Render(" — "+termtext.Clean(c.Purpose)),
		t.bold(t.Warn).Render(radius),
		"",
		"Reason (required): " + c.Reason + "▏",
		"",
	}
	switch {
	case c.Sending:
		lines = append(lines, t.Muted.Render("revoking…"))
	case strings.TrimSpace(c.Reason) == "":
		lines = append(lines, t.Muted.Render("type why, then enter · esc cancel"))
	default:
		lines = append(lines, t.Key.Render("enter")+" revoke   "+t.Key.Render("esc")+" cancel")
	}
	if c.Err != "" {
		lines = append(lines, t.Danger.Render("✗ "+termtext.Clean(c.Err)))
	}
	for i := range lines {
		lines[i] = fit(lines[i], inner)
	}
	return t.Modal.Width(width).Render(strings.Join(lines, "\n"))
}
