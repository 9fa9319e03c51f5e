package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/leasedeck/leasedeck/termtext"
)

// A dialog is a modal (UI rule 8): while one is open it gets every key
// before the screen beneath it, and it draws over that screen. Each keeps
// its state, its keys and its view together in its own file
// (dialog_approval.go, dialog_revoke.go, dialog_filter.go,
// dialog_help.go); the root model records which one is open and reaches
// it through the dialogs table.

// overlayKind names the open dialog.
type overlayKind int

const (
	noOverlay overlayKind = iota
	approvalOverlay
	revokeOverlay
	helpOverlay
	filterOverlay
	queueOverlay
	quitOverlay
)

// dialog is one modal's behaviour: its key handler and its box ("" when
// it draws nothing over the screen, as the filter, which types in the
// status bar).
type dialog struct {
	key func(m *model, msg tea.KeyPressMsg) tea.Cmd
	box func(m *model) string
}

// dialogs is filled in init: a dialog's key handler may hand a key on to
// the screen beneath (onKey), which consults this table.
var dialogs map[overlayKind]dialog

func init() {
	dialogs = map[overlayKind]dialog{
		approvalOverlay: {(*model).approvalKey, (*model).approvalBox},
		revokeOverlay:   {(*model).revokeKey, (*model).revokeBox},
		helpOverlay:     {(*model).helpKey, (*model).helpBox},
		filterOverlay:   {(*model).filterKey, func(*model) string { return "" }},
		queueOverlay:    {(*model).queueKey, (*model).queueBox},
		quitOverlay:     {(*model).quitKey, (*model).quitBox},
	}
}

// editText applies a key to a one-line text field; ok is false when the
// key is not text editing.
func editText(s string, msg tea.KeyPressMsg, clearKey key.Binding) (string, bool) {
	switch {
	case key.Matches(msg, clearKey):
		return "", true
	case msg.String() == "backspace":
		r := []rune(s)
		if len(r) > 0 {
			r = r[:len(r)-1]
		}
		return string(r), true
	case msg.Text != "":
		if len([]rune(s)) >= 200 {
			return s, true
		}
		return s + termtext.Clean(msg.Text), true
	case msg.String() == "space":
		return s + " ", true
	}
	return s, false
}

// overlay draws box centred over base (lines of exactly width cells).
func overlay(base []string, box string, width int) []string {
	bl := strings.Split(box, "\n")
	bw := 0
	for _, l := range bl {
		bw = max(bw, ansi.StringWidth(l))
	}
	bw = min(bw, width)
	x := max((width-bw)/2, 0)
	y := max((len(base)-len(bl))/2, 0)
	out := append([]string(nil), base...)
	for i, l := range bl {
		if y+i >= len(out) {
			break
		}
		row := out[y+i]
		out[y+i] = ansi.Cut(row, 0, x) + fit(l, bw) + ansi.Cut(row, x+bw, width)
	}
	return out
}
