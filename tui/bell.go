package tui

import (
	"fmt"
	"os"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/leasedeck/leasedeck/termtext"
)

// The bell, and desktop notifications. With many agents requests arrive
// in bursts: the bell rings at most once per bellEvery (requests that
// arrive meanwhile ring once when it ends), and M mutes it. Where the
// terminal shows desktop notifications (OSC 9 or OSC 777), one says how
// many requests wait.

const bellEvery = 10 * time.Second

// Notifier is how the terminal shows a desktop notification.
type notifier string

const (
	notifyNone   notifier = ""
	notifyOSC9   notifier = "osc9"   // iTerm2, WezTerm, Windows Terminal, ghostty, kitty
	notifyOSC777 notifier = "osc777" // rxvt-unicode, foot, VTE terminals with the notify patch
)

// detectNotifier reads the environment once, in Run (not in Update):
// LEASEDECK_NOTIFY=osc9|osc777|off chooses; otherwise a terminal known to
// show them is used, and none inside tmux or screen (they would swallow
// the sequence).
func detectNotifier(getenv func(string) string) notifier {
	switch strings.ToLower(getenv("LEASEDECK_NOTIFY")) {
	case "osc9":
		return notifyOSC9
	case "osc777":
		return notifyOSC777
	case "off", "none", "0":
		return notifyNone
	}
	if getenv("TMUX") != "" || strings.HasPrefix(getenv("TERM"), "screen") || strings.HasPrefix(getenv("TERM"), "tmux") {
		return notifyNone
	}
	switch getenv("TERM_PROGRAM") {
	case "iTerm.app", "WezTerm", "ghostty", "vscode":
		return notifyOSC9
	}
	switch {
	case getenv("WT_SESSION") != "", getenv("KITTY_WINDOW_ID") != "":
		return notifyOSC9
	case strings.HasPrefix(getenv("TERM"), "rxvt"), strings.HasPrefix(getenv("TERM"), "foot"):
		return notifyOSC777
	}
	return notifyNone
}

// notification is the escape sequence that shows body, or "".
func (n notifier) notification(body string) string {
	body = strings.ReplaceAll(termtext.Clean(body), ";", ",")
	switch n {
	case notifyOSC9:
		return "\x1b]9;" + body + "\a"
	case notifyOSC777:
		return "\x1b]777;notify;leasedeck;" + body + "\a"
	}
	return ""
}

type bellOffMsg struct{}

// ring sounds the bell for fresh requests, at most once per bellEvery.
func (m *model) ring(fresh int) tea.Cmd {
	m.bellOwed += fresh
	if m.bellMuted || m.bellCooling {
		return nil
	}
	n := m.bellOwed
	m.bellOwed = 0
	m.bellCooling = true
	seq := "\a"
	if note := m.opts.notify.notification(fmt.Sprintf("%d approval request(s) waiting (%d new)", len(m.deck.Pending()), n)); note != "" {
		seq += note
	}
	return tea.Batch(tea.Raw(seq), m.timer(bellEvery, func(time.Time) tea.Msg { return bellOffMsg{} }))
}

// bellOff ends the quiet period, ringing once for what arrived during it.
func (m *model) bellOff() tea.Cmd {
	m.bellCooling = false
	if m.bellOwed > 0 && !m.bellMuted && len(m.deck.Pending()) > 0 {
		return m.ring(0)
	}
	m.bellOwed = 0
	return nil
}

// toggleMute mutes or unmutes the bell (and notifications).
func (m *model) toggleMute() tea.Cmd {
	m.bellMuted = !m.bellMuted
	m.bellOwed = 0
	if m.bellMuted {
		return m.setFlash("bell muted (M unmutes)", false)
	}
	return m.setFlash("bell on", false)
}

// envNotifier is detectNotifier over the process environment.
func envNotifier() notifier { return detectNotifier(os.Getenv) }
