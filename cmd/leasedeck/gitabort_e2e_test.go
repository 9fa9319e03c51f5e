package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// An agent under the shipped claude-code lease aborts a merge, a
// cherry-pick, a revert, an am or a rebase after moving what the abort
// resets to (HEAD's branch, ORIG_HEAD, with git update-ref, each call
// allowed), or aborts a rebase whose branch holds a protected file: real
// git then writes .mcp.json, a CI workflow or .claude/settings.json.
// Through the built binary against a real registry, every abort is
// refused naming the file, and real git shows it would have been written.
func TestCheckJudgesGitAbortsByWhatTheyWrite(t *testing.T) {
	for _, c := range []struct {
		name         string
		human, agent []string // lines run before: by the human, by the agent (each allowed first)
		abort, says  string
	}{
		{"merge", nil, []string{"git update-ref MERGE_HEAD HEAD", "git update-ref refs/heads/main evil-mcp"}, "git merge --abort", ".mcp.json"},
		{"cherry-pick", nil, []string{"git update-ref CHERRY_PICK_HEAD HEAD", "git update-ref refs/heads/main evil-mcp"}, "git cherry-pick --abort", ".mcp.json"},
		{"revert", nil, []string{"git update-ref REVERT_HEAD HEAD", "git update-ref refs/heads/main evil-ci"}, "git revert --abort", ".github/workflows/x.yml"},
		{"am", []string{"echo m > src/a.go && git commit -qam m && git format-patch -q -1 feature -o ../p && { git am ../p/*.patch; true; }"},
			[]string{"git update-ref ORIG_HEAD evil-mcp"}, "git am --abort", ".mcp.json"},
		{"rebase", []string{"echo m > src/a.go && git commit -qam m && git checkout -qb side main~1 && echo s > src/a.go && git commit -qam s1 && " +
			"mkdir -p .claude && echo '{}' > .claude/settings.json && git add -f .claude/settings.json && git commit -qm s2 && { git rebase main; true; }"},
			nil, "git rebase --abort", ".claude/settings.json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorkspace(t)
			gitRewriteRepo(t, w.dir)
			sh := gitShell(t, w.dir)
			for _, line := range c.human {
				sh(line)
			}
			w.serve()
			lease := w.issue(filepath.Join(w.dir, ".leasedeck", "agents", "claude-code.json"), "")
			check := func(line string) result {
				in, _ := json.Marshal(map[string]string{"command": line})
				return w.run("", "check", "--lease", lease, "--tool", "Bash", "--input", string(in))
			}
			for _, line := range c.agent {
				if r := check(line); r.code != 0 {
					t.Fatalf("%s: exit %d, want it allowed (the chain is the agent's own)\n%s%s", line, r.code, r.stdout, r.stderr)
				}
				sh(line)
			}
			if r := check(c.abort); r.code != 3 || !strings.Contains(r.stdout+r.stderr, c.says) {
				t.Errorf("check %s: exit %d, want 3 saying %q\n%s%s", c.abort, r.code, c.says, r.stdout, r.stderr)
			}
			stdin := w.payload("claude-code", "PreToolUse", func(m map[string]any) {
				m["tool_input"].(map[string]any)["command"] = c.abort
			})
			if r := w.hook("claude-code", stdin); r.code != 0 || !strings.Contains(r.stdout, `"permissionDecision":"deny"`) {
				t.Errorf("hook %s: exit %d, stdout %s, stderr %s", c.abort, r.code, r.stdout, r.stderr)
			}
			if _, err := os.Lstat(filepath.Join(w.dir, filepath.FromSlash(c.says))); err == nil {
				t.Fatalf("%s is in the work tree before the abort: the case plants nothing", c.says)
			}
			sh(c.abort)
			if _, err := os.Lstat(filepath.Join(w.dir, filepath.FromSlash(c.says))); err != nil {
				t.Errorf("real git's %s did not write %s, so the case is no attack: %v", c.abort, c.says, err)
			}
		})
	}
}

// gitShell runs lines with real git in dir as gitRewriteRepo's did.
func gitShell(t *testing.T, dir string) func(string) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = t\n\temail = t@example.com\n[init]\n\tdefaultBranch = main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return func(line string) {
		t.Helper()
		c := exec.Command("bash", "-c", line)
		c.Dir = dir
		c.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1", "GIT_EDITOR=true"}
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", line, err, out)
		}
	}
}
