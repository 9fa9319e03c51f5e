package tui

import (
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/leasedeck/leasedeck/registry"
)

func (m *model) filterKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Filter.Apply):
		m.overlay = noOverlay
		return m.syncApproval()
	case key.Matches(msg, m.keys.Filter.Clear):
		m.filterIn = ""
		m.tree.filter = filterQuery{}
		m.tree.rebuild(m.deck, m.now)
		m.overlay = noOverlay
		return m.syncApproval()
	}
	if s, ok := editText(m.filterIn, msg, m.keys.Reason.Clear); ok {
		m.filterIn = s
		m.tree.filter = parseFilter(s)
		m.tree.rebuild(m.deck, m.now)
	}
	return nil
}

// filterQuery is what `/` typed: space-separated terms, each either
// field:value (agent, purpose, status, tool, id) or plain text matched
// against agent, purpose, status and id. Every term must match.
type filterQuery struct {
	raw   string
	terms [][2]string
}

func parseFilter(s string) filterQuery {
	q := filterQuery{raw: strings.TrimSpace(s)}
	for _, f := range strings.Fields(strings.ToLower(q.raw)) {
		field, val, ok := strings.Cut(f, ":")
		if !ok || val == "" {
			field, val = "", f
		}
		switch field {
		case "", "agent", "purpose", "status", "tool", "id":
		default:
			field, val = "", f
		}
		q.terms = append(q.terms, [2]string{field, val})
	}
	return q
}

func (q filterQuery) empty() bool { return len(q.terms) == 0 }

func (q filterQuery) match(d *deck, l *registry.LeaseState, now time.Time) bool {
	if l == nil {
		return false
	}
	a := l.Agent()
	agent := strings.ToLower(a.Name + " " + a.RuntimeAgent)
	purpose := strings.ToLower(l.Purpose())
	status := displayStatus(d.St, l, now)
	if d.PendingFor(l.ID) > 0 {
		status += " pending"
	}
	for _, t := range q.terms {
		v := t[1]
		ok := false
		switch t[0] {
		case "agent":
			ok = strings.Contains(agent, v)
		case "purpose":
			ok = strings.Contains(purpose, v)
		case "status":
			ok = strings.Contains(status, v)
		case "id":
			ok = strings.HasPrefix(strings.ToLower(l.ID), v)
		case "tool":
			ok = usedTool(d, l, v)
		default:
			ok = strings.Contains(agent, v) || strings.Contains(purpose, v) ||
				strings.Contains(status, v) || strings.HasPrefix(strings.ToLower(l.ID), v)
		}
		if !ok {
			return false
		}
	}
	return true
}

// usedTool: the lease's gate decisions or pending requests name the tool.
func usedTool(d *deck, l *registry.LeaseState, v string) bool {
	for _, e := range l.Activity {
		if strings.Contains(strings.ToLower(e.Tool), v) {
			return true
		}
	}
	if d.PendingFor(l.ID) > 0 {
		for _, r := range d.Pending() {
			if r.LeaseID == l.ID && strings.Contains(strings.ToLower(r.Tool), v) {
				return true
			}
		}
	}
	return false
}
