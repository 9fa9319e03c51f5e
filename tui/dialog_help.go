package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// The help dialog: every key the cockpit answers, generated from the key
// map (UI rule 6), scrolled when the terminal is short.

// helpKey answers a key while help is open.
func (m *model) helpKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Help.Close):
		m.overlay = noOverlay
		return m.syncApproval()
	case key.Matches(msg, m.keys.Help.Down):
		m.helpOff = min(m.helpOff+1, max(len(helpLines(m.theme, m.keys, 10))-(m.h-2)+1, 0))
	case key.Matches(msg, m.keys.Help.Up):
		m.helpOff = max(m.helpOff-1, 0)
	}
	return nil
}

// helpBox is the help dialog as the screen shows it.
func (m *model) helpBox() string {
	return helpScreen{t: m.theme, keys: m.keys, height: m.h, offset: m.helpOff}.Render(min(m.w-4, 84))
}

// helpLines is the help screen's content, generated from the key map
// (UI rule 6).
func helpLines(t *theme, k keyMap, inner int) []string {
	var lines []string
	lines = append(lines, t.Title.Render("leasedeck cockpit — keys"), "")
	for _, s := range k.Sections() {
		lines = append(lines, t.Header.Render(s.Title))
		for _, b := range s.Bindings {
			h := b.Help()
			lines = append(lines, fit("  "+t.Key.Render(fmt.Sprintf("%-12s", h.Key))+" "+h.Desc, inner))
		}
	}
	lines = append(lines, "", t.Muted.Render("esc or ? closes this help"))
	return lines
}

// helpScreen is the help dialog's view: at most height lines tall,
// scrolled to offset when it does not fit.
type helpScreen struct {
	t              *theme
	keys           keyMap
	height, offset int
}

// Render draws the help screen, width cells wide.
func (h helpScreen) Render(width int) string {
	t := h.t
	inner := max(width-4, 10)
	lines := helpLines(t, h.keys, inner)
	room := max(h.height-2, 3) // the frame takes two lines
	if len(lines) > room {
		offset := min(max(h.offset, 0), len(lines)-room+1)
		lines = append(lines[offset:offset+room-1:offset+room-1], t.Muted.Render(fmt.Sprintf("j/k scroll · %d–%d of %d", offset+1, offset+room-1, len(lines))))
	}
	for i := range lines {
		lines[i] = fit(lines[i], inner)
	}
	return t.Modal.Width(width).Render(strings.Join(lines, "\n"))
}
