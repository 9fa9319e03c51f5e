package tui

import (
	"fmt"
	"sort"
	"time"

	"github.com/leasedeck/leasedeck/registry"
	"github.com/leasedeck/leasedeck/registry/record"
	"github.com/leasedeck/leasedeck/termtext"
)

// Calls asked in the client (policy approvals.where "client"): the
// approvals view lists them under the queue, marked as decided in the
// client's own prompt, with what its events said became of them. They are
// not requests: nothing here can approve or deny them.

// maxAskedShown bounds the asked-in-the-client rows the view shows.
const maxAskedShown = 5

// askedRow is one call asked in the client as the view lists it.
type askedRow struct {
	ask   registry.ClientAsk
	agent string
}

// askedRows are the open asks (oldest first), then the latest answered
// ones, newest first, at most maxAskedShown in all.
func (m *model) askedRows() []askedRow {
	st := m.deck.St
	var open []registry.ClientAsk
	for _, c := range st.ClientAsks {
		open = append(open, *c)
	}
	sort.Slice(open, func(i, j int) bool { return open[i].AskedAt.Before(open[j].AskedAt) })
	for i := len(st.AnsweredAsks) - 1; i >= 0 && len(open) < maxAskedShown; i-- {
		open = append(open, st.AnsweredAsks[i])
	}
	if len(open) > maxAskedShown {
		open = open[:maxAskedShown]
	}
	rows := make([]askedRow, 0, len(open))
	for _, c := range open {
		r := askedRow{ask: c}
		if l := st.Leases[c.LeaseID]; l != nil {
			r.agent = l.Agent().Name
		}
		rows = append(rows, r)
	}
	return rows
}

// askedOutcome says in words what became of an ask.
func askedOutcome(c registry.ClientAsk) string {
	switch c.Outcome {
	case "":
		return "waiting (outcome unknown)"
	case registry.AskAllowedByUser:
		return "allowed by the user"
	case registry.AskDeclined:
		return "declined"
	}
	return termtext.Clean(c.Outcome)
}

// renderAsked draws the section: a title and one line per ask.
func renderAsked(t *theme, rows []askedRow, agentW, inner int, now time.Time) []string {
	out := []string{fit(t.Header.Render("ASKED IN THE CLIENT")+t.Muted.Render(" — its own permission prompt decides these, not the cockpit"), inner)}
	for _, r := range rows {
		c := r.ask
		st := t.Warn
		switch c.Outcome {
		case registry.AskAllowedByUser:
			st = t.OK
		case registry.AskDeclined:
			st = t.Muted
		}
		line := fmt.Sprintf("   %-6s %-7s %s %-8s %-9s %s", fmtLeft(now.Sub(c.AskedAt)), "client", fit(termtext.Clean(r.agent), agentW),
			record.ShortID(c.LeaseID), fit(termtext.Clean(c.Tool), 9), termtext.Clean(c.Summary))
		out = append(out, fit(fit(line, max(inner-27, 20))+" "+st.Render(askedOutcome(c)), inner))
	}
	out = append(out, "")
	return out
}
