package tui

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/leasedeck/leasedeck/registry"
	"github.com/leasedeck/leasedeck/termtext"
)

// leaseRow is everything one row of the tree shows.
type leaseRow struct {
	t         *theme
	Depth     int
	HasKids   bool
	Expanded  bool
	Selected  bool
	Context   bool   // shown only as an ancestor of a filter match
	Status    string // displayStatus
	Pending   int    // approvals waiting on this lease
	Confine   confinementKind
	Refused   bool // nothing was granted, so nothing runs: no confinement cell
	Agent     string
	Purpose   string
	Steps     float64 // spent by this lease and its descendants
	StepsMax  float64 // granted ceiling
	HasSteps  bool
	Live      int // live children
	FanOut    float64
	HasFanOut bool
	DepthLeft float64
	HasDepth  bool
	Left      string // time left, or what closed it
}

// statusGlyph is a status as one cell, with the style that colours it.
func statusGlyph(t *theme, status string, pending int) (string, lipgloss.Style) {
	switch {
	case pending > 0 && status == "live":
		return "◆", t.Warn
	case status == "live":
		return "●", t.OK
	case status == "granted":
		return "○", t.Dim
	case status == "refused":
		return "✗", t.Danger
	case status == "revoked":
		return "⊘", t.Danger
	case status == "expired":
		return "◌", t.Dim
	case status == "completed":
		return "✓", t.Dim
	case status == "stopped":
		return "■", t.Dim
	}
	return "?", t.Muted
}

// rowCols is the column layout of the tree for a width.
type rowCols struct {
	agent, purpose int
	bar, steps     int // 0: column dropped
}

const (
	colKids = 5
	colDep  = 3
	colLeft = 9
)

func layoutRow(width, indent int) rowCols {
	c := rowCols{bar: 8, steps: 9}
	right := 1 + c.bar + 1 + c.steps + 1 + colKids + 1 + colDep + 1 + colLeft
	if width < 72 {
		c.bar, c.steps = 0, 0
		right = 1 + colKids + 1 + colDep + 1 + colLeft
	}
	rest := width - right - rowLead - indent
	c.agent = min(max(rest/2, 8), 30)
	c.purpose = max(rest-c.agent-1, 0)
	if rest < c.agent {
		c.agent = max(rest, 0)
	}
	return c
}

func indentOf(depth int) int { return min(depth, 8) * 2 }

// rowLead is the cells before the agent's name: the cursor mark, the
// expander, the status glyph and the confinement glyph, each with a space.
const rowLead = 7

// renderLeaseHeader is the tree's column header for a width.
func renderLeaseHeader(t *theme, width int) string {
	c := layoutRow(width, 0)
	var b strings.Builder
	b.WriteString(strings.Repeat(" ", rowLead))
	b.WriteString(fit("AGENT", c.agent))
	if c.purpose > 0 {
		b.WriteString(" " + fit("PURPOSE", c.purpose))
	}
	if c.bar > 0 {
		b.WriteString(" " + fit("STEPS", c.bar) + " " + fitRight("used/max", c.steps))
	}
	b.WriteString(" " + fitRight("KIDS", colKids) + " " + fitRight("D", colDep) + " " + fitRight("LEFT", colLeft))
	return t.Header.Render(fit(b.String(), width))
}

