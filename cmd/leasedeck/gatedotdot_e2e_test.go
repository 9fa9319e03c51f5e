package main

import (
	"os"
	"path/filepath"
	"testing"
)

// A ".." after a symbolic link, through the real hook against a real
// registry: the kernel applies it where the link leads, so src/l/..
// (src/l leads to docs) is the workspace, where .env and .mcp.json are.
// The shell's start directory (Claude Code's cwd, Codex's workdir) and the
// line's own globs are read that way too.
func TestHookDotDotAfterALinkThroughTheBinary(t *testing.T) {
	w := newWorkspace(t)
	w.serve()
	for _, d := range []string{"src", "docs"} {
		if err := os.MkdirAll(filepath.Join(w.dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(w.dir, ".env"), []byte("SECRET=1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../docs", filepath.Join(w.dir, "src", "l")); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(w.dir, "src")
	for _, c := range []struct {
		client, cmd, cwd, workdir string
		refused                   bool
	}{
		{"claude-code", "cat l/../.env", src, "", true},
		{"claude-code", "echo x > l/../.mcp.json", src, "", true},
		{"claude-code", "cat l/../.e*", src, "", true},
		{"claude-code", "cat src/l/../.e*", "", "", true},
		{"codex", "cat .env", "", "src/l/..", true},
		{"codex", "echo x > .mcp.json", "", "src/l/..", true},
		{"claude-code", "cat ../README.md", src, "", false},
		{"codex", "ls", "", "src", false},
	} {
		stdin := w.payload(c.client, "PreToolUse", func(m map[string]any) {
			m["tool_name"] = "Bash"
			in := map[string]any{"command": c.cmd}
			if c.workdir != "" {
				in["workdir"] = c.workdir
			}
			m["tool_input"] = in
			if c.cwd != "" {
				m["cwd"] = c.cwd
			}
		})
		r := w.hook(c.client, stdin)
		if got := refusedByClient(c.client, r); got != c.refused || (r.code != 0 && r.code != 2) {
			t.Errorf("%s %q (cwd %q, workdir %q): refused=%v, want %v; exit %d\nstdout: %.300s\nstderr: %.300s",
				c.client, c.cmd, c.cwd, c.workdir, got, c.refused, r.code, r.stdout, r.stderr)
		}
	}
}
