package tui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/leasedeck/leasedeck/registry"
	"github.com/leasedeck/leasedeck/termtext"
)

// The detail pane's tabs. Each is computed from domain values into a plain
// view value, then drawn by a pure renderer into lines the pane scrolls.

type tab int

const (
	tabNarrowing tab = iota
	tabBudget
	tabActivity
	tabLease
	tabCount
)

var tabNames = [...]string{"Narrowing", "Budget", "Activity", "Lease"}

// listDiff compares one list of the declaration with the grant.
type listDiff struct {
	Field   string
	Kept    []string // granted as declared
	Removed []string // declared, not granted
	Added   []string // granted, not declared: added by the parent (deny lists, approvals)
}

// budgetDiff compares one budget ceiling.
type budgetDiff struct {
	Field    string
	Declared string // "" when the declaration left it absent
	Granted  string // "" when the grant has none
}

// Change names what narrowing did to the ceiling.
func (b budgetDiff) Change() string {
	switch {
	case b.Declared == b.Granted:
		return "kept"
	case b.Declared == "":
		return "set by parent"
	case b.Granted == "":
		return "dropped"
	}
	return "clamped"
}

// narrowingView is the Narrowing tab: declared against granted, field by
// field, or the refusal with what each code means.
type narrowingView struct {
	Refused bool
	Codes   []string // "R2: narrowing leaves allow.tools empty"
	Reason  string
	Summary string // the `narrowed` record's summary
	Lists   []listDiff
	Budgets []budgetDiff
	Missing bool // the declaration is not in the journal
}

// computeNarrowing compares a lease's declaration with its grant.
func computeNarrowing(l *registry.LeaseState) narrowingView {
	v := narrowingView{Refused: l.Status == registry.Refused, Reason: l.Reason, Summary: l.Narrowing}
	for _, c := range l.Reasons {
		if m, ok := registry.RefusalMeaning[c]; ok {
			c += ": " + m
		}
		v.Codes = append(v.Codes, c)
	}
	decl, err := registry.ParseManifest(l.Declared)
	if err != nil || l.Declared == nil {
		v.Missing = true
		decl = &registry.Manifest{}
	}
	gr := l.Granted
	if gr == nil {
		gr = &registry.Manifest{}
	}
	lists := []struct {
		name string
		d, g []string
	}{
		{"allow.tools", decl.Allow.Tools, gr.Allow.Tools},
		{"allow.read_paths", decl.Allow.ReadPaths, gr.Allow.ReadPaths},
		{"allow.write_paths", decl.Allow.WritePaths, gr.Allow.WritePaths},
		{"allow.hosts", decl.Allow.Hosts, gr.Allow.Hosts},
		{"allow.commands", decl.Allow.Commands, gr.Allow.Commands},
		{"deny.commands", decl.Deny.Commands, gr.Deny.Commands},
		{"deny.paths", decl.Deny.Paths, gr.Deny.Paths},
		{"deny.hosts", decl.Deny.Hosts, gr.Deny.Hosts},
		{"approvals", decl.Approvals, gr.Approvals},
	}
	for _, x := range lists {
		d := listDiff{Field: x.name}
		if v.Refused {
			d.Kept = x.d // nothing was granted: show what was asked
		} else {
			for _, s := range x.d {
				if slices.Contains(x.g, s) {
					d.Kept = append(d.Kept, s)
				} else {
					d.Removed = append(d.Removed, s)
				}
			}
			for _, s := range x.g {
				if !slices.Contains(x.d, s) {
					d.Added = append(d.Added, s)
				}
			}
		}
		v.Lists = append(v.Lists, d)
	}
	for _, f := range registry.BudgetFields {
		var b budgetDiff
		b.Field = string(f)
		if x, ok := decl.Budget.Get(f); ok {
			b.Declared = budgetText(f, x)
		}
		if x, ok := gr.Budget.Get(f); ok && !v.Refused {
			b.Granted = budgetText(f, x)
		}
		if v.Refused {
			b.Granted = b.Declared
		}
		if b.Declared != "" || b.Granted != "" {
			v.Budgets = append(v.Budgets, b)
		}
	}
	return v
}

func budgetText(f registry.BudgetField, x float64) string {
	switch f {
	case registry.CostUSD:
		return fmtUSD(x)
	case registry.WallClockMs:
		return fmtLeft(time.Duration(x) * time.Millisecond)
	}
	return fmtNum(x)
}

