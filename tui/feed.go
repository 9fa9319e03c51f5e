package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"

	"github.com/leasedeck/leasedeck/journal"
	"github.com/leasedeck/leasedeck/registry/record"
	"github.com/leasedeck/leasedeck/termtext"
)

// feedLine draws one journal line for the feed, in width cells.
func feedLine(t *theme, e entry, loc *time.Location, width int) string {
	l := e.record()
	var what, text string
	file := "lease"
	if e.Kind == journal.Audit {
		file = "audit"
		what = strings.TrimPrefix(l.Audit.EventType, "leasedeck.")
		text = auditText(what, &l.Audit)
	} else {
		what = string(l.Lease.Event)
		text = leaseRecordText(&l.Lease)
	}
	ts := "--:--:--"
	if at, err := time.Parse(time.RFC3339Nano, l.When()); err == nil {
		ts = at.In(loc).Format("15:04:05")
	}
	id := record.ShortID(l.LeaseID())
	if id == "" {
		id = "-"
	}
	style := feedStyle(t, what, &l)
	line := t.Muted.Render(ts+" "+file+" "+fitRight(fmt.Sprintf("#%d", e.Seq), 6)) + " " +
		style.Render(fit(what, 20)) + " " + t.Muted.Render(fit(id, 8)) + " " + termtext.Clean(text)
	return fit(line, width)
}

func feedStyle(t *theme, what string, l *record.Line) lipgloss.Style {
	switch {
	case strings.Contains(what, "denied"), strings.Contains(what, "refused"), strings.Contains(what, "revoked"),
		strings.Contains(what, "violated"):
		return t.Danger
	case what == "approval.decided":
		if l.Audit.Details.Outcome == "approved" {
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
func auditText(what string, a *record.Audit) string {
	det := &a.Details
	text := a.Summary
	switch what {
	case "approval.decided":
		out := det.Outcome
		if det.Scope == "lease" {
			out += " for the lease"
		} else if out == "approved" {
			out += " once"
		}
		if det.By != "" {
			out += " by " + det.By
		}
		text = out + ": " + text
	case "budget.spent":
		var parts []string
		if det.Tokens != nil {
			parts = append(parts, fmtNum(figure(det.Tokens))+" tokens")
		}
		if det.CostUSD != nil {
			parts = append(parts, fmtUSD(figure(det.CostUSD)))
		}
		if det.Steps != nil {
			parts = append(parts, fmtNum(figure(det.Steps))+" steps")
		}
		if det.Source != "" {
			acc := ""
			if det.Accurate != nil && !*det.Accurate {
				acc = ", not charged"
			}
			parts = append(parts, "("+det.Source+acc+")")
		}
		text = strings.Join(parts, " ")
	}
	if r := a.Reasoning; r != "" && (text == "" || strings.Contains(what, "denied") || strings.Contains(what, "violated") || strings.Contains(what, "finalized")) {
		if text != "" {
			text += " — "
		}
		text += r
	}
	return text
}

func leaseRecordText(r *record.Lease) string {
	switch r.Event {
	case record.Granted:
		sl := r.Signed()
		s, purpose := record.ManifestLabel(sl.Manifest)
		if purpose != "" {
			s += " · " + purpose
		}
		if sl.ParentLeaseID != "" {
			s += " (under " + record.ShortID(sl.ParentLeaseID) + ")"
		}
		return s
	case record.Refused:
		if r.Reason != "" {
			return r.Reason
		}
		return strings.Join(r.Reasons, ",")
	case record.Revoked:
		return "by " + record.ShortID(r.By) + ": " + r.Reason
	}
	return r.Reason
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
