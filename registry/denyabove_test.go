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
