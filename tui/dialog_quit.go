package tui

import (
	"errors"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// The quit dialog. A cockpit that runs the workspace's registry governs
// every live session of the workspace: quitting it stops governance for
// all of them. So `q` asks first when anything depends on it, says what
// is affected, and tells the agents waiting on a human the truth.

// ErrServeInBackground is what Run returns when the user quit the cockpit
// asking for a registry to keep running in the background: the command
// starts one once this process has let the workspace go.
var ErrServeInBackground = errors.New("keep a registry serving in the background")

// reasonRegistryStopped is what an agent waiting on a human is told when
// the cockpit that runs its registry quits.
const reasonRegistryStopped = "the cockpit's registry stopped: no one can decide this call now"

// reasonRegistryHandover is the same when a background registry takes
// over.
const reasonRegistryHandover = "the cockpit's registry stopped; a background registry takes over: try the call again"

// quitState is the quit dialog's state.
type quitState struct {
	sessions, leases, pending int
	sending                   bool
}

// quitImpact counts what a registry stopping here would affect: live
// sessions (root leases), live leases in all, and pending requests.
func (m *model) quitImpact() quitState {
	var q quitState
	for _, id := range m.deck.St.Order {
		l := m.deck.St.Leases[id]
		if live, _ := m.deck.St.Live(id, m.now); live {
			q.leases++
			if l.ParentID == "" {
				q.sessions++
			}
		}
	}
	for _, r := range m.deck.Pending() {
		if !m.deciding[r.ID] {
			q.pending++
		}
	}
	return q
}

// servesRegistry: this process runs the registry the sessions depend on.
func (m *model) servesRegistry() bool { return m.opts.Mode == Embedded && m.opts.Actor != nil }

// startQuit quits at once when nothing depends on this cockpit, and
// otherwise asks.
func (m *model) startQuit() tea.Cmd {
	if !m.servesRegistry() {
		return tea.Quit
	}
	q := m.quitImpact()
	if q.leases == 0 && q.pending == 0 {
		return tea.Quit
	}
	m.quit = q
	m.overlay = quitOverlay
	return nil
}

// hardQuit is ctrl+c: no question, but the agents waiting on this
// registry are still told why no answer comes.
func (m *model) hardQuit() tea.Cmd {
	if !m.servesRegistry() {
		return tea.Quit
	}
	return m.quitTelling(reasonRegistryStopped)
}

// quitTelling denies every pending request with reason, then quits (on
// the deny's answer: actions.go), or quits at once when none waits.
func (m *model) quitTelling(reason string) tea.Cmd {
	var ids []string
	for _, r := range m.deck.Pending() {
		if !m.deciding[r.ID] {
			ids = append(ids, r.ID)
		}
	}
	if len(ids) == 0 || m.canAct() != "" {
		return tea.Quit
	}
	return m.denyMany(ids, reason, "deny-at-quit")
}

func (m *model) quitKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys.Quit
	if m.quit.sending {
		return nil
	}
	switch {
	case key.Matches(msg, k.Stay):
		m.overlay = noOverlay
		return m.syncApproval()
	case key.Matches(msg, k.Quit):
		m.quit.sending = true
		return m.quitTelling(reasonRegistryStopped)
	case key.Matches(msg, k.Background) && m.opts.Background:
		m.quit.sending = true
		m.background = true
		return m.quitTelling(reasonRegistryHandover)
	}
	return nil
}

// quitBox draws the quit dialog.
func (m *model) quitBox() string {
	return quitCard{t: m.theme, st: m.quit, background: m.opts.Background}.Render(min(m.w-4, 84))
}

// quitCard is the quit dialog's view.
type quitCard struct {
	t          *theme
	st         quitState
	background bool
}

// Render draws the dialog width cells wide.
func (c quitCard) Render(width int) string {
	t := c.t
	inner := max(width-4, 20)
	var lines []string
	add := func(s string) { lines = append(lines, fit(s, inner)) }
	wrap := func(s string) {
		for _, l := range wrapWords("", s, inner) {
			add(l)
		}
	}
	add(t.bold(t.Danger).Render("QUIT AND STOP THE REGISTRY?"))
	add("")
	wrap(fmt.Sprintf("This cockpit runs the workspace's registry. It governs %d live session(s) (%d live lease(s) in all), and %d approval request(s) are waiting for a human.",
		c.st.sessions, c.st.leases, c.st.pending))
	add("")
	wrap("If it stops, every waiting request is denied and its agent is told \"the cockpit's registry stopped\"; the sessions' next tool calls find no registry and are refused until one runs again (leasedeck serve, or leasedeck).")
	add("")
	keys := []string{t.Key.Render("y") + " quit and stop the registry"}
	if c.background {
		keys = append(keys, t.Key.Render("b")+" quit, keep a registry running in the background")
	}
	keys = append(keys, t.Key.Render("esc")+" stay")
	if c.st.sending {
		keys = []string{t.Muted.Render("telling the waiting agents…")}
	}
	for _, k := range keys {
		add(k)
	}
	for i := range lines {
		lines[i] = fit(lines[i], inner)
	}
	return t.Modal.Width(width).Render(strings.Join(lines, "\n"))
}
