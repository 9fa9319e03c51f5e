package registry

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// gateState builds a folded state by hand, without a service or a journal:
// a root lease, a child under it, a revoked lease and an expired one. The
// gate is a pure function of it.
func gateState(t *testing.T, now time.Time) *State {
	t.Helper()
	grant := func(extra func(m map[string]any)) *Manifest {
		m := map[string]any{
			"schema_version": "1.2",
			"agent":          map[string]any{"name": "gate", "kind": "external", "runtime_agent": "claude-code"},
			"intent":         map[string]any{"purpose": "gate table"},
			"allow": map[string]any{
				"tools":      []any{"Bash", "Read", "Write", "Edit", "WebFetch", "Glob", "Agent", "mcp__fs__read"},
				"read_paths": []any{"src/**", "docs/**"}, "write_paths": []any{"src/**"},
				"hosts": []any{"*.example.com", "api.other.org"}, "commands": []any{"git", "ls", "echo", "rm", "cat"},
			},
			"deny": map[string]any{
				"commands": []any{"sudo"}, "paths": []any{"src/secret/**", "~/.ssh/**"},
				"hosts": []any{"evil.example.com"},
			},
			"budget":    map[string]any{"steps": 10},
			"approvals": []any{"command:rm", "host:api.other.org"},
		}
		if extra != nil {
			extra(m)
		}
		g, err := ParseManifest(m)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	s := NewState()
	add := func(id, parent string, status Status, g *Manifest, expires time.Time) *LeaseState {
		l := &LeaseState{ID: id, ParentID: parent, Status: status, Granted: g, IssuedAt: now.Add(-time.Minute), ExpiresAt: expires}
		s.Leases[id] = l
		s.Order = append(s.Order, id)
		return l
	}
	hour := now.Add(time.Hour)
	add("root", "", Granted, grant(nil), hour)
	add("child", "root", Granted, grant(nil), hour)
	add("revoked", "", Revoked, grant(nil), hour).Reason = "by a human"
	add("orphan", "revoked", Granted, grant(nil), hour)
	add("expired", "", Granted, grant(nil), now.Add(-time.Second))
	spent := add("spent", "", Granted, grant(nil), hour)
	spent.Spent.Steps = 10
	add("spentparent", "spent", Granted, grant(func(m map[string]any) { m["budget"] = map[string]any{"steps": 100} }), hour)
	return s
}

func TestDecideTable(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(ws, "src", "secret"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A symbolic link inside an allowed path that leads to a denied one.
	if err := os.Symlink(filepath.Join(ws, "src", "secret"), filepath.Join(ws, "src", "alias")); err != nil {
		t.Fatal(err)
	}
	s := gateState(t, now)
	bash := func(cmd string) ToolCall { return ToolCall{Tool: "Bash", Input: map[string]any{"command": cmd}} }
	file := func(tool, p string) ToolCall { return ToolCall{Tool: tool, Input: map[string]any{"file_path": p}} }
	cases := []struct {
		name    string
		lease   string
		call    ToolCall
		covered bool // a remembered grant covers every approval
		want    Verdict
		reason  string // a substring of the reason
	}{
		{"allowed write", "root", file("Write", "src/a.go"), false, VerdictAllow, "within the lease"},
		{"allowed read", "child", file("Read", "docs/x.md"), false, VerdictAllow, "within the lease"},
		{"read implied by write", "root", file("Read", "src/a.go"), false, VerdictAllow, ""},
		{"unknown lease", "nope", file("Read", "src/a.go"), false, VerdictBlock, "unknown lease"},
		{"revoked", "revoked", file("Read", "src/a.go"), false, VerdictBlock, "revoked: by a human"},
		{"revoked ancestor", "orphan", file("Read", "src/a.go"), false, VerdictBlock, "ancestor lease"},
		{"expired", "expired", file("Read", "src/a.go"), false, VerdictBlock, "expired"},
		{"budget spent", "spent", file("Read", "src/a.go"), false, VerdictBlock, "budget steps"},
		{"budget spent on parent", "spentparent", file("Read", "src/a.go"), false, VerdictBlock, "budget steps"},
		{"tool not allowed", "root", ToolCall{Tool: "NotebookEdit", Input: map[string]any{"notebook_path": "src/a.ipynb"}}, false, VerdictDeny, "allow.tools"},
		{"task alias of agent", "root", ToolCall{Tool: "Task", Input: map[string]any{}}, false, VerdictAllow, ""},
		{"opaque mcp tool", "root", ToolCall{Tool: "mcp__fs__read", Input: map[string]any{"path": "/etc/shadow"}}, false, VerdictAllow, ""},
		{"missing file_path", "root", ToolCall{Tool: "Write", Input: map[string]any{}}, false, VerdictDeny, "/file_path"},
		{"write outside write_paths", "root", file("Write", "docs/a.md"), false, VerdictDeny, "allow.write_paths"},
		{"read outside read_paths", "root", file("Read", "README.md"), false, VerdictDeny, "allow.read_paths"},
		{"write escapes", "root", file("Write", "../x"), false, VerdictDeny, "escapes the workspace"},
		{"read escapes absolute", "root", file("Read", "/etc/hosts"), false, VerdictDeny, "escapes the workspace"},
		{"write the workspace itself", "root", file("Write", "."), false, VerdictDeny, ""},
		{"denied path", "root", file("Read", "src/secret/key"), false, VerdictDeny, "deny.paths"},
		{"denied path via link", "root", file("Read", "src/alias/key"), false, VerdictDeny, "deny.paths"},
		{"denied home path", "root", file("Read", "~/.ssh/id_rsa"), false, VerdictDeny, "deny.paths"},
		{"deny beats allow for hosts", "root", ToolCall{Tool: "WebFetch", Input: map[string]any{"url": "https://evil.example.com/"}}, false, VerdictDeny, "deny.hosts"},
		{"allowed host", "root", ToolCall{Tool: "WebFetch", Input: map[string]any{"url": "https://docs.example.com/x"}}, false, VerdictAllow, ""},
		{"host not allowed", "root", ToolCall{Tool: "WebFetch", Input: map[string]any{"url": "https://example.net/"}}, false, VerdictDeny, "allow.hosts"},
		{"host approval", "root", ToolCall{Tool: "WebFetch", Input: map[string]any{"url": "https://api.other.org/"}}, false, VerdictAsk, "host:api.other.org"},
		{"host approval remembered", "root", ToolCall{Tool: "WebFetch", Input: map[string]any{"url": "https://api.other.org/"}}, true, VerdictAllow, ""},
		{"bash allowed", "root", bash("git status && ls src"), false, VerdictAllow, ""},
		{"bash denied command", "root", bash("echo x && sudo ls"), false, VerdictDeny, "deny.commands"},
		{"bash command not allowed", "root", bash("go build"), false, VerdictDeny, "allow.commands"},
		{"bash approval", "root", bash("rm src/a.go"), false, VerdictAsk, "command:rm"},
		{"bash approval remembered", "root", bash("rm src/a.go"), true, VerdictAllow, ""},
		{"bash redirect outside", "root", bash("echo x > docs/a"), false, VerdictDeny, "allow.write_paths"},
		{"bash operand denied", "root", bash("cat ~/.ssh/id_rsa"), false, VerdictDeny, "deny.paths"},
		{"bash pipe into interpreter", "root", bash("curl x | sh"), false, VerdictDeny, "interpreter"},
		{"bash unparsable", "root", bash("echo 'x"), false, VerdictDeny, "cannot tell what the call touches"},
		{"bash dynamic program", "root", bash("$CMD x"), false, VerdictDeny, "cannot tell what the call touches"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var covered func(string, []string) bool
			if tc.covered {
				covered = func(string, []string) bool { return true }
			}
			res := Evaluate(s, ws, tc.lease, tc.call, now, covered)
			if res.Verdict != tc.want || !strings.Contains(res.Reason, tc.reason) {
				t.Fatalf("Evaluate = %s %q, want %s containing %q", res.Verdict, res.Reason, tc.want, tc.reason)
			}
			if res.Verdict == VerdictAsk && len(res.Approvals) == 0 {
				t.Fatalf("an ask names no approval: %+v", res)
			}
		})
	}
	// The gate is pure: the state is unchanged by deciding.
	if l := s.Leases["root"]; l.Spent.Steps != 0 || len(l.Activity) != 0 {
		t.Fatalf("Evaluate changed the state: %+v", l)
	}
}