// renderNarrowing draws the Narrowing tab.
func renderNarrowing(t *theme, n narrowingView, width int) []string {
	var out []string
	add := func(s string) { out = append(out, fit(s, width)) }
	if n.Refused {
		add(t.bold(t.Danger).Render("✗ REFUSED — nothing was granted"))
		for _, c := range n.Codes {
			add("  " + t.Danger.Render(termtext.Clean(c)))
		}
		if n.Reason != "" && !strings.Contains(strings.Join(n.Codes, "; "), n.Reason) {
			for _, l := range wrapWords("  reason: ", n.Reason, width) {
				add(t.Muted.Render(l))
			}
		}
		add("")
		add(t.Header.Render("what it declared"))
	} else {
		switch {
		case n.Missing:
			add(t.Muted.Render("the declaration is not in the journal; showing the grant"))
		case n.Summary == "":
			add(t.OK.Render("= granted as declared"))
		default:
			// One line: the fields below say the same in full.
			add(t.Warn.Render(fit("narrowed: "+termtext.Clean(n.Summary), width)))
		}
		add(t.Header.Render("declared → granted, field by field"))
	}
	for _, d := range n.Lists {
		if len(d.Kept)+len(d.Removed)+len(d.Added) == 0 {
			continue
		}
		var sum []string
		if len(d.Kept) > 0 {
			sum = append(sum, fmt.Sprintf("%d kept", len(d.Kept)))
		}
		if len(d.Removed) > 0 {
			sum = append(sum, fmt.Sprintf("%d removed", len(d.Removed)))
		}
		if len(d.Added) > 0 {
			sum = append(sum, fmt.Sprintf("%d added by parent", len(d.Added)))
		}
		if n.Refused {
			sum = []string{fmt.Sprintf("%d declared", len(d.Kept))}
		}
		add(t.bold(t.Text).Render(fmt.Sprintf("%-18s", d.Field)) + t.Muted.Render(strings.Join(sum, ", ")))
		if n.Refused {
			for _, l := range wrapItems("  = ", d.Kept, width) {
				add(t.Kept.Render(l))
			}
		} else if len(d.Kept) > 0 {
			// What was kept matters less than what changed: one line.
			add(t.Kept.Render(fit("  = "+strings.Join(d.Kept, ", "), width)))
		}
		for _, l := range wrapItems("  − ", d.Removed, width) {
			add(t.Removed.Render(l))
		}
		for _, l := range wrapItems("  + ", d.Added, width) {
			add(t.Added.Render(l))
		}
	}
	if len(n.Budgets) > 0 {
		add(t.bold(t.Text).Render("budget"))
		for _, b := range n.Budgets {
			decl, gr := b.Declared, b.Granted
			if decl == "" {
				decl = "—"
			}
			if gr == "" {
				gr = "—"
			}
			ch := b.Change()
			st := t.Muted
			line := fmt.Sprintf("  %-14s %s", b.Field, decl)
			if !n.Refused {
				switch ch {
				case "clamped":
					st = t.Removed
				case "set by parent":
					st = t.Added
				}
				line = fmt.Sprintf("  %-14s %8s → %-8s", b.Field, decl, gr)
				line += " " + st.Render(ch)
			}
			add(line)
		}
	}
	return out
}

// budgetView is the Budget tab.
type budgetView struct {
	Live      bool
	Gauges    []gaugeLine
	Sparkline []float64 // steps per bucket since issue
	Span      time.Duration
	Tokens    []float64 // tokens per bucket
}

// gaugeLine is one ceiling and how much of it is used.
type gaugeLine struct {
	Name   string
	Used   float64
	Max    float64
	HasMax bool
	Note   string
}

// computeBudget measures a lease's budgets at now.
func computeBudget(d *deck, l *registry.LeaseState, now time.Time, buckets int) budgetView {
	st := d.St
	v := budgetView{}
	if l.Granted == nil {
		return v
	}
	v.Live, _ = st.Live(l.ID, now)
	rem := st.Remaining(l.ID, now)
	g := l.Granted.Budget
	add := func(f registry.BudgetField, used float64, fmtv func(float64) string) {
		gl := gaugeLine{Name: string(f), Used: used}
		if x, ok := g.Get(f); ok {
			gl.Max, gl.HasMax = x, true
			gl.Note = fmtv(used) + " of " + fmtv(x)
			if r, ok := rem.Get(f); ok && v.Live && r < x-used {
				gl.Note += " · " + fmtv(r) + " left on the chain"
			}
		} else {
			gl.Note = fmtv(used) + " (no ceiling)"
		}
		v.Gauges = append(v.Gauges, gl)
	}
	add(registry.Steps, l.Spent.Steps, fmtNum)
	add(registry.Tokens, l.Spent.Tokens, fmtNum)
	add(registry.CostUSD, l.Spent.CostUSD, fmtUSD)
	life := l.ExpiresAt.Sub(l.IssuedAt)
	end := now
	if !l.ClosedAt.IsZero() && l.ClosedAt.Before(end) {
		end = l.ClosedAt
	}
	if end.After(l.ExpiresAt) {
		end = l.ExpiresAt
	}
	elapsed := end.Sub(l.IssuedAt)
	tl := gaugeLine{Name: "time", Used: float64(elapsed), Max: float64(life), HasMax: life > 0}
	tl.Note = fmtLeft(elapsed) + " of " + fmtLeft(life)
	if l.Status == registry.Granted && now.Before(l.ExpiresAt) {
		tl.Note += " · " + fmtLeft(l.ExpiresAt.Sub(now)) + " left"
	}
	v.Gauges = append(v.Gauges, tl)
	live := st.LiveChildren(l.ID, now)
	fo := gaugeLine{Name: "fan_out", Used: float64(live)}
	if x, ok := g.Get(registry.FanOut); ok {
		fo.Max, fo.HasMax = x, true
		fo.Note = fmt.Sprintf("%d live of %s children", live, fmtNum(x))
	} else {
		fo.Note = fmt.Sprintf("%d live children", live)
	}
	v.Gauges = append(v.Gauges, fo)
	if x, ok := g.Get(registry.Depth); ok {
		v.Gauges = append(v.Gauges, gaugeLine{Name: "depth", Note: fmt.Sprintf("may delegate %s more level(s); generation %d", fmtNum(x), st.Generation(l.ID))})
	}
	// Spend over time: this lease's own charges in equal buckets from
	// issue to now (or to its close).
	if buckets > 0 && elapsed > 0 {
		v.Span = elapsed
		v.Sparkline, v.Tokens = l.SpendSeries.Buckets(buckets, elapsed)
	}
	return v
}

