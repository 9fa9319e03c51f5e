package record_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/leasedeck/leasedeck/journal"
	"github.com/leasedeck/leasedeck/registry"
	"github.com/leasedeck/leasedeck/registry/record"
	"github.com/leasedeck/leasedeck/schemas"
)

func TestCapsComeFromTheSchema(t *testing.T) {
	if err := record.CapsError(); err != nil {
		t.Fatal(err)
	}
	for _, f := range record.CappedFields() {
		if record.Cap(f) < 2 {
			t.Errorf("%s#%s: cap %d", f.Schema, f.Pointer, record.Cap(f))
		}
	}
	if record.MaxTokens() != float64(schemas.MaxSafeInteger) {
		t.Errorf("MaxTokens %v", record.MaxTokens())
	}
}

func TestClip(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"", 5, ""},
		{"abc", 3, "abc"},
		{"abcd", 3, "ab…"},
		{"a\nb\tc\x7f", 10, "a b c "},
		{"😀😀😀", 3, "😀😀😀"},
		{"😀😀😀😀", 3, "😀😀…"},
		{"a\xffb", 10, "a\uFFFDb"},
		{"long text", 0, "long text"},
		{"x\ny", 0, "x y"},
		{"ab", 1, "…"},
	} {
		if got := record.Clip(c.in, c.max); got != c.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}

// text is n code points, most of them multi-byte, so a cap counted in
// bytes or UTF-16 units instead of code points would show.
func text(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteRune([]rune("aé😀")[i%3])
	}
	return b.String()
}

