package registry

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSwappedWorkspaceSeenByTheNextCall: nothing the gate learns of the
// file system outlives a call. A workspace replaced by a symbolic link to
// the home directory between two calls (by anything the gate does not
// see: a recipe, another process) is resolved anew by the next call, so
// `ls .ssh/id_rsa` there is the denied ~/.ssh/id_rsa, not a file inside
// the workspace.
func TestSwappedWorkspaceSeenByTheNextCall(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(root, "home")
	ws := filepath.Join(home, "proj")
	for _, d := range []string{filepath.Join(home, ".ssh"), filepath.Join(ws, "src")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("key"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	f := newFixtureWith(t, func(c *Config) { c.Workspace = ws })
	id := f.issue(agentManifest("swap", 100, nil), "")
	if a := f.gate(id, "Bash", map[string]any{"command": "ls src"}); a.Verdict != VerdictAllow {
		t.Fatalf("before the swap: %s %s", a.Verdict, a.Reason)
	}
	if err := os.Rename(ws, ws+".real"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(home, ws); err != nil {
		t.Fatal(err)
	}
	if a := f.gate(id, "Bash", map[string]any{"command": "ls .ssh/id_rsa"}); a.Verdict != VerdictDeny {
		t.Errorf("after the workspace became a link to the home directory, ls .ssh/id_rsa: %s %s, want deny", a.Verdict, a.Reason)
	}
}
