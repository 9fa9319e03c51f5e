package confine

import (
	"path/filepath"
	"slices"
	"testing"
)

// The policy's protected writes become the paths the kernel holds: a
// literal path is itself, a glob is the directory before its wildcard,
// a glob over the workspace root is what it matches now, git's own
// directory and the client's own state are left alone.
func TestProtectedGlobPaths(t *testing.T) {
	root := tree(t, "ws/.env.local", "ws/src/a", "ws/notes.secret", "home/.claude/settings.json", "ws/.husky/pre-commit")
	ws, home := filepath.Join(root, "ws"), filepath.Join(root, "home")
	globs := []string{".git/**", ".github/workflows/**", ".vscode/tasks.json", ".mcp.json", "~/.claude.json",
		".claude/settings*.json", "~/.claude/settings*.json", "*.secret", "~/.codex/**", "opencode.jsonc",
		".husky/**", "lefthook.yml", ".pre-commit-config.yaml"}
	cases := []struct {
		client    string
		want, not []string
	}{
		{"claude-code",
			[]string{".github/workflows", ".vscode/tasks.json", ".mcp.json", ".claude", "notes.secret", "~/.codex", "opencode.jsonc", ".husky"},
			// A commit-hook tool's missing configuration: the tool is not
			// installed, and a placeholder would only clutter the tree.
			[]string{".git", "~/.claude.json", "~/.claude", "src", ".env.local", "lefthook.yml", ".pre-commit-config.yaml"}},
		{"codex-cli",
			[]string{".github/workflows", ".mcp.json", "~/.claude.json", "~/.claude", ".claude"},
			[]string{".git", "~/.codex"}},
	}
	for _, c := range cases {
		prof := ProfileFor(c.client)
		got, err := protectedGlobPaths(globs, ws, home, stateOf(prof, ws, home))
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !slices.Contains(got, expand(w, ws, home)) {
				t.Errorf("%s: %s is not protected: %v", c.client, w, got)
			}
		}
		for _, n := range c.not {
			if slices.Contains(got, expand(n, ws, home)) {
				t.Errorf("%s: %s is protected: %v", c.client, n, got)
			}
		}
	}
}

// A missing protected file is created with what its reader takes as
// nothing configured, so that a read-only bind can hold it.
func TestPlaceholderContent(t *testing.T) {
	for p, want := range map[string]string{"/w/.mcp.json": "{\"mcpServers\":{}}\n", "/w/opencode.jsonc": "{}\n",
		"/w/.vscode/tasks.json": "{}\n", "/w/x.toml": ""} {
		if got := placeholderContent(p); got != want {
			t.Errorf("%s: %q, want %q", p, got, want)
		}
	}
}
