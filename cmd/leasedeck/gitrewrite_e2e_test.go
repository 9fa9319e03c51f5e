package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitRewriteRepo makes the workspace a git repository as a developer's
// would be (src/ committed on main; a branch feature that changes only
// src/; a stash entry that does too) and adds what an agent could plant
// with git alone: branches whose trees carry .mcp.json, a CI workflow, a
// link out of the workspace, a submodule, and a stash entry carrying
// .claude/settings.json.
func gitRewriteRepo(t *testing.T, dir string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = t\n\temail = t@example.com\n[init]\n\tdefaultBranch = main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"git init -q . && mkdir -p src && echo a > src/a.go && git add src && git commit -qm one",
		"git checkout -qb feature && echo b > src/b.go && echo a2 > src/a.go && git add src && git commit -qm feature",
		"git checkout -q main && echo c > src/c.go && git add src && git commit -qm three",
		"echo local > src/a.go && git stash -q",
		"git checkout -qb evil-mcp && echo '{}' > .mcp.json && git add .mcp.json && git commit -qm x && git checkout -q main",
		"git checkout -qb evil-ci && mkdir -p .github/workflows && echo 'on: push' > .github/workflows/x.yml && git add .github && git commit -qm x && git checkout -q main",
		"git checkout -qb evil-link && ln -s /etc src/l && git add src/l && git commit -qm x && git checkout -q main",
		"git checkout -qb evil-sub && git update-index --add --cacheinfo 160000,$(git rev-parse HEAD),src/sub && git commit -qm x && git checkout -qf main",
		"mkdir -p .claude && echo '{}' > .claude/settings.json && git add -f .claude/settings.json && git stash -q",
	} {
		c := exec.Command("bash", "-c", s)
		c.Dir = dir
		c.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1"}
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", s, err, out)
		}
	}
}

// An agent under the shipped claude-code lease runs the git commands that
// move the work tree. Through the built binary against a real registry
// and the default policy: the ordinary ones are allowed (exit 0, and
// allow from the real hook), the ones whose trees carry a protected path,
// a link out of the workspace or a submodule are refused (exit 3, and deny
// from the hook), and git pull is held for a human (exit 5).
func TestCheckJudgesGitRewritesByWhatTheyWrite(t *testing.T) {
	w := newWorkspace(t)
	gitRewriteRepo(t, w.dir)
	w.serve()
	lease := w.issue(filepath.Join(w.dir, ".leasedeck", "agents", "claude-code.json"), "")
	for _, c := range []struct {
		line string
		want int
		says string
	}{
		{"git checkout feature", 0, "within the lease"},
		{"git switch feature", 0, "within the lease"},
		{"git merge feature", 0, "within the lease"},
		{"git merge --no-ff feature", 0, "within the lease"},
		{"git rebase feature", 0, "within the lease"},
		{"git cherry-pick feature", 0, "within the lease"},
		{"git revert --no-edit HEAD", 0, "within the lease"},
		{"git stash", 0, "within the lease"},
		{"git stash apply stash@{1}", 0, "within the lease"},
		{"git reset --hard HEAD~1", 0, "within the lease"},
		{"git checkout evil-mcp", 3, ".mcp.json"},
		{"git merge evil-mcp", 3, ".mcp.json"},
		{"git reset --hard evil-ci", 3, ".github/workflows"},
		{"git cherry-pick evil-ci", 3, ".github/workflows"},
		{"git switch evil-link", 3, "src/l a symbolic link to /etc"},
		{"git rebase evil-link", 3, "/etc"},
		{"git checkout evil-sub", 3, "submodule"},
		{"git stash pop", 3, ".claude/settings.json"},
		{"git pull", 5, "git fetch"},
		{"git pull --rebase origin main", 5, "git fetch"},
	} {
		in, _ := json.Marshal(map[string]string{"command": c.line})
		r := w.run("", "check", "--lease", lease, "--tool", "Bash", "--input", string(in))
		if r.code != c.want || !strings.Contains(r.stdout+r.stderr, c.says) {
			t.Errorf("check %s: exit %d, want %d saying %q\n%s%s", c.line, r.code, c.want, c.says, r.stdout, r.stderr)
		}
	}
	for line, want := range map[string]string{
		"git checkout feature":  `"permissionDecision":"allow"`,
		"git stash":             `"permissionDecision":"allow"`,
		"git merge feature":     `"permissionDecision":"allow"`,
		"git checkout evil-mcp": `"permissionDecision":"deny"`,
		"git switch evil-link":  `"permissionDecision":"deny"`,
	} {
		stdin := w.payload("claude-code", "PreToolUse", func(m map[string]any) {
			m["tool_input"].(map[string]any)["command"] = line
		})
		if r := w.hook("claude-code", stdin); r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("hook %s: exit %d, stdout %s, stderr %s", line, r.code, r.stdout, r.stderr)
		}
	}
}
