package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/leasedeck/leasedeck/registry"
)

// Pure renderers, plain asserts (UI rule 4).

func TestGauge(t *testing.T) {
	for _, c := range []struct {
		w    int
		frac float64
		want string
	}{
		{10, 0, "░░░░░░░░░░"},
		{10, 1, "██████████"},
		{10, 0.5, "█████░░░░░"},
		{8, 0.0625, "▌░░░░░░░"}, // half a cell
		{4, 2, "████"},          // over the ceiling: full, never longer
		{4, -1, "░░░░"},
		{0, 0.5, ""},
	} {
		if got := gauge(c.w, c.frac); got != c.want {
			t.Errorf("Gauge(%d, %v) = %q, want %q", c.w, c.frac, got, c.want)
		}
		if c.w > 0 && ansi.StringWidth(gauge(c.w, c.frac)) != c.w {
			t.Errorf("Gauge(%d, %v) is not %d cells", c.w, c.frac, c.w)
		}
	}
}

func TestSparkline(t *testing.T) {
	if got := sparkline([]float64{0, 1, 2, 4, 8}); got != " ▁▂▄█" {
		t.Errorf("%q", got)
	}
}

func TestLeaseRow(t *testing.T) {
	th := plainTheme()
	r := leaseRow{t: th, Depth: 1, HasKids: true, Expanded: true, Status: "live", Agent: "test-writer",
		Purpose: "Write table tests", Steps: 3, StepsMax: 10, HasSteps: true, Live: 1, FanOut: 2, HasFanOut: true,
		DepthLeft: 1, HasDepth: true, Left: "44m59s"}
	got := r.Render(100)
	if w := ansi.StringWidth(got); w != 100 {
		t.Fatalf("row is %d cells, want 100: %q", w, got)
	}
	for _, want := range []string{"  ↳▾ ● · test-writer", "Write table tests", "██▍░░░░░", "3/10", "1/2", "d1", "44m59s"} {
		if !strings.Contains(got, want) {
			t.Errorf("row lacks %q: %q", want, got)
		}
	}
	r.Pending = 2
	if got := r.Render(100); !strings.Contains(got, "◆") || !strings.Contains(got, "2 asks") {
		t.Errorf("pending not shown: %q", got)
	}
	r.Pending, r.Status, r.Left = 0, "revoked", "revoked"
	if got := r.Render(100); !strings.Contains(got, "⊘ · test-writer") {
		t.Errorf("revoked glyph: %q", got)
	}
	// The confinement cell: the kernel, an unconfined run, hooks only,
	// and none for a refusal (nothing runs).
	for _, c := range []struct {
		kind    confinementKind
		refused bool
		want    string
	}{{kernel, false, "⊘ ▣ test-writer"}, {unconfined, false, "⊘ □ test-writer"}, {hooksOnly, false, "⊘ · test-writer"}, {hooksOnly, true, "⊘   test-writer"}} {
		r.Confine, r.Refused = c.kind, c.refused
		if got := r.Render(100); !strings.Contains(got, c.want) || ansi.StringWidth(got) != 100 {
			t.Errorf("confinement %d (refused %v): %q", c.kind, c.refused, got)
		}
	}
	r.Confine, r.Refused = hooksOnly, false
	r.Selected = true
	if got := r.Render(100); !strings.HasPrefix(got, "▌") {
		t.Errorf("the selection has no marker: %q", got)
	}
	// A narrow tree drops the gauge and the figures, never the status.
	if got := r.Render(50); ansi.StringWidth(got) != 50 || strings.Contains(got, "3/10") || !strings.Contains(got, "revoked") {
		t.Errorf("narrow row: %q", got)
	}
	// Text from a journal line cannot carry a terminal escape.
	r.Agent = "evil\x1b[2Jagent"
	if got := r.Render(100); strings.Contains(got, "\x1b") {
		t.Errorf("escape reached the screen: %q", got)
	}
}

