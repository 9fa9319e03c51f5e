package tui

import (
	"github.com/leasedeck/leasedeck/registry/record"

	"fmt"
	"strings"
	"time"

	"github.com/leasedeck/leasedeck/registry"
)

// A closed lease explains itself at the top of the detail pane: when it
// closed, by whom, why, and what closed with it.

// closedView is what the detail pane says about a closed lease.
type closedView struct {
	Status  string    // revoked, expired, completed, stopped
	At      time.Time // when it closed (expires_at for one that ran out)
	By      string    // who closed it, in words
	Why     string
	Cascade []string // the leases below it closed with it: "name (id)"
	CutOff  int      // leases below it still open in their own record but unable to act
}

// computeClosed describes a closed lease, or reports false for an open or
// refused one (the Narrowing tab explains a refusal).
func computeClosed(d *deck, l *registry.LeaseState, now time.Time) (closedView, bool) {
	status := displayStatus(d.St, l, now)
	switch status {
	case "revoked", "expired", "completed", "stopped":
	default:
		return closedView{}, false
	}
	v := closedView{Status: status, At: l.ClosedAt, Why: l.Reason}
	if v.At.IsZero() {
		v.At = l.ExpiresAt // expired by the clock; the record has not arrived
	}
	switch status {
	case "revoked":
		v.By = byWhom(d, l)
		// A cascade's line reads "ancestor <id> revoked: <reason>": name
		// the ancestor and keep the human's reason.
		if rest, ok := strings.CutPrefix(l.Reason, "ancestor "); ok {
			if id, why, ok := strings.Cut(rest, " revoked: "); ok {
				name := id
				if a := d.St.Leases[id]; a != nil {
					name = a.Agent().Name + " (" + record.ShortID(id) + ")"
				}
				v.By = "the cascade from revoking " + name + ", by " + byWhom(d, d.St.Leases[id])
				v.Why = why
			}
		}
	case "expired":
		v.By = "its time limit"
		if v.Why == "" {
			v.Why = "it reached expires_at (" + fmtLeft(l.ExpiresAt.Sub(l.IssuedAt)) + " after issue)"
		}
	case "completed":
		v.By = "the agent"
		if v.Why == "" {
			v.Why = "the agent finished its session"
		}
	case "stopped":
		v.By = "an operator"
	}
	for _, id := range d.St.Subtree(l.ID) {
		c := d.St.Leases[id]
		if id == l.ID || c == nil || c.Status == registry.Refused {
			continue
		}
		switch {
		case c.Status == registry.Granted:
			if c.Open(now) {
				v.CutOff++
			}
		case !c.ClosedAt.IsZero() && !l.ClosedAt.IsZero() && absDur(c.ClosedAt.Sub(l.ClosedAt)) < time.Second:
			v.Cascade = append(v.Cascade, c.Agent().Name+" ("+record.ShortID(id)+")")
		}
	}
	return v, true
}

// byWhom names who revoked a lease: the operator (the issuer) or an
// ancestor lease, by name.
func byWhom(d *deck, l *registry.LeaseState) string {
	if l == nil {
		return "the issuer"
	}
	by := l.RevokedBy
	switch {
	case by == "" || by == "issuer":
		return "the operator (issuer)"
	case d.St.Leases[by] != nil:
		return "its ancestor " + d.St.Leases[by].Agent().Name + " (" + record.ShortID(by) + ")"
	}
	return by
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// renderClosed draws the explanation, width cells wide.
func renderClosed(t *theme, v closedView, loc *time.Location, now time.Time, width int) []string {
	var out []string
	add := func(s string) { out = append(out, fit(s, width)) }
	glyph, st := statusGlyph(t, v.Status, 0)
	ago := ""
	if d := now.Sub(v.At); d > 0 {
		ago = " (" + fmtLeft(d) + " ago)"
	}
	add(t.bold(st).Render(glyph+" "+strings.ToUpper(v.Status)) + " " + v.At.In(loc).Format("2006-01-02 15:04:05") + ago)
	labelled := func(label, text string) {
		for i, l := range wrapWords("", text, width-7) {
			p := "       "
			if i == 0 {
				p = t.Muted.Render(label)
			}
			add(p + l)
		}
	}
	labelled("  by   ", v.By)
	if v.Why != "" {
		labelled("  why  ", v.Why)
	}
	switch {
	case len(v.Cascade) > 0:
		for i, l := range wrapItems("", v.Cascade, width-12) {
			p := "            "
			if i == 0 {
				p = t.Muted.Render(fmt.Sprintf("  closed %-3d", len(v.Cascade)))
			}
			add(p + l)
		}
	case v.Status == "revoked":
		add(t.Muted.Render("  closed nothing else: no live lease below it"))
	}
	if v.CutOff > 0 {
		add(t.Warn.Render(fmt.Sprintf("  %d lease(s) below it are cut off: their chain is closed, so they cannot act", v.CutOff)))
	}
	add("")
	return out
}
