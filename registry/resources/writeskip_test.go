package resources

import (
	"math/rand"
	"os"
	"path/filepath"
	"testing"
)

// cannotTouch is a short cut: on random patterns and paths — inside and
// outside the workspace and the home directory, through links, as
// directories, with case folding on and off — it never answers "cannot"
// where the whole check answers "touches".
func TestCannotTouchAgreesWithTheWholeCheck(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	home := filepath.Join(root, "home")
	ws := filepath.Join(home, "proj")
	t.Setenv("HOME", home)
	for _, d := range []string{"src/sub", ".git/hooks", ".husky", ".claude", ".github/workflows", "SRC2", "node_modules/x"} {
		os.MkdirAll(filepath.Join(ws, d), 0o755)
	}
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o755)
	os.Symlink(filepath.Join(ws, ".git"), filepath.Join(ws, "src", "g"))
	os.Symlink(home, filepath.Join(ws, "h"))
	os.Symlink("/etc", filepath.Join(ws, "etc"))
	patterns := []string{".git/**", ".github/workflows/**", ".vscode/tasks.json", ".mcp.json", "~/.claude.json",
		".husky/**", "lefthook.yml", ".claude/settings*.json", "~/.claude/settings*.json", "~/.codex/**", "opencode.json",
		".leasedeck/**", "**/.env", "*.pem", "src/**", "SRC/**", "Src", "~", "~/**", "/etc/**", "/etc/passwd", "/**",
		"proj/x", "~/proj/.mcp.json", ".GIT/**", "{.git,.x}/**", "[.]git/**", "src", "node_modules", "?.git", "\\.git/**",
		"~/.SSH/**", "~/.ssh/id_rsa", ".", "..", "../x"}
	paths := []string{"src/a.go", ".git/config", ".GIT/config", ".Git", ".git", "src", "src/sub", "SRC2/x", ".husky/pre-commit",
		".HUSKY/x", ".mcp.json", ".MCP.json", "src/g/hooks/x", "h/.claude.json", "h/.ssh/id_rsa", "h", "etc/passwd", "etc",
		".", "..", "../x", "~", "~/.claude.json", "~/.Claude.json", "~/proj/.mcp.json", "~/.ssh", "/etc/passwd", "/", "/tmp/x",
		"node_modules/x/y", "lefthook.yml", "LEFTHOOK.YML", ".claude/settings.json", ".claude", "x*", "src/*", ".git*", "*",
		".github", ".github/workflows/ci.yml", "src/../.git/config", "./.mcp.json", "src//a"}
	r := rand.New(rand.NewSource(1))
	checked, skipped := 0, 0
	for i := 0; i < 20000; i++ {
		pat := patterns[r.Intn(len(patterns))]
		ref, err := ResolvePath(ws, paths[r.Intn(len(paths))])
		if err != nil {
			continue
		}
		ref.AnySuffix = r.Intn(5) == 0
		ref.foldWS, ref.foldHome = r.Intn(2) == 0, r.Intn(2) == 0
		d := compileDeny(pat)
		if d.cannotTouch(&ref, nil) {
			skipped++
		}
		if d.cannotTouch(&ref, nil) && d.writeTouchesAll(&ref, nil) {
			t.Fatalf("%q against %+v: cannotTouch, but the whole check touches", pat, ref)
		}
		checked++
	}
	if checked < 10000 || skipped < checked/4 {
		t.Fatalf("only %d cases checked, %d skipped", checked, skipped)
	}
}
