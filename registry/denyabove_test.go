package registry

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A write, removal or move of a directory changes everything below it: a
// deny.paths entry that can match a path below the directory refuses it,
// as a protected path does. Ordinary lines above no denied path still run.
func TestDenyPathsBelowAWrite(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(ws, "src", "secret"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := gateState(t, now)
	bash := func(cmd string) ToolCall { return ToolCall{Tool: "Bash", Input: map[string]any{"command": cmd}} }
	for _, c := range []struct {
		line   string
		want   Verdict
		reason string // a substring of the reason
	}{
		{"rm -rf src", VerdictDeny, "deny.paths"},
		{"rm -r src/", VerdictDeny, "deny.paths"},
		{"rm -rf ./src/../src", VerdictDeny, "deny.paths"},
		{"rm -rf src/secret", VerdictDeny, "deny.paths"},
		{"rm -rf src/sec*", VerdictDeny, "deny.paths"},
		{"git rm -r src", VerdictDeny, "deny.paths"},
		{"git clean -fdx src", VerdictDeny, "deny.paths"},
		{"rm -rf ~", VerdictDeny, "~/.ssh/** can match a path below it"},
		{"rm -rf .", VerdictDeny, ""},
		{`rm -rf "$PWD"`, VerdictDeny, ""},
		{"rm -rf src/lib", VerdictAllow, "within the lease"},
		{"rm -rf src/dist src/node_modules", VerdictAllow, "within the lease"},
		{"rm src/a.go", VerdictAllow, "within the lease"},
		{"echo x > src/a.go", VerdictAllow, "within the lease"},
	} {
		t.Run(c.line, func(t *testing.T) {
			res := Evaluate(s, ws, "root", bash(c.line), now, func(string, []string) bool { return true })
			if res.Verdict != c.want || !strings.Contains(res.Reason, c.reason) {
				t.Fatalf("%s: %s %q, want %s containing %q", c.line, res.Verdict, res.Reason, c.want, c.reason)
			}
		})
	}
}

// The same through the service's Gate, as the hook asks it: a lease that
// denies src/secret/** and **/.env refuses every line that removes or
// moves a directory such a path lies below, and lets the others run.
func TestGateRefusesAWriteAboveADeniedPath(t *testing.T) {
	f := newFixture(t)
	for _, d := range []string{"src/secret", "src/lib"} {
		if err := os.MkdirAll(filepath.Join(f.dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(f.dir, "src", "a.go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	id := f.issue(agentManifest("above", 100, func(m map[string]any) {
		m["deny"] = map[string]any{"commands": []any{}, "paths": []any{"src/secret/**", "**/.env"}, "hosts": []any{}}
		m["approvals"] = []any{}
	}), "")
	for _, c := range []struct {
		line string
		want Verdict
	}{
		{"rm -rf src", VerdictDeny},
		{"rm -rf src/secret", VerdictDeny},
		{"git clean -fdx src", VerdictDeny},
		{"rm -rf src/lib", VerdictDeny},
		{"rm -rf .", VerdictDeny},
		{"rm -rf src/build", VerdictAllow},
		{"rm src/a.go", VerdictAllow},
		{"echo x > src/a.go", VerdictAllow},
	} {
		got := f.gate(id, "Bash", map[string]any{"command": c.line})
		if got.Verdict != c.want {
			t.Errorf("%s: %s (%s), want %s", c.line, got.Verdict, got.Reason, c.want)
		}
		if c.want == VerdictDeny && c.line != "rm -rf ." && !strings.Contains(got.Reason, "deny.paths") {
			t.Errorf("%s: refused for another reason: %s", c.line, got.Reason)
		}
	}
}
