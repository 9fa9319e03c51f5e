package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An agent under a strict lease (ls cat git echo sed find grep, nothing
// needs approval) plants a repository whose configuration names a program,
// then runs an ordinary git command in it: through the built binary's
// check, against a real registry and the default policy, the command is
// held for a human (exit 5), the workspace's own .git cannot be written
// (exit 3), and git in the workspace's own repository stays allowed.
func TestCheckHoldsGitInAPlantedRepository(t *testing.T) {
	w := newWorkspace(t)
	w.serve()
	for _, d := range []string{".git/objects", ".git/refs/heads", "d/.git/objects", "d/.git/refs/heads", "x/objects", "x/refs", "src"} {
		if err := os.MkdirAll(filepath.Join(w.dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		".git/HEAD": "ref: refs/heads/main\n", ".git/config": "[core]\n\trepositoryformatversion = 0\n",
		"d/.git/HEAD": "ref: refs/heads/main\n", "d/.git/config": "[core] fsmonitor = \"touch /tmp/PWNED; false\"\n",
		"x/HEAD": "ref: refs/heads/main\n", "x/config": "[core]\n\tfsmonitor = \"touch /tmp/PWNED; false\"\n",
		"e/.git": "gitdir: ../d/.git\n",
	}
	for name, content := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(w.dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(w.dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The lease an agent would get: the shipped claude-code manifest,
	// narrowed to the strict commands and no approvals.
	raw, err := os.ReadFile(filepath.Join(w.dir, ".leasedeck", "agents", "claude-code.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	m["allow"].(map[string]any)["commands"] = []string{"ls", "cat", "git", "echo", "sed", "find", "grep"}
	m["approvals"] = []string{}
	b, _ := json.Marshal(m)
	manifest := filepath.Join(t.TempDir(), "m.json")
	if err := os.WriteFile(manifest, b, 0o600); err != nil {
		t.Fatal(err)
	}
	lease := w.issue(manifest, "")
	for _, c := range []struct {
		tool, input string
		want        int
		says        string
	}{
		{"Bash", `{"command":"git -C d status"}`, 5, "d/.git"},
		{"Bash", `{"command":"cd d && git status"}`, 5, "d/.git"},
		{"Bash", `{"command":"git --git-dir=d/.git status"}`, 5, "d/.git"},
		{"Bash", `{"command":"git -C x status"}`, 5, "repository at x"},
		{"Bash", `{"command":"git -C e status"}`, 5, "d/.git"},
		{"Bash", `{"command":"git init n && git -C n status"}`, 5, "does not exist yet"},
		{"Bash", `{"command":"echo ../d/.git > .git/commondir"}`, 3, ".git/**"},
		{"Write", `{"file_path":".git/config.worktree","content":"[core]\n"}`, 3, ".git/**"},
		{"Bash", `{"command":"git status"}`, 0, "allow"},
		{"Bash", `{"command":"cd src && git log"}`, 0, "allow"},
		{"Bash", `{"command":"git add -A && git commit -m x"}`, 0, "allow"},
	} {
		r := w.run("", "check", "--lease", lease, "--tool", c.tool, "--input", c.input)
		if r.code != c.want || !strings.Contains(r.stdout+r.stderr, c.says) {
			t.Errorf("check %s %s: exit %d, want %d saying %q\n%s%s", c.tool, c.input, r.code, c.want, c.says, r.stdout, r.stderr)
		}
	}
}
