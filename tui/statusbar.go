package tui

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/leasedeck/leasedeck/termtext"
)

// statusBar is what the bottom line says.
type statusBar struct {
	t          *theme
	Mode       string // EMBEDDED, ATTACHED, READ-ONLY
	Registry   string // "registry pid 123", "attached to pid 456", "registry pid 456 is GONE"
	Short      string // the same for a narrow terminal
	RegistryOK bool
	Socket     string
	Heads      [2]uint64
	ChainOK    bool
	MACs       bool
	Pending    int
	Sort       string
	Filter     string
	Clock      string
	Msg        string
	MsgErr     bool
	BellMuted  bool
}

// Render draws the status bar in width cells: the most
// important segments first, so a narrow terminal keeps them.
func (s statusBar) Render(width int) string {
	t := s.t
	sep := t.Status.Render(" │ ")
	seg := func(st lipgloss.Style, v string) string { return st.Inherit(t.Status).Render(v) }
	var parts []string
	compact := width < 120
	reg := s.Mode
	if r := s.Registry; r != "" {
		if compact && s.Short != "" {
			r = s.Short
		}
		reg = strings.TrimSpace(reg + " " + r)
	}
	if s.RegistryOK {
		parts = append(parts, seg(t.Text, reg))
	} else {
		parts = append(parts, seg(t.bold(t.Danger), reg))
	}
	if s.ChainOK {
		c := "chain ✓ verified"
		switch {
		case compact:
			c = "chain ✓"
		case !s.MACs:
			c = "chain ✓ (macs unchecked)"
		}
		parts = append(parts, seg(t.OK, c))
	} else {
		parts = append(parts, seg(t.bold(t.Danger), "chain ✗ BROKEN"))
	}
	pend := fmt.Sprintf("⚑ %d pending", s.Pending)
	if compact {
		pend = fmt.Sprintf("⚑ %d", s.Pending)
	}
	if s.BellMuted {
		pend += " (bell muted)"
	}
	if s.Pending > 0 {
		parts = append(parts, seg(t.bold(t.Warn), pend))
	} else {
		parts = append(parts, seg(t.Muted, pend))
	}
	// What just happened comes before the figures: on a narrow terminal
	// the answer to a keystroke must not be the part that is cut.
	if s.Msg != "" {
		st := t.Text
		if s.MsgErr {
			st = t.bold(t.Danger)
		}
		parts = append(parts, seg(st, s.Msg))
	}
	parts = append(parts, seg(t.Text, fmt.Sprintf("leases #%d audit #%d", s.Heads[0], s.Heads[1])))
	if s.Filter != "" {
		parts = append(parts, seg(t.Warn, "filter: "+s.Filter))
	}
	parts = append(parts, seg(t.Muted, "sort: "+s.Sort))
	if s.Socket != "" {
		parts = append(parts, seg(t.Muted, s.Socket))
	}
	clock := seg(t.Text, " "+s.Clock+" ")
	left := " " + strings.Join(parts, sep)
	room := width - ansi.StringWidth(clock)
	if room < 1 {
		return fit(t.Status.Render(left), width)
	}
	return t.Status.Render(fit(left, room)) + clock
}

// banner is a full-width red line (chain broken, registry gone).
func banner(t *theme, text string, width int) string {
	return t.Banner.Render(fit(" "+termtext.Clean(text), width))
}

func (m *model) statusLine() string {
	t := m.theme
	if m.overlay == filterOverlay {
		return t.Status.Render(fit(" / "+m.filterIn+"▏   enter apply · esc clear   (agent: purpose: status: tool: or any text)", m.w))
	}
	reg, short, ok := m.pidLabel()
	mode := m.opts.Mode.String()
	switch {
	case m.opts.Mode == Attached && m.regUp && m.opts.Actor != nil:
		mode = "" // "attached to pid N" says it
	case m.opts.Mode != ReadOnly && m.opts.Actor == nil:
		mode += " READ-ONLY"
	}
	sb := statusBar{t: t,
		Mode: mode, Registry: reg, Short: short, RegistryOK: ok, Socket: m.opts.Socket,
		Heads: m.heads, ChainOK: len(m.breaks) == 0, MACs: m.macs,
		Pending: len(m.deck.Pending()), Sort: m.tree.sort.String(), Filter: m.tree.filter.raw,
		Clock: m.now.In(m.loc).Format("15:04"), Msg: m.flash, MsgErr: m.flashErr, BellMuted: m.bellMuted,
	}
	return sb.Render(m.w)
}

func (m *model) banners() []string {
	var out []string
	if len(m.breaks) > 0 {
		more := ""
		if len(m.breaks) > 1 {
			more = fmt.Sprintf(" (and %d more)", len(m.breaks)-1)
		}
		out = append(out, "JOURNAL CHAIN BROKEN — read-only: "+m.breaks[0]+more)
	}
	if m.deck != nil && m.deck.FoldErrs > 0 {
		out = append(out, fmt.Sprintf("%d journal line(s) do not fold: %s", m.deck.FoldErrs, m.deck.LastErr))
	}
	if m.journalErr != "" {
		out = append(out, "cannot follow the journal: "+m.journalErr)
	}
	if !m.regUp && m.regPID > 0 {
		s := fmt.Sprintf("REGISTRY pid %d IS GONE — approvals and revocations are unavailable; run 'leasedeck' or 'leasedeck serve' to start one", m.regPID)
		if m.regErr != "" {
			s += " (" + m.regErr + ")"
		}
		out = append(out, s)
	}
	if len(out) > 2 {
		out = out[:2]
	}
	return out
}
