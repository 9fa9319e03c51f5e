package registry

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// dotDotWorkspace is shellWorkspace with symbolic links inside it:
// src/l leads to docs (so src/l/.. is the workspace for the kernel and
// src for a cleaning) and in leads to src/sub (in/.. is src for the
// kernel, the workspace for a cleaning and for bash's cd).
func dotDotWorkspace(t *testing.T) string {
	t.Helper()
	ws := shellWorkspaceWith(t, ".env", ".claude/settings.json", ".mcp.json", ".git/config",
		".github/workflows/ci.yml", "src/sub/x")
	for link, target := range map[string]string{"src/l": "../docs", "in": "src/sub"} {
		if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// TestGateShellDotDotAfterALink: a ".." after a symbolic link names one
// file for the kernel and another for bash's cd, git's pathspecs and a
// cleaning; the gate checks both, wherever the line or its start
// directory spells the "..".
func TestGateShellDotDotAfterALink(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	ws := dotDotWorkspace(t)
	s := shellState(t, now)
	for _, tc := range []struct {
		cwd, cmd string
		want     Verdict
	}{
		// The start directory below the workspace: the kernel applies
		// src/l/.. where the link leads.
		{"src", "cat l/../.env", VerdictDeny},
		{"src", "cat l/../.claude/settings.json", VerdictDeny},
		{"src", "echo x > l/../README.md", VerdictDeny},
		{"src", "echo x > l/../.mcp.json", VerdictDeny},
		{"src", "sed -i s/a/b/ l/../.git/config", VerdictDeny},
		{"src", "cat l/../.e*", VerdictDeny},
		{"src", "grep -r x l/..", VerdictDeny},
		// A start directory spelled with the ".." (Codex's workdir).
		{"src/l/..", "cat .env", VerdictDeny},
		{"src/l/..", "cat .e*", VerdictDeny},
		{"src/l/..", "echo x > .mcp.json", VerdictDeny},
		{ws + "/src/l/..", "cat .env", VerdictDeny},
		// bash's cd is logical: in/.. is the workspace.
		{"", "cd in/.. && echo x > README.md", VerdictDeny},
		{"", "cd in/.. && sed -i s/a/b/ README.md", VerdictDeny},
		{"", "cd in/.. && echo x >> .github/workflows/ci.yml", VerdictDeny},
		{"", "pushd in/.. && echo x > README.md", VerdictDeny},
		{"", "cd in/..; echo x > README.md", VerdictDeny},
		// git cleans its pathspecs before it looks at the file system.
		{"", "git checkout -- in/../README.md", VerdictDeny},
		{"", "git restore in/../.github/workflows/ci.yml", VerdictDeny},
		{"", "git rm in/../README.md", VerdictDeny},
		{"", "git mv src/a.go in/../README.md", VerdictDeny},
		// Globs are read where the kernel finds the directory.
		{"", "cat src/l/../.e*", VerdictDeny},
		{"", "cat src/l/../.cl*/*", VerdictDeny},
		{"", "cat src/*/../.e*", VerdictDeny},
		// Ordinary lines with "..".
		{"src", "cat ../README.md", VerdictAllow},
		{"src", "cat a.go ../go.mod", VerdictAllow},
		{"", "cat src/../README.md", VerdictAllow},
		{"", "cd src && cat ../README.md", VerdictAllow},
		{"", "cd src && echo x > ../src/out.txt", VerdictAllow},
		{"src", "echo x > ../src/out.txt", VerdictAllow},
		{"src", "ls ../docs/*.md", VerdictAllow},
		{"", "cat in/x", VerdictAllow},
		{"", "echo x > in/y", VerdictAllow},
	} {
		in := map[string]any{"command": tc.cmd}
		if tc.cwd != "" {
			in["cwd"] = tc.cwd
		}
		res := Evaluate(s, ws, "strict", ToolCall{Tool: "Bash", Input: in}, now, nil)
		if (res.Verdict == VerdictAllow) != (tc.want == VerdictAllow) {
			t.Errorf("in %q, %q: %s %s, want %s", tc.cwd, tc.cmd, res.Verdict, res.Reason, tc.want)
		}
	}
}

// TestGateFileToolDotDotAfterALink: a client that cleans a file path
// before it opens it (path.resolve) writes beside the link; the kernel
// beside its target. Both are checked.
func TestGateFileToolDotDotAfterALink(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	ws := dotDotWorkspace(t)
	g, err := ParseManifest(map[string]any{
		"schema_version": "1.2",
		"agent":          map[string]any{"name": "files", "kind": "external", "runtime_agent": "claude-code"},
		"intent":         map[string]any{"purpose": "file tools"},
		"allow": map[string]any{"tools": []any{"Read", "Write", "Edit"}, "read_paths": []any{"**"},
			"write_paths": []any{"src/**"}, "hosts": []any{}, "commands": []any{}},
		"deny":      map[string]any{"commands": []any{}, "paths": []any{".env"}, "hosts": []any{}},
		"budget":    map[string]any{"steps": 1000},
		"approvals": []any{},
	})
	if err != nil {
		t.Fatal(err)
	}
	s := NewState()
	s.Leases["files"] = &LeaseState{ID: "files", Status: Granted, Granted: g, IssuedAt: now, ExpiresAt: now.Add(time.Hour)}
	for _, tc := range []struct {
		tool, path string
		allow      bool
	}{
		{"Write", "in/../README.md", false},
		{"Write", ws + "/in/../.mcp.json", false},
		{"Edit", "in/../go.mod", false},
		{"Read", "src/l/../src/l/../.env", false},
		{"Write", "in/../src/out.txt", true},
		{"Write", "src/../src/out.txt", true},
		{"Read", "src/l/../README.md", true},
	} {
		in := map[string]any{"file_path": tc.path, "content": "x", "old_string": "x", "new_string": "y"}
		res := Evaluate(s, ws, "files", ToolCall{Tool: tc.tool, Input: in}, now, nil)
		if (res.Verdict == VerdictAllow) != tc.allow {
			t.Errorf("%s %q: %s %s, want allowed=%v", tc.tool, tc.path, res.Verdict, res.Reason, tc.allow)
		}
	}
}
