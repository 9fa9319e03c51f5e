package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Under a strict lease (ls cat git echo sed find grep), `git commit`
// starts the editor, and vim runs VIMINIT as Ex commands: the line runs a
// program it never names. Proven with the real bash, git and vim (when
// installed), then refused by the built binary's check.
func TestCheckRefusesAVariableTheEditorRuns(t *testing.T) {
	for _, prog := range []string{"bash", "git", "vim"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skipf("%s is not installed", prog)
		}
	}
	w := newWorkspace(t)
	w.serve()
	home := t.TempDir()
	gitEnv := append(os.Environ(), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@example.com",
		"GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@example.com", "EDITOR=", "VISUAL=", "GIT_EDITOR=vim")
	run := func(line string) {
		t.Helper()
		cmd := exec.Command("bash", "-c", line)
		cmd.Dir, cmd.Env = w.dir, gitEnv
		cmd.Stdin = strings.NewReader("")
		cmd.CombinedOutput()
	}
	run("git init -q && git commit -q --allow-empty -m init")
	// GIT_EDITOR only stands for git's built-in default, which differs
	// between builds; the line under test does not set it.
	line := `VIMINIT=':!touch PWNED' git commit --allow-empty`
	run(line)
	if _, err := os.Stat(filepath.Join(w.dir, "PWNED")); err != nil {
		t.Skipf("vim did not run VIMINIT here (%v): nothing to prove", err)
	}
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
	for _, l := range []string{line, `export EXINIT=':!touch PWNED'; git tag -a v1`, `LESS='+!touch PWNED' git log`} {
		in, _ := json.Marshal(map[string]string{"command": l})
		if r := w.run("", "check", "--lease", lease, "--tool", "Bash", "--input", string(in)); r.code != 3 {
			t.Errorf("check %s: exit %d, want 3\n%s%s", l, r.code, r.stdout, r.stderr)
		}
	}
}