// signedLease is a real grant, so that `granted` records validate.
func signedLease(t *testing.T) registry.IssueOutcome {
	t.Helper()
	key, err := registry.NewKey([]byte("0123456789abcdef0123456789abcdef"), false)
	if err != nil {
		t.Fatal(err)
	}
	man := func(name string) map[string]any {
		return map[string]any{
			"schema_version": "1.2",
			"agent":          map[string]any{"name": name, "kind": "external", "runtime_agent": "claude-code"},
			"intent":         map[string]any{"purpose": "test"},
			"allow":          map[string]any{"tools": []any{"Read"}, "read_paths": []any{"**"}, "write_paths": []any{}, "hosts": []any{}, "commands": []any{}},
			"deny":           map[string]any{"commands": []any{}, "paths": []any{}, "hosts": []any{}},
			"budget":         map[string]any{"steps": int64(5)},
			"approvals":      []any{},
		}
	}
	root, err := registry.ParseManifest(man("root"))
	if err != nil {
		t.Fatal(err)
	}
	decl, err := registry.ParseManifest(man("agent"))
	if err != nil {
		t.Fatal(err)
	}
	is := registry.Issuer{Key: key, SessionID: "s", DefaultLifetime: time.Hour}
	dec, err := is.Issue(decl, registry.Parent{Manifest: root}, time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	return dec
}

// leaseKinds builds one record of every lease-record event.
func leaseKinds(t *testing.T) map[record.Event]func() record.Lease {
	dec := signedLease(t)
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	id, parent := dec.LeaseID, "9b2f3c1e-0000-4000-8000-000000000001"
	ats := record.FormatTime(at)
	return map[record.Event]func() record.Lease{
		record.Granted: func() record.Lease {
			return record.NewGranted(ats, id, "", dec.Lease, dec.Declared, dec.DeclaredHash, dec.GrantedHash)
		},
		record.Narrowed: func() record.Lease { return record.NewNarrowed(ats, id, "x") },
		record.Refused: func() record.Lease {
			return record.NewRefused(at, id, parent, []string{"R2"}, "x", dec.DeclaredHash, dec.Declared)
		},
		record.Revoked:   func() record.Lease { return record.NewRevoked(at, id, parent, "issuer", "x") },
		record.Stopped:   func() record.Lease { return record.NewClosed(record.Stopped, at, id, parent, "x") },
		record.Completed: func() record.Lease { return record.NewClosed(record.Completed, at, id, "", "") },
		record.Expired:   func() record.Lease { return record.NewClosed(record.Expired, at, id, "", "") },
		record.Heartbeat: func() record.Lease {
			return record.Lease{SchemaVersion: record.SchemaVersion, At: ats, Event: record.Heartbeat, LeaseID: id}
		},
		record.Attached: func() record.Lease {
			return record.Lease{SchemaVersion: record.SchemaVersion, At: ats, Event: record.Attached, LeaseID: id,
				Containment: "enforced", Platform: "linux"}
		},
	}
}

var auditKinds = []string{
	record.GateAllowed, record.GateDenied, record.GateHeld, record.BudgetSpent, record.ApprovalAsked,
	record.ApprovalDecided, record.RegistryStarted, record.ToolReported, record.ScopeViolation,
	record.SessionStarted, record.SessionBegun, record.SessionFinalized,
}

type textCase struct {
	name  string
	cap   int
	input string
	write func() map[string]any         // the record as a journal value
	read  func(v map[string]any) string // the field as read back
}

// Every free-text member of every record kind, at the cap minus one, at
// the cap and one past it (in code points, as the schema counts): every
// record is written by the real journal writer (which validates it against
// the embedded schema) and the files verify; a value within the cap is
// kept whole, one past it is clipped to exactly the cap.
func TestEveryFreeTextFieldAtItsCap(t *testing.T) {
	var leaseCases, auditCases []textCase
	for ev, mk := range leaseKinds(t) {
		for _, fld := range []struct {
			name string
			f    record.Field
			set  func(*record.Lease, string)
			get  func(*record.Lease) string
		}{
			{"reason", record.LeaseReason, func(r *record.Lease, s string) { r.Reason = s }, func(r *record.Lease) string { return r.Reason }},
			{"platform", record.LeasePlatform, func(r *record.Lease, s string) { r.Platform = s }, func(r *record.Lease) string { return r.Platform }},
		} {
			max := record.Cap(fld.f)
			for _, n := range []int{max - 1, max, max + 1} {
				in := text(n)
				leaseCases = append(leaseCases, textCase{
					name: fmt.Sprintf("%s/%s/%d", ev, fld.name, n), cap: max, input: in,
					write: func() map[string]any { r := mk(); fld.set(&r, in); return r.Value() },
					read:  func(v map[string]any) string { r := record.ParseLease(v); return fld.get(&r) },
				})
			}
		}
	}
	fields := []struct {
		name string
		f    record.Field
		set  func(*record.Audit, string)
		get  func(*record.Audit) string
	}{
		{"summary", record.AuditSummary, func(a *record.Audit, s string) { a.Summary = s }, func(a *record.Audit) string { return a.Summary }},
		{"reasoning", record.AuditReasoning, func(a *record.Audit, s string) { a.Reasoning = s }, func(a *record.Audit) string { return a.Reasoning }},
		{"details.note", record.DetailString, func(a *record.Audit, s string) { a.Details.SetString("note", s) },
			func(a *record.Audit) string { s, _ := a.Details.Extra["note"].(string); return s }},
	}
	for _, name := range record.DetailNames() {
		fields = append(fields, struct {
			name string
			f    record.Field
			set  func(*record.Audit, string)
			get  func(*record.Audit) string
		}{"details." + name, record.DetailString, func(a *record.Audit, s string) { a.Details.SetString(name, s) },
			func(a *record.Audit) string { return a.Details.Get(name) }})
	}
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for _, et := range auditKinds {
		for _, fld := range fields {
			max := record.Cap(fld.f)
			for _, n := range []int{max - 1, max, max + 1} {
				in := text(n)
				auditCases = append(auditCases, textCase{
					name: fmt.Sprintf("%s/%s/%d", et, fld.name, n), cap: max, input: in,
					write: func() map[string]any {
						a := record.NewAudit(et, at, "s", record.Details{LeaseID: "9b2f3c1e-0000-4000-8000-000000000001"})
						fld.set(&a, in)
						return a.Value()
					},
					read: func(v map[string]any) string { a := record.ParseAudit(v); return fld.get(&a) },
				})
			}
		}
	}

	dir := t.TempDir()
	key := []byte("fedcba9876543210fedcba9876543210")
	w, err := journal.Open(dir, key, journal.Options{LockPath: filepath.Join(dir, "lock")})
	if err != nil {
		t.Fatal(err)
	}
	for _, batch := range []struct {
		kind  journal.Kind
		cases []textCase
	}{{journal.Leases, leaseCases}, {journal.Audit, auditCases}} {
		values := make([]map[string]any, len(batch.cases))
		for i, c := range batch.cases {
			values[i] = c.write()
			got := c.read(values[i])
			n := utf8.RuneCountInString(c.input)
			switch {
			case n <= c.cap && got != c.input:
				t.Errorf("%s: a value within the cap was changed", c.name)
			case n > c.cap && (utf8.RuneCountInString(got) != c.cap || !strings.HasSuffix(got, "…") ||
				!strings.HasPrefix(c.input, strings.TrimSuffix(got, "…"))):
				t.Errorf("%s: clipped to %d code points, want %d ending in …", c.name, utf8.RuneCountInString(got), c.cap)
			}
			if errs, err := schemas.Validate(batch.kind.Shape(), values[i]); err != nil || len(errs) > 0 {
				t.Errorf("%s: %v %v", c.name, err, errs)
			}
		}
		if _, err := w.AppendAll(batch.kind, values); err != nil {
			t.Fatalf("%s: the journal refused a record: %v", batch.kind, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if r := journal.VerifyWith(dir, key, journal.VerifyOptions{}); !r.OK() {
		t.Fatalf("journal does not verify: %v", r.Breaks)
	}
	if len(leaseCases) < 9*2*3 || len(auditCases) < len(auditKinds)*(3+len(record.DetailNames()))*3 {
		t.Fatalf("cases: %d lease, %d audit", len(leaseCases), len(auditCases))
	}
}

// A line from a newer writer keeps every member this version does not
// know, at every level, through a read and a rewrite.
func TestUnknownMembersSurvive(t *testing.T) {
	audit := map[string]any{
		"schema_version": "1.3", "timestamp": "2026-12-01T09:00:00.000Z", "event_type": "vendor.thing.done",
		"future": map[string]any{"a": []any{"b"}}, "summary": 17.0, // a known member of an unexpected type
		"actor":   map[string]any{"kind": "agent", "badge": "x"},
		"details": map[string]any{"lease_id": "l", "tokens": int64(3), "color": "red", "accurate": "yes"},
		"seq":     int64(4), "prev": "p", "mac": "m",
	}
	lease := map[string]any{
		"schema_version": "1.3", "at": "2026-12-01T09:00:00.000Z", "event": "completed", "lease_id": "l",
		"usage": map[string]any{"tokens": int64(5), "energy_j": 2.5}, "extra": true,
	}
	for _, c := range []struct {
		kind journal.Kind
		in   map[string]any
		out  func() map[string]any
	}{
		{journal.Audit, audit, func() map[string]any { a := record.ParseAudit(audit); return a.Value() }},
		{journal.Leases, lease, func() map[string]any { r := record.ParseLease(lease); return r.Value() }},
	} {
		want := map[string]any{}
		for k, v := range c.in {
			if k != "seq" && k != "prev" && k != "mac" {
				want[k] = v
			}
		}
		a, err := schemas.Canonical(want)
		if err != nil {
			t.Fatal(err)
		}
		b, err := schemas.Canonical(c.out())
		if err != nil {
			t.Fatal(err)
		}
		if string(a) != string(b) {
			t.Errorf("%s round trip:\n got %s\nwant %s", c.kind, b, a)
		}
	}
}
