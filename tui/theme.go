package tui

import (
	"charm.land/lipgloss/v2"
)

// theme is every style the cockpit uses, by meaning rather than colour
// (UI rule 7). Renderers take a *theme and never name a colour, so the
// light and dark palettes, and the plain one the golden tests use, are
// the only places colours live.
type theme struct {
	Title    lipgloss.Style // pane titles
	Header   lipgloss.Style // column headers
	Text     lipgloss.Style // ordinary text
	Muted    lipgloss.Style // secondary text (ids, times)
	Dim      lipgloss.Style // closed leases and their subtrees
	OK       lipgloss.Style // live, allowed, verified
	Warn     lipgloss.Style // pending approval, held, near a limit
	Danger   lipgloss.Style // refused, denied, revoked, broken
	Selected lipgloss.Style // the cursor row
	Added    lipgloss.Style // narrowing: added by the parent
	Removed  lipgloss.Style // narrowing: removed from the declaration
	Kept     lipgloss.Style // narrowing: granted as declared
	BarFull  lipgloss.Style // the spent part of a gauge
	BarEmpty lipgloss.Style // the rest of a gauge
	Key      lipgloss.Style // a key in help and hints
	Status   lipgloss.Style // the status bar
	Banner   lipgloss.Style // the red banner (chain broken, registry gone)
	Modal    lipgloss.Style // the modal frame
	TabOn    lipgloss.Style // the active detail tab
	TabOff   lipgloss.Style // the other tabs

	plain bool // no attributes at all (golden files, screen readers)
}

// bold is st in bold, unless the theme is plain.
func (t *theme) bold(st lipgloss.Style) lipgloss.Style {
	if t.plain {
		return st
	}
	return st.Bold(true)
}

// reverse is st in reverse video, unless the theme is plain.
func (t *theme) reverse(st lipgloss.Style) lipgloss.Style {
	if t.plain {
		return st
	}
	return st.Reverse(true)
}

// newTheme builds the palette for a dark or light terminal background.
func newTheme(dark bool) *theme {
	ld := lipgloss.LightDark(dark)
	c := func(light, darkHex string) lipgloss.Style {
		return lipgloss.NewStyle().Foreground(ld(lipgloss.Color(light), lipgloss.Color(darkHex)))
	}
	t := &theme{
		Title:    c("#1d4ed8", "#93c5fd").Bold(true),
		Header:   c("#6b7280", "#9ca3af").Bold(true),
		Text:     lipgloss.NewStyle(),
		Muted:    c("#6b7280", "#9ca3af"),
		Dim:      c("#9ca3af", "#6b7280"),
		OK:       c("#15803d", "#4ade80"),
		Warn:     c("#b45309", "#fbbf24"),
		Danger:   c("#b91c1c", "#f87171"),
		Added:    c("#15803d", "#4ade80"),
		Removed:  c("#b91c1c", "#f87171"),
		Kept:     c("#374151", "#d1d5db"),
		BarFull:  c("#2563eb", "#60a5fa"),
		BarEmpty: c("#d1d5db", "#374151"),
		Key:      c("#7c3aed", "#c4b5fd").Bold(true),
		TabOff:   c("#6b7280", "#9ca3af"),
	}
	t.Selected = lipgloss.NewStyle().Background(ld(lipgloss.Color("#dbeafe"), lipgloss.Color("#1e3a5f")))
	t.Status = lipgloss.NewStyle().
		Foreground(ld(lipgloss.Color("#111827"), lipgloss.Color("#e5e7eb"))).
		Background(ld(lipgloss.Color("#e5e7eb"), lipgloss.Color("#1f2937")))
	t.Banner = lipgloss.NewStyle().Bold(true).
		Foreground(lipgloss.Color("#ffffff")).Background(lipgloss.Color("#b91c1c"))
	t.Modal = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).
		BorderForeground(ld(lipgloss.Color("#b45309"), lipgloss.Color("#fbbf24"))).Padding(0, 1)
	t.TabOn = lipgloss.NewStyle().Bold(true).Underline(true).
		Foreground(ld(lipgloss.Color("#1d4ed8"), lipgloss.Color("#93c5fd")))
	return t
}
