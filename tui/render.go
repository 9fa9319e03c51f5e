package tui

import (
	"fmt"
	"math"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/leasedeck/leasedeck/journal"
)

// Pure renderers (UI rule 4): plain values in, strings out. No state, no
// clock, no I/O; the model decides what to show and caches the results.

// fit cuts s to exactly w cells (ANSI-aware), padding with spaces.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	sw := ansi.StringWidth(s)
	if sw > w {
		s = ansi.Truncate(s, w, "…")
		sw = ansi.StringWidth(s)
	}
	if sw < w {
		s += strings.Repeat(" ", w-sw)
	}
	return s
}

// fitRight is fit with the text aligned right.
func fitRight(s string, w int) string {
	sw := ansi.StringWidth(s)
	if sw >= w {
		return fit(s, w)
	}
	return strings.Repeat(" ", w-sw) + s
}

// Gauge draws a bar of width cells, frac full, in eighths of a cell.
func Gauge(width int, frac float64) string {
	if width <= 0 {
		return ""
	}
	if math.IsNaN(frac) || frac < 0 {
		frac = 0
	}
	if frac > 1 {
		frac = 1
	}
	eighths := int(math.Round(frac * float64(width*8)))
	full, part := eighths/8, eighths%8
	var b strings.Builder
	b.WriteString(strings.Repeat("█", full))
	if part > 0 {
		b.WriteRune([]rune("▏▎▍▌▋▊▉")[part-1])
		full++
	}
	b.WriteString(strings.Repeat("░", width-full))
	return b.String()
}

// RenderGauge is Gauge with the theme's bar styles; over 90% it warns.
func RenderGauge(t *Theme, width int, used, total float64) string {
	if total <= 0 {
		return t.BarEmpty.Render(strings.Repeat("░", max(width, 0)))
	}
	g := Gauge(width, used/total)
	i := strings.IndexRune(g, '░')
	if i < 0 {
		i = len(g)
	}
	full := t.BarFull
	if used/total >= 0.9 {
		full = t.Warn
	}
	return full.Render(g[:i]) + t.BarEmpty.Render(g[i:])
}

// Sparkline draws values as block heights scaled to the largest.
func Sparkline(vals []float64) string {
	blocks := []rune("▁▂▃▄▅▆▇█")
	var top float64
	for _, v := range vals {
		top = max(top, v)
	}
	var b strings.Builder
	for _, v := range vals {
		switch {
		case v <= 0 || top <= 0:
			b.WriteRune(' ')
		default:
			i := int(math.Ceil(v/top*8)) - 1
			b.WriteRune(blocks[min(max(i, 0), 7)])
		}
	}
	return b.String()
}