// Render draws one lease in exactly width cells.
func (r leaseRow) Render(width int) string {
	t := r.t
	ind := indentOf(r.Depth)
	c := layoutRow(width, ind)
	closed := r.Status != "live"
	text, muted := t.Text, t.Muted
	if closed || r.Context {
		text, muted = t.Dim, t.Dim
	}
	plain := r.Selected // a selected row is drawn plain on the selection background
	st := func(s lipgloss.Style, v string) string {
		if plain {
			return v
		}
		return s.Render(v)
	}
	exp := " "
	if r.HasKids {
		exp = "▸"
		if r.Expanded {
			exp = "▾"
		}
	}
	glyph, gs := statusGlyph(t, r.Status, r.Pending)
	var b strings.Builder
	mark := " "
	if r.Selected {
		mark = "▌"
	}
	b.WriteString(mark)
	if r.Depth > 0 {
		// A child (a subagent's lease) is marked as one; a session's
		// row is not, and its name is bold.
		b.WriteString(strings.Repeat(" ", ind-1) + st(muted, "↳"))
	} else {
		text = t.bold(text)
	}
	b.WriteString(st(muted, exp) + " ")
	b.WriteString(st(gs, glyph) + " ")
	if r.Refused {
		b.WriteString("  ")
	} else {
		cg, cs := confinementGlyph(t, r.Confine)
		b.WriteString(st(cs, cg) + " ")
	}
	b.WriteString(st(text, fit(termtext.Clean(r.Agent), c.agent)))
	if c.purpose > 0 {
		b.WriteString(" " + st(muted, fit(termtext.Clean(r.Purpose), c.purpose)))
	}
	if c.bar > 0 {
		if r.HasSteps {
			if plain {
				b.WriteString(" " + gauge(c.bar, r.Steps/r.StepsMax))
			} else {
				b.WriteString(" " + renderGauge(t, c.bar, r.Steps, r.StepsMax))
			}
			b.WriteString(" " + st(muted, fitRight(fmtNum(r.Steps)+"/"+fmtNum(r.StepsMax), c.steps)))
		} else {
			b.WriteString(" " + strings.Repeat(" ", c.bar) + " " + st(muted, fitRight("—", c.steps)))
		}
	}
	kids := "—"
	if r.HasFanOut {
		kids = fmt.Sprintf("%d/%s", r.Live, fmtNum(r.FanOut))
	}
	dep := "—"
	if r.HasDepth {
		dep = "d" + fmtNum(r.DepthLeft)
	}
	left := r.Left
	ls := muted
	switch r.Status {
	case "refused", "revoked":
		ls = t.Danger
	}
	if r.Pending > 0 && r.Status == "live" {
		left, ls = fmt.Sprintf("%d asks", r.Pending), t.Warn
	}
	b.WriteString(" " + st(muted, fitRight(kids, colKids)))
	b.WriteString(" " + st(muted, fitRight(dep, colDep)))
	b.WriteString(" " + st(ls, fitRight(left, colLeft)))
	out := fit(b.String(), width)
	if plain {
		return t.Selected.Render(out)
	}
	return out
}

type rowKey struct {
	id                          string
	width                       int
	ver                         uint64
	left                        string
	selected, expanded, context bool
	status                      string
}

// refusedLabel is a refused lease's agent and purpose columns: the name
// it declared (or that its manifest was invalid) and the refusal.
func refusedLabel(l *registry.LeaseState) (agent, purpose string) {
	a := l.Agent()
	agent = a.Name
	if agent == "" {
		if ag, ok := l.Declared["agent"].(map[string]any); ok {
			agent, _ = ag["name"].(string)
		}
	}
	if agent == "" {
		agent = "(invalid manifest)"
	}
	why := l.Reason
	if why == "" && len(l.Reasons) > 0 {
		why = strings.Join(l.Reasons, ", ")
		if m, ok := registry.RefusalMeaning[l.Reasons[0]]; ok {
			why = l.Reasons[0] + ": " + m
		}
	}
	if why == "" {
		why = "refused"
	}
	return agent, "refused: " + why
}

// row renders one visible row through the cache: a row is redrawn only
// when its lease's version, its width, its time-left text or its
// selection changed.
func (m *model) row(r row, selected bool, w int) string {
	l := m.deck.St.Leases[r.id]
	if l == nil {
		return strings.Repeat(" ", w)
	}
	status := displayStatus(m.deck.St, l, m.now)
	left := status
	if status == "live" || status == "granted" {
		left = fmtLeft(l.ExpiresAt.Sub(m.now))
	}
	k := rowKey{id: r.id, width: w, ver: m.deck.Version(r.id), left: left, selected: selected,
		expanded: !m.tree.collapsed[r.id], context: r.context, status: status}
	if s, ok := m.rows[k]; ok {
		return s
	}
	a := l.Agent()
	lr := leaseRow{t: m.theme, Depth: r.depth, HasKids: r.hasKids, Expanded: k.expanded, Selected: selected,
		Context: r.context, Status: status, Pending: m.deck.PendingFor(r.id),
		Confine: kindOf(m.deck.St.ConfinementOf(r.id)), Refused: l.Status == registry.Refused,
		Agent: a.Name, Purpose: l.Purpose(), Steps: l.Spent.Steps, Left: left}
	if lr.Agent == "" {
		lr.Agent = a.RuntimeAgent
	}
	if l.Status == registry.Refused {
		// A refused manifest may not even parse: the row says what was
		// refused and why, never nothing.
		lr.Agent, lr.Purpose = refusedLabel(l)
	}
	if l.Granted != nil {
		g := l.Granted.Budget
		lr.StepsMax, lr.HasSteps = g.Get(registry.Steps)
		lr.HasSteps = lr.HasSteps && lr.StepsMax > 0
		lr.FanOut, lr.HasFanOut = g.Get(registry.FanOut)
		lr.DepthLeft, lr.HasDepth = g.Get(registry.Depth)
		lr.Live = m.deck.St.LiveChildren(r.id, m.now)
	}
	s := lr.Render(w)
	if len(m.rows) > 8192 {
		clear(m.rows)
	}
	m.rows[k] = s
	return s
}
