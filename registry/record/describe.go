package record

import (
	"fmt"
	"sort"
	"strings"

	"github.com/leasedeck/leasedeck/journal"
)

// Line is one parsed journal line: which file it came from and its record.
type Line struct {
	Kind  journal.Kind
	Lease Lease // when Kind is journal.Leases
	Audit Audit // when Kind is journal.Audit
	// Offset is where the line starts in its file, when Located: the
	// registry knows it (replay, its own appends) and keeps only that for
	// the history of a closed lease; a reader that does not know it (the
	// cockpit following the files) keeps the history in memory.
	Offset  int64
	Seq     uint64
	Located bool
}

// Parse reads a journal value of file k.
func Parse(k journal.Kind, v map[string]any) Line {
	if k == journal.Audit {
		return Line{Kind: k, Audit: ParseAudit(v)}
	}
	return Line{Kind: k, Lease: ParseLease(v)}
}

// ParseLine types a journal line: from what the journal decoded directly
// when it did (Line.Audit), from its generic value otherwise.
func ParseLine(k journal.Kind, jl *journal.Line) Line {
	if k == journal.Audit && jl.Audit != nil {
		return Line{Kind: k, Audit: AuditFrom(jl.Audit)}
	}
	return Parse(k, jl.Value)
}

// LeaseID is the lease the line is about: a lease record's lease_id, an
// audit event's details.lease_id.
func (l *Line) LeaseID() string {
	if l.Kind == journal.Audit {
		if l.Audit.Details.LeaseID != "" {
			return l.Audit.Details.LeaseID
		}
		s, _ := l.Audit.Details.Extra["lease"].(string)
		return s
	}
	return l.Lease.LeaseID
}

// When is the record's own time text: a lease record's at, an audit
// event's timestamp.
func (l *Line) When() string {
	if l.Kind == journal.Audit {
		return l.Audit.Timestamp
	}
	return l.Lease.At
}

// When reads only the time text of a journal value of file k, for a
// caller that needs nothing else from the line.
func When(k journal.Kind, v map[string]any) string {
	name := "at"
	if k == journal.Audit {
		name = "timestamp"
	}
	s, _ := v[name].(string)
	return s
}

// What is what happened: a lease record's event, an audit event's type.
func (l *Line) What() string {
	if l.Kind == journal.Audit {
		return l.Audit.EventType
	}
	return string(l.Lease.Event)
}

// Describe renders a journal line for people, on one line: when, which
// file, seq, what happened, which lease (short id), and why. It is what
// `leasedeck journal tail` prints. Text from the record is cut short and
// stripped of control characters, so a line can never break the display.
func Describe(k journal.Kind, jl *journal.Line) string {
	l := ParseLine(k, jl)
	when, what := l.When(), l.What()
	file := strings.TrimSuffix(k.FileName(), ".jsonl")
	lease := ShortID(l.LeaseID())
	if lease == "" {
		lease = "-"
	}
	text := display(l.text(), 160)
	return strings.TrimRight(fmt.Sprintf("%-24s %-6s %7s  %-28s %-8s  %s", when, file, fmt.Sprintf("#%d", jl.Seq), what, lease, text), " ")
}

// ShortID is the first block of a UUID: enough to tell leases apart on a
// screen, as git's short hashes are.
func ShortID(id string) string {
	if i := strings.IndexByte(id, '-'); i > 0 {
		return id[:i]
	}
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

func (l *Line) text() string {
	if l.Kind == journal.Audit {
		decided := Decider(&l.Audit)
		if l.Audit.Summary != "" {
			if decided != "" {
				return decided + " — " + l.Audit.Summary
			}
			return l.Audit.Summary
		}
		if decided != "" {
			return decided
		}
		return flat(l.Audit.Details.value())
	}
	r := &l.Lease
	var parts []string
	switch r.Event {
	case Granted:
		if r.Lease != nil {
			sl := r.Signed()
			if sl.Manifest != nil {
				name, purpose := ManifestLabel(sl.Manifest)
				if name != "" {
					parts = append(parts, "to "+name)
				}
				if purpose != "" {
					parts = append(parts, purpose)
				}
			}
			if sl.ExpiresAt != "" {
				parts = append(parts, "until "+sl.ExpiresAt)
			}
		}
		if r.ParentLeaseID != "" {
			parts = append(parts, "under "+ShortID(r.ParentLeaseID))
		}
	case Refused:
		if r.Reasons != nil {
			parts = append(parts, strings.Join(r.Reasons, ","))
		}
	case Revoked:
		if r.By != "" {
			parts = append(parts, "by "+ShortID(r.By))
		}
	case Attached:
		parts = append(parts, r.Containment+" on "+r.Platform)
	case Completed:
		if r.Usage != nil {
			parts = append(parts, flat(r.Usage.value()))
		}
	}
	if r.Reason != "" {
		parts = append(parts, r.Reason)
	}
	return strings.Join(parts, "; ")
}

func flat(d map[string]any) string {
	if len(d) == 0 {
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

// display replaces control characters, C1 controls included (a terminal
// escape in a record must not reach the terminal), and cuts to max runes.
func display(s string, max int) string {
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

// Decider says who decided an approval and why, for an audit event that
// records a decision (an approval decided, a call the client's own prompt
// was asked about, the gate line of an approved call): "approved once by
// cockpit", "denied by operator: not on main", "expired (no decision before
// the deadline)". Empty for any other event.
func Decider(a *Audit) string {
	d := &a.Details
	switch a.EventType {
	case ApprovalDecided:
	case GateAllowed, GateDenied:
		if d.ApprovalID == "" || d.By == "" {
			return ""
		}
	case ApprovalAsked:
		return "waits for a human (" + orDash(d.Names) + ")"
	case ApprovalClientAsked:
		return "asked in the client (" + orDash(d.Client) + "): its own permission prompt decides"
	case ApprovalClientAnswered:
		s := "client answered: " + orDash(d.Outcome)
		if d.Source != "" {
			s += " (evidence: " + d.Source + ")"
		}
		return s
	default:
		return ""
	}
	outcome := d.Outcome
	if outcome == "" {
		outcome = map[string]string{GateAllowed: "approved", GateDenied: "denied"}[a.EventType]
	}
	s := outcome
	if outcome == "approved" {
		s += map[string]string{"lease": " for the lease", "": " once", "once": " once"}[d.Scope]
	}
	switch d.By {
	case "expiry":
		s += " (no decision before the deadline)"
	case "restart":
		s += " (the registry restarted while it waited)"
	case "":
	default:
		s += " by " + d.By
	}
	if a.EventType == ApprovalDecided && a.Reasoning != "" {
		s += ": " + a.Reasoning
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