// renderBudget draws the Budget tab.
func renderBudget(t *theme, v budgetView, width int) []string {
	var out []string
	add := func(s string) { out = append(out, fit(s, width)) }
	if len(v.Gauges) == 0 {
		add(t.Muted.Render("a refused manifest has no budget"))
		return out
	}
	gw := min(max(width-12-30, 8), 24)
	for _, g := range v.Gauges {
		bar := strings.Repeat(" ", gw)
		if g.HasMax {
			bar = renderGauge(t, gw, g.Used, g.Max)
		}
		if g.Name == "depth" {
			bar = strings.Repeat(" ", gw)
		}
		add(fmt.Sprintf("%-9s ", g.Name) + bar + " " + t.Muted.Render(g.Note))
	}
	if len(v.Sparkline) > 0 {
		add("")
		add(t.Header.Render("spend over time") + t.Muted.Render(" (since issue, "+fmtLeft(v.Span)+")"))
		add(fmt.Sprintf("%-9s ", "steps") + t.BarFull.Render(sparkline(v.Sparkline)))
		if slices.ContainsFunc(v.Tokens, func(f float64) bool { return f > 0 }) {
			add(fmt.Sprintf("%-9s ", "tokens") + t.BarFull.Render(sparkline(v.Tokens)))
		}
	}
	return out
}

// renderActivity draws a lease's gate decisions, newest first.
func renderActivity(t *theme, evs []registry.GateEvent, loc *time.Location, width int) []string {
	var out []string
	if len(evs) == 0 {
		return []string{fit(t.Muted.Render("no gate decisions yet"), width)}
	}
	for i := len(evs) - 1; i >= 0; i-- {
		e := evs[i]
		st := t.OK
		switch e.Decision {
		case "deny", "block":
			st = t.Danger
		case "ask":
			st = t.Warn
		}
		what := e.Summary
		if what == "" {
			what = e.Tool
		}
		out = append(out, fit(t.Muted.Render(e.At.In(loc).Format("15:04:05"))+" "+st.Render(fmt.Sprintf("%-5s", e.Decision))+" "+
			fmt.Sprintf("%-9s ", termtext.Clean(e.Tool))+termtext.Clean(what), width))
		// An allow's reason is worth a line only when it says more than
		// the usual (a human approved it, say).
		if e.Reason != "" && (e.Decision != "allow" || e.Reason != "within the lease") {
			out = append(out, fit(t.Muted.Render("               "+termtext.Clean(e.Reason)), width))
		}
	}
	return out
}

// leaseDoc is the Lease tab: the signed JSON and whether it verifies.
type leaseDoc struct {
	Refused  bool
	Checked  bool // a key was available
	Problems []string
	KeyFP    string
	JSON     []string
}

// renderLease draws the Lease tab.
func renderLease(t *theme, d leaseDoc, width int) []string {
	var out []string
	add := func(s string) { out = append(out, fit(s, width)) }
	switch {
	case d.Refused:
		add(t.Muted.Render("refused: no lease was signed"))
	case !d.Checked:
		add(t.Warn.Render("signature not checked: the workspace key is not readable"))
	case len(d.Problems) == 0:
		add(t.OK.Render("✓ signature verified with the workspace key " + d.KeyFP))
	default:
		add(t.bold(t.Danger).Render("✗ NOT VERIFIED with the workspace key " + d.KeyFP))
		for _, p := range d.Problems {
			add("  " + t.Danger.Render(termtext.Clean(p)))
		}
	}
	add("")
	for _, l := range d.JSON {
		add(termtext.Clean(l))
	}
	return out
}
