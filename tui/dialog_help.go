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
	lines = append(lines, t.Title.Render("leasedeck cockpit — keys and legend"), "")
	lines = append(lines, t.Header.Render("Legend: the tree's glyphs"))
	for _, g := range legendGlyphs {
		lines = append(lines, fit("  "+g[0]+"  "+g[1], inner))
	}
	lines = append(lines, t.Header.Render("Legend: the tree's columns"))
	for _, c := range legendColumns {
		lines = append(lines, fit("  "+fmt.Sprintf("%-9s", c[0])+" "+c[1], inner))
	}
	lines = append(lines, "")
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

// legendGlyphs and legendColumns explain the tree (the `?` screen).
var legendGlyphs = [][2]string{
	{"●", "live: granted, unexpired, its whole chain live"},
	{"◆", "live, with approval requests waiting for a human"},
	{"○", "granted, but an ancestor closed: it can no longer act"},
	{"✗", "refused: its manifest was not granted (select it for why)"},
	{"⊘", "revoked"},
	{"◌", "expired"},
	{"✓", "completed: the agent finished"},
	{"■", "stopped by an operator"},
	{"▸ ▾", "a lease with children, collapsed or expanded"},
	{"↳", "a child lease (a subagent); a row without it is a session"},
	{"▣", "confined: the kernel holds its process tree (leasedeck run, Landlock)"},
	{"□", "an UNCONFINED run (--allow-unconfined): only the hooks check it"},
	{"·", "hooks only: no leasedeck run; the gate checks each call"},
}

var legendColumns = [][2]string{
	{"AGENT", "the agent's name; children are indented under their parent"},
	{"PURPOSE", "what the lease was granted for (a refusal's reason for a refused one)"},
	{"STEPS", "tool calls spent by the lease and its children, of its ceiling"},
	{"KIDS", "live children / the fan_out ceiling"},
	{"D", "depth left: how many more levels it may delegate"},
	{"LEFT", "time left, what closed it, or how many requests wait"},
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
