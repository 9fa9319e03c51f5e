package tui

import "charm.land/lipgloss/v2"

// plainTheme has no colours or attributes, only the frame of the modal:
// what a golden file or a screen reader sees.
func plainTheme() *theme {
	p := lipgloss.NewStyle()
	return &theme{
		Title: p, Header: p, Text: p, Muted: p, Dim: p, OK: p, Warn: p, Danger: p,
		Selected: p, Added: p, Removed: p, Kept: p, BarFull: p, BarEmpty: p, Key: p,
		Status: p, Banner: p, TabOn: p, TabOff: p,
		Modal: lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).Padding(0, 1),
		plain: true,
	}
}