func TestNarrowingDiff(t *testing.T) {
	decl := map[string]any{
		"schema_version": "1.2",
		"agent":          map[string]any{"name": "w", "kind": "external", "runtime_agent": "claude-code"},
		"intent":         map[string]any{"purpose": "p"},
		"allow":          map[string]any{"tools": list("Read", "WebSearch"), "read_paths": list("**"), "write_paths": list("docs/**"), "hosts": list(), "commands": list("go", "docker")},
		"deny":           map[string]any{"commands": list(), "paths": list(".env"), "hosts": list()},
		"budget":         map[string]any{"steps": int64(500), "depth": int64(1)},
		"approvals":      list(),
	}
	gr := map[string]any{
		"schema_version": "1.2",
		"agent":          map[string]any{"name": "w", "kind": "external", "runtime_agent": "claude-code"},
		"intent":         map[string]any{"purpose": "p"},
		"allow":          map[string]any{"tools": list("Read"), "read_paths": list("**"), "write_paths": list("docs/**"), "hosts": list(), "commands": list("go")},
		"deny":           map[string]any{"commands": list("sudo"), "paths": list(".env", ".leasedeck/**"), "hosts": list()},
		"budget":         map[string]any{"steps": int64(200), "depth": int64(1), "fan_out": int64(0)},
		"approvals":      list("WebFetch"),
	}
	g, _ := registry.ParseManifest(gr)
	v := computeNarrowing(&registry.LeaseState{Status: registry.Granted, Declared: decl, Granted: g, Narrowing: "tools removed: WebSearch"})
	out := strings.Join(renderNarrowing(plainTheme(), v, 70), "\n")
	for _, want := range []string{
		"allow.tools       1 kept, 1 removed", "  = Read", "  − WebSearch",
		"allow.commands    1 kept, 1 removed", "  − docker",
		"deny.paths        1 kept, 1 added by parent", "  + .leasedeck/**",
		"approvals         1 added by parent", "  + WebFetch",
		"steps               500 → 200      clamped",
		"fan_out               — → 0        set by parent",
		"depth                 1 → 1        kept",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("narrowing lacks %q:\n%s", want, out)
		}
	}
	ref := computeNarrowing(&registry.LeaseState{Status: registry.Refused, Declared: decl, Reasons: []string{"R2", "R6"}, Reason: "no tools left"})
	out = strings.Join(renderNarrowing(plainTheme(), ref, 70), "\n")
	for _, want := range []string{"REFUSED", "R2: narrowing leaves allow.tools empty", "R6: the parent's remaining fan_out is zero", "reason: no tools left", "what it declared", "2 declared"} {
		if !strings.Contains(out, want) {
			t.Errorf("refusal lacks %q:\n%s", want, out)
		}
	}
}

func TestFeedLine(t *testing.T) {
	e := entry{Kind: 1, Seq: 42, Value: map[string]any{
		"timestamp": "2026-03-14T09:30:07.000Z", "event_type": "leasedeck.gate.denied", "summary": "Write: writes src/main.go",
		"reasoning": "outside allow.write_paths", "details": map[string]any{"lease_id": "abcdef12-0000-4000-8000-000000000001"}}}
	got := feedLine(plainTheme(), e, time.UTC, 120)
	for _, want := range []string{"09:30:07", "audit", "#42", "gate.denied", "abcdef12", "Write: writes src/main.go — outside allow.write_paths"} {
		if !strings.Contains(got, want) {
			t.Errorf("feed line lacks %q: %q", want, got)
		}
	}
	if ansi.StringWidth(got) != 120 {
		t.Errorf("feed line width %d", ansi.StringWidth(got))
	}
}

func TestStatusBarKeepsTheEssentialsWhenNarrow(t *testing.T) {
	s := statusBar{t: plainTheme(), Registry: "attached to pid 77", Short: "attached to pid 77", RegistryOK: true, ChainOK: true, MACs: true,
		Pending: 3, Heads: [2]uint64{10, 200}, Sort: "issue order", Clock: "12:00:00", Socket: "/very/long/path/registry.sock"}
	wide := s.Render(160)
	narrow := s.Render(60)
	for _, want := range []string{"attached to pid 77", "chain ✓ verified", "⚑ 3 pending", "leases #10 audit #200", "12:00:00"} {
		if !strings.Contains(wide, want) {
			t.Errorf("wide bar lacks %q: %q", want, wide)
		}
	}
	for _, want := range []string{"attached to pid 77", "chain ✓", "⚑ 3", "12:00:00"} {
		if !strings.Contains(narrow, want) {
			t.Errorf("narrow bar lacks %q: %q", want, narrow)
		}
	}
	if ansi.StringWidth(narrow) != 60 || ansi.StringWidth(wide) != 160 {
		t.Errorf("widths %d %d", ansi.StringWidth(narrow), ansi.StringWidth(wide))
	}
}

func TestOverlayKeepsWidth(t *testing.T) {
	base := []string{strings.Repeat("a", 40), strings.Repeat("b", 40), strings.Repeat("c", 40)}
	out := overlay(base, "XX\nYY", 40)
	for i, l := range out {
		if ansi.StringWidth(l) != 40 {
			t.Errorf("line %d: %q", i, l)
		}
	}
	if !strings.Contains(out[0], "XX") || !strings.Contains(out[1], "YY") {
		t.Errorf("%q", out)
	}
}

func TestFilterParse(t *testing.T) {
	q := parseFilter("  agent:Claude  status:live refactor bogus:x ")
	want := [][2]string{{"agent", "claude"}, {"status", "live"}, {"", "refactor"}, {"", "bogus:x"}}
	if len(q.terms) != len(want) {
		t.Fatalf("%v", q.terms)
	}
	for i := range want {
		if q.terms[i] != want[i] {
			t.Errorf("term %d = %v, want %v", i, q.terms[i], want[i])
		}
	}
}

func TestFmt(t *testing.T) {
	for in, want := range map[float64]string{0: "0", 5000: "5000", 18300: "18.3k", 2500000: "2.5M", 0.25: "0.25"} {
		if got := fmtNum(in); got != want {
			t.Errorf("fmtNum(%v) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[time.Duration]string{0: "0s", 42 * time.Second: "42s", 90 * time.Second: "1m30s", 8 * time.Hour: "8h00m", 72 * time.Hour: "3d"} {
		if got := fmtLeft(in); got != want {
			t.Errorf("fmtLeft(%v) = %q, want %q", in, got, want)
		}
	}
}
