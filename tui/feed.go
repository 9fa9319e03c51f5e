package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"

	"github.com/leasedeck/leasedeck/journal"
)

// feedLine draws one journal line for the feed, in width cells.
func feedLine(t *theme, e entry, loc *time.Location, width int) string {
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

func feedStyle(t *theme, what string, v map[string]any) lipgloss.Style {
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

// feedPane draws the newest journal lines; cached until a line arrives
// or the width changes.
func (m *model) feedPane() []string {
	fc := &m.feedCache
	if fc.lines != nil && fc.n == m.deck.Lines && fc.w == m.w && fc.h == m.lay.feedH && fc.deck == m.deck {
		return fc.lines
	}
	t := m.theme
	out := make([]string, 0, m.lay.feedH+1)
	out = append(out, fit(t.Title.Render("Journal")+t.Muted.Render(fmt.Sprintf("  %d lines read", m.deck.Lines)), m.w))
	es := m.deck.Feed(m.lay.feedH)
	for _, e := range es {
		out = append(out, feedLine(t, e, m.loc, m.w))
	}
	for len(out) < m.lay.feedH+1 {
		out = append(out, strings.Repeat(" ", m.w))
	}
	*fc = feedCache{n: m.deck.Lines, w: m.w, h: m.lay.feedH, deck: m.deck, lines: out}
	return out
}

type feedCache struct {
	n, w, h int
	deck    *deck
	lines   []string
}
