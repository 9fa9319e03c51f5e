package registry

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// gitSteps runs each shell line with real git and bash in dir (an
// isolated home, no system configuration): how a test builds the
// repository an agent would have made, which the gate then reads with its
// own reader.
func gitSteps(t testing.TB, dir string, steps ...string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	home := filepath.Join(t.TempDir(), "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	config := "[user]\n\tname = t\n\temail = t@example.com\n[init]\n\tdefaultBranch = main\n[safe]\n\tdirectory = *\n"
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, s := range steps {
		c := exec.Command("bash", "-c", s)
		c.Dir = dir
		c.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0"}
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", s, err, out)
		}
	}
}

// ordinaryGitRewriteLines move the work tree in an ordinary repository
// (gitRewriteWorkspace: a branch feature and a stash entry that touch
// only src/): each must be allowed. They are kept apart from
// ordinaryLines, whose workspace is not a repository with those branches
// and whose benchmark measures lines that read no repository.
var ordinaryGitRewriteLines = []string{
	"git checkout feature", "git checkout main", "git switch feature", "git switch -c topic feature",
	"git checkout -b topic feature", "git checkout -", "git checkout --detach feature", "git merge feature",
	"git merge --no-ff feature", "git merge --squash feature", "git merge -X theirs feature",
	"git merge --no-commit --no-ff feature", "git rebase feature", "git rebase --onto feature main~1",
	"git cherry-pick feature", "git cherry-pick -n feature", "git cherry-pick main~1..feature",
	"git revert --no-edit HEAD", "git revert -n HEAD", "git stash", "git stash push -m wip", "git stash save wip",
	"git stash pop", "git stash apply", "git stash apply stash@{0}", "git stash pop --index",
	"git reset --hard", "git reset --hard HEAD~1", "git reset --hard feature", "git reset --merge feature",
	"git reset --keep feature", "git checkout -f", "git status && git checkout feature", "cd src && git stash",
	"git checkout feature && git log --oneline -3", "git merge --autostash feature",
}

// gitRewriteWorkspace is an ordinary workspace that is a git repository:
// main, a branch feature changing only src/, a stash entry changing
// src/a.go.
func gitRewriteWorkspace(t testing.TB, ws string) {
	gitSteps(t, ws, "git init -q . && git add src README.md docs go.mod package.json && git commit -qm one",
		"git checkout -qb feature && echo b > src/b.go && echo n > src/n.go && git add src && git commit -qm feature",
		"git checkout -q main && echo c > src/c.go && git add src && git commit -qm three",
		"echo local > src/a.go && git stash -q")
}

func TestGateGitRewriteOrdinaryLinesAllowed(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	ws := shellWorkspaceWith(t)
	gitRewriteWorkspace(t, ws)
	s := shellState(t, now)
	rules := CallRules{ProtectedWrites: gitProtected}
	for _, cmd := range ordinaryGitRewriteLines {
		call := ToolCall{Tool: "Bash", Input: map[string]any{"command": cmd}}
		if res := rules.decide(s, "ordinary", call, rules.factsOf(ws, call), now, nil); res.Verdict != VerdictAllow {
			t.Errorf("%q: %s %s, want allow", cmd, res.Verdict, res.Reason)
		}
	}
}

// BenchmarkGateGitRewrite is the in-process gate for the lines above, one
// after another: the figure is per line, each reading the repository.
func BenchmarkGateGitRewrite(b *testing.B) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	ws := shellWorkspaceB(b)
	gitRewriteWorkspace(b, ws)
	s := shellState(&testing.T{}, now)
	rules := benchCallRules(b)
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for b.Loop() {
		call := ToolCall{Tool: "Bash", Input: map[string]any{"command": ordinaryGitRewriteLines[n%len(ordinaryGitRewriteLines)]}}
		if res := rules.decide(s, "ordinary", call, rules.factsOf(ws, call), now, nil); res.Verdict != VerdictAllow {
			b.Fatal(res.Reason)
		}
		n++
	}
}