// LeaseRow is everything one row of the tree shows.
type LeaseRow struct {
	Depth     int
	HasKids   bool
	Expanded  bool
	Selected  bool
	Context   bool   // shown only as an ancestor of a filter match
	Status    string // displayStatus
	Pending   int    // approvals waiting on this lease
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

// StatusGlyph is a status as one cell, with the style that colours it.
func StatusGlyph(t *Theme, status string, pending int) (string, lipgloss.Style) {
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
	rest := width - right - 5 - indent
	c.agent = min(max(rest/2, 8), 30)
	c.purpose = max(rest-c.agent-1, 0)
	if rest < c.agent {
		c.agent = max(rest, 0)
	}
	return c
}

func indentOf(depth int) int { return min(depth, 8) * 2 }

// RenderLeaseHeader is the tree's column header for a width.
func RenderLeaseHeader(t *Theme, width int) string {
	c := layoutRow(width, 0)
	var b strings.Builder
	b.WriteString("     ")
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

// RenderLeaseRow draws one lease in exactly width cells.
func RenderLeaseRow(t *Theme, r LeaseRow, width int) string {
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
	glyph, gs := StatusGlyph(t, r.Status, r.Pending)
	var b strings.Builder
	mark := " "
	if r.Selected {
		mark = "▌"
	}
	b.WriteString(mark)
	b.WriteString(strings.Repeat(" ", ind))
	b.WriteString(st(muted, exp) + " ")
	b.WriteString(st(gs, glyph) + " ")
	b.WriteString(st(text, fit(clean(r.Agent), c.agent)))
	if c.purpose > 0 {
		b.WriteString(" " + st(muted, fit(clean(r.Purpose), c.purpose)))
	}
	if c.bar > 0 {
		if r.HasSteps {
			if plain {
				b.WriteString(" " + Gauge(c.bar, r.Steps/r.StepsMax))
			} else {
				b.WriteString(" " + RenderGauge(t, c.bar, r.Steps, r.StepsMax))
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

// FeedLine draws one journal line for the feed, in width cells.
func FeedLine(t *Theme, e Entry, loc *time.Location, width int) string {
	v := e.Value
	var when, what, text string
	file := "lease"
	if e.Kind == journal.Audit {
		file = "audit"
		when, what = str(v, "timestamp"), strings.TrimPrefix(str(v, "event_type"), "leasedeck.")
		text = auditText(what, v)
	} else {
		when, what = str(v, "at"), str(v, "event")
		text = leaseRecordText(v)
	}
	ts := "--:--:--"
	if at, err := time.Parse(time.RFC3339Nano, when); err == nil {
		ts = at.In(loc).Format("15:04:05")
	}
	id := shortID(leaseOf(&e))
	if id == "" {
		id = "-"
	}
	style := feedStyle(t, what, v)
	line := t.Muted.Render(ts+" "+file+" "+fitRight(fmt.Sprintf("#%d", e.Seq), 6)) + " " +
		style.Render(fit(what, 20)) + " " + t.Muted.Render(fit(id, 8)) + " " + clean(text)
	return fit(line, width)
}

func feedStyle(t *Theme, what string, v map[string]any) lipgloss.Style {
	switch {
	case strings.Contains(what, "denied"), strings.Contains(what, "refused"), strings.Contains(what, "revoked"),
		strings.Contains(what, "violated"):
		return t.Danger
	case what == "approval.decided":
		det, _ := v["details"].(map[string]any)
		if str(det, "outcome") == "approved" {
			return t.OK
		}
		return t.Danger
	case strings.Contains(what, "held"), strings.Contains(what, "requested"):
		return t.Warn
	case strings.Contains(what, "allowed"), what == "granted":
		return t.OK
	}
	return t.Text
}

// auditText says what an audit line recorded, in one line.
func auditText(what string, v map[string]any) string {
	det, _ := v["details"].(map[string]any)
	text := str(v, "summary")
	switch what {
	case "approval.decided":
		out := str(det, "outcome")
		if sc := str(det, "scope"); sc == "lease" {
			out += " for the lease"
		} else if out == "approved" {
			out += " once"
		}
		if by := str(det, "by"); by != "" {
			out += " by " + by
		}
		text = out + ": " + text
	case "budget.spent":
		var parts []string
		if x, ok := det["tokens"]; ok {
			parts = append(parts, fmtNum(num(x))+" tokens")
		}
		if x, ok := det["cost_usd"]; ok {
			parts = append(parts, fmtUSD(num(x)))
		}
		if x, ok := det["steps"]; ok {
			parts = append(parts, fmtNum(num(x))+" steps")
		}
		if s := str(det, "source"); s != "" {
			acc := ""
			if b, ok := det["accurate"].(bool); ok && !b {
				acc = ", not charged"
			}
			parts = append(parts, "("+s+acc+")")
		}
		text = strings.Join(parts, " ")
	}
	if r := str(v, "reasoning"); r != "" && (text == "" || strings.Contains(what, "denied") || strings.Contains(what, "violated") || strings.Contains(what, "finalized")) {
		if text != "" {
			text += " — "
		}
		text += r
	}
	return text
}

func leaseRecordText(v map[string]any) string {
	switch str(v, "event") {
	case "granted":
		lease, _ := v["lease"].(map[string]any)
		man, _ := lease["manifest"].(map[string]any)
		agent, _ := man["agent"].(map[string]any)
		intent, _ := man["intent"].(map[string]any)
		s := str(agent, "name")
		if p := str(intent, "purpose"); p != "" {
			s += " · " + p
		}
		if p := str(lease, "parent_lease_id"); p != "" {
			s += " (under " + shortID(p) + ")"
		}
		return s
	case "refused":
		var codes []string
		if rs, ok := v["reasons"].([]any); ok {
			for _, r := range rs {
				codes = append(codes, fmt.Sprint(r))
			}
		}
		if r := str(v, "reason"); r != "" {
			return r
		}
		return strings.Join(codes, ",")
	case "revoked":
		return "by " + shortID(str(v, "by")) + ": " + str(v, "reason")
	}
	return str(v, "reason")
}

// StatusBar is what the bottom line says.
type StatusBar struct {
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
}

// RenderStatusBar draws the status bar in width cells: the most
// important segments first, so a narrow terminal keeps them.
func RenderStatusBar(t *Theme, s StatusBar, width int) string {
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

// Banner is a full-width red line (chain broken, registry gone).
func Banner(t *Theme, text string, width int) string {
	return t.Banner.Render(fit(" "+clean(text), width))
}

// ApprovalCard is what the approval modal shows.
type ApprovalCard struct {
	Agent, Client string
	Lease         string // short id
	Purpose       string
	Tool          string
	Summary       string // redacted by the registry
	Why           string
	Names         []string
	Left          time.Duration // until the deadline
	Guard         bool          // keys are ignored for now
	Typing        bool          // a deny reason is being typed
	Reason        string
	Sending       string // "approving…", "denying…"
	More          int    // requests waiting behind this one
	Err           string
}

// RenderApproval draws the approval modal, width cells wide.
func RenderApproval(t *Theme, c ApprovalCard, width int) string {
	inner := max(width-4, 10)
	var lines []string
	head := t.bold(t.Warn).Render("⚑ APPROVAL NEEDED")
	if c.More > 0 {
		head += t.Muted.Render(fmt.Sprintf("   %d more waiting", c.More))
	}
	lines = append(lines, head, "")
	field := func(name, v string, st lipgloss.Style) {
		lines = append(lines, fit(t.Muted.Render(fmt.Sprintf("%-8s", name))+st.Render(clean(v)), inner))
	}
	agent := c.Agent
	if c.Client != "" && !strings.Contains(agent, c.Client) {
		agent += " [" + c.Client + "]"
	}
	field("agent", agent, t.Text)
	field("lease", c.Lease+"  "+c.Purpose, t.Text)
	field("tool", c.Tool, t.bold(t.Text))
	field("call", c.Summary, t.Text)
	field("why", c.Why, t.Warn)
	if len(c.Names) > 0 {
		field("needs", strings.Join(c.Names, ", "), t.Muted)
	}
	left := "expires in " + fmtLeft(c.Left) + " (then denied)"
	if c.Left <= 0 {
		left = "deadline passed: the registry denies it"
	}
	lines = append(lines, fit(t.Muted.Render(left), inner), "")
	switch {
	case c.Sending != "":
		lines = append(lines, t.Muted.Render(c.Sending))
	case c.Typing:
		lines = append(lines, fit("Deny reason (optional): "+c.Reason+"▏", inner),
			t.Key.Render("enter")+" deny   "+t.Key.Render("esc")+" back")
	default:
		deny := t.reverse(t.bold(t.Danger)).Render(" n Deny ")
		lines = append(lines,
			deny+"  "+t.Key.Render("y")+" approve once  "+t.Key.Render("Y")+" approve for this lease  "+t.Key.Render("esc")+" later",
			t.Muted.Render("enter denies; it never approves"))
	}
	if c.Guard {
		lines = append(lines, t.Warn.Render("… keys ignored for a moment, so a stray keystroke cannot decide"))
	}
	if c.Err != "" {
		lines = append(lines, fit(t.Danger.Render("✗ "+clean(c.Err)), inner))
	}
	for i := range lines {
		lines[i] = fit(lines[i], inner)
	}
	return t.Modal.Width(width).Render(strings.Join(lines, "\n"))
}

// RevokeCard is what the revoke confirmation shows.
type RevokeCard struct {
	Lease   string // short id
	Agent   string
	Purpose string
	Cascade int // live leases the cascade closes, this one included
	Reason  string
	Sending bool
	Err     string
}

// RenderRevoke draws the revoke confirmation with its blast radius.
func RenderRevoke(t *Theme, c RevokeCard, width int) string {
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
		clean(c.Agent) + t.Muted.Render(" — "+clean(c.Purpose)),
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
		lines = append(lines, t.Danger.Render("✗ "+clean(c.Err)))
	}
	for i := range lines {
		lines[i] = fit(lines[i], inner)
	}
	return t.Modal.Width(width).Render(strings.Join(lines, "\n"))
}

// HelpLines is the help screen's content, generated from the key map
// (UI rule 6).
func HelpLines(t *Theme, k KeyMap, inner int) []string {
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

// RenderHelp draws the help screen, width cells wide and at most height
// lines tall, scrolled to offset when it does not fit.
func RenderHelp(t *Theme, k KeyMap, width, height, offset int) string {
	inner := max(width-4, 10)
	lines := HelpLines(t, k, inner)
	room := max(height-2, 3) // the frame takes two lines
	if len(lines) > room {
		offset = min(max(offset, 0), len(lines)-room+1)
		lines = append(lines[offset:offset+room-1:offset+room-1], t.Muted.Render(fmt.Sprintf("j/k scroll · %d–%d of %d", offset+1, offset+room-1, len(lines))))
	}
	for i := range lines {
		lines[i] = fit(lines[i], inner)
	}
	return t.Modal.Width(width).Render(strings.Join(lines, "\n"))
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
