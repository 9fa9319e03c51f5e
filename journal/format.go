package journal

import (
	"fmt"
	"sort"
	"strings"
)

// Describe renders a line for people, on one line: when, which file, seq,
// what happened, which lease (short id), and why. It is what
// `leasedeck journal tail` prints. Text from the record is cut short and
// stripped of control characters, so a line can never break the display.
func Describe(k Kind, l *Line) string {
	when := l.Str("at")
	what := l.Str("event")
	if k == Audit {
		when, what = l.Str("timestamp"), l.Str("event_type")
	}
	file := strings.TrimSuffix(k.FileName(), ".jsonl")
	lease := shortID(leaseOf(k, l.Value))
	if lease == "" {
		lease = "-"
	}
	text := sanitize(describeText(k, l.Value), 160)
	return strings.TrimRight(fmt.Sprintf("%-24s %-6s %7s  %-28s %-8s  %s", when, file, fmt.Sprintf("#%d", l.Seq), what, lease, text), " ")
}

func leaseOf(k Kind, m map[string]any) string {
	if s, ok := m["lease_id"].(string); ok {
		return s
	}
	if d, ok := m["details"].(map[string]any); ok {
		for _, name := range [...]string{"lease_id", "lease"} {
			if s, ok := d[name].(string); ok {
				return s
			}
		}
	}
	return ""
}

// shortID is the first block of a UUID: enough to tell leases apart on a
// screen, as git's short hashes are.
func shortID(id string) string {
	if i := strings.IndexByte(id, '-'); i > 0 {
		return id[:i]
	}
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

func describeText(k Kind, m map[string]any) string {
	str := func(v any) string { s, _ := v.(string); return s }
	if k == Audit {
		if s := str(m["summary"]); s != "" {
			return s
		}
		return flatDetails(m["details"])
	}
	var parts []string
	switch str(m["event"]) {
	case "granted":
		if lease, ok := m["lease"].(map[string]any); ok {
			if man, ok := lease["manifest"].(map[string]any); ok {
				agent, _ := man["agent"].(map[string]any)
				intent, _ := man["intent"].(map[string]any)
				if name := str(agent["name"]); name != "" {
					parts = append(parts, "to "+name)
				}
				if p := str(intent["purpose"]); p != "" {
					parts = append(parts, p)
				}
			}
			if exp := str(lease["expires_at"]); exp != "" {
				parts = append(parts, "until "+exp)
			}
		}
	case "refused":
		if rs, ok := m["reasons"].([]any); ok {
			codes := make([]string, 0, len(rs))
			for _, r := range rs {
				codes = append(codes, fmt.Sprint(r))
			}
			parts = append(parts, strings.Join(codes, ","))
		}
	case "revoked":
		if by := str(m["by"]); by != "" {
			parts = append(parts, "by "+shortID(by))
		}
	case "attached":
		parts = append(parts, str(m["containment"])+" on "+str(m["platform"]))
	case "completed":
		if u, ok := m["usage"].(map[string]any); ok {
			parts = append(parts, flatDetails(u))
		}
	}
	if p := str(m["parent_lease_id"]); p != "" && str(m["event"]) == "granted" {
		parts = append(parts, "under "+shortID(p))
	}
	if r := str(m["reason"]); r != "" {
		parts = append(parts, r)
	}
	return strings.Join(parts, "; ")
}

func flatDetails(v any) string {
	d, ok := v.(map[string]any)
	if !ok || len(d) == 0 {
		return ""
	}
	keys := make([]string, 0, len(d))
	for k := range d {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		switch x := d[k].(type) {
		case map[string]any, []any:
			parts = append(parts, k+"=…")
		default:
			parts = append(parts, fmt.Sprintf("%s=%v", k, x))
		}
	}
	return strings.Join(parts, " ")
}

// sanitize replaces control characters (a terminal escape in a record must
// not reach the terminal) and cuts to max runes.
func sanitize(s string, max int) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == max {
			b.WriteString("…")
			break
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			r = ' '
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}
