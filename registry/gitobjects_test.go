package registry

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// git prints files from its object store and its index without naming
// their paths: git log -p, git show, git diff, git grep, git archive,
// git format-patch, git stash show -p, a blob named by its hash. In a
// workspace whose repository tracks a denied file (or did once), each of
// these prints it. Each line is checked through the service's Gate under a
// lease that denies .env, and run by real git to show it does print the
// secret when the gate is not there.

const gitSecret = "SECRET=hunter2"

// gitObjectsFixture is a service whose workspace is a real git repository
// made by steps (each a shell line run by bash in the workspace), and a
// lease that denies .env.
func gitObjectsFixture(t *testing.T, steps ...string) (*fixture, string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	f := newFixtureWith(t, func(c *Config) { c.Calls = CallRules{ProtectedWrites: gitProtected} })
	home := t.TempDir()
	writeFile(t, filepath.Join(home, ".gitconfig"), "[user]\n\tname = t\n\temail = t@example.com\n[init]\n\tdefaultBranch = main\n", 0o644)
	for _, s := range append([]string{"git init -q ."}, steps...) {
		c := exec.Command("bash", "-c", s)
		c.Dir = f.dir
		c.Env = gitTestEnv(home)
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", s, err, out)
		}
	}
	lease := f.issue(agentManifest("git", 1000, func(m map[string]any) {
		m["allow"] = map[string]any{"tools": []any{"Bash", "Read"}, "read_paths": []any{"**"},
			"write_paths": []any{"src/**"}, "hosts": []any{"github.com"},
			"commands": []any{"ls", "cat", "git", "echo", "sed", "find", "grep"}}
		m["deny"] = map[string]any{"commands": []any{"sudo"}, "paths": []any{".env", "~/.ssh/**"}, "hosts": []any{}}
		m["approvals"] = []any{}
	}), "")
	return f, lease
}

func gitTestEnv(home string) []string {
	return []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z", "GIT_PAGER=cat"}
}

// gitOut is the output of a git line run by real git in dir.
func gitOut(t *testing.T, dir, line string) string {
	t.Helper()
	c := exec.Command("bash", "-c", line)
	c.Dir = dir
	c.Env = gitTestEnv(t.TempDir())
	out, _ := c.CombinedOutput()
	return string(out)
}

// gitTracked: .env is committed in HEAD, changed in the index and in the
// work tree, and a stash holds another change of it.
var gitTracked = []string{
	"mkdir -p src && echo 'package a // TODO' > src/a.go && echo hi > README.md && git add src/a.go README.md && git commit -qm one",
	"echo SECRET=stash > .env && git add .env && git stash -q",
	"echo " + gitSecret + " > .env && echo 'package a // x' > src/a.go && git add .env src/a.go && git commit -qm two",
	"echo SECRET=staged > .env && git add .env && echo SECRET=worktree > .env",
}

// gitRemoved: .env was committed once and removed since; HEAD has none.
var gitRemoved = []string{
	"echo " + gitSecret + " > .env && echo hi > README.md && git add .env README.md && git commit -qm one",
	"git rm -q --cached .env && rm .env && mkdir -p src && echo 'package a' > src/a.go && git add src && git commit -qm two",
	"echo 'package a // TODO' > src/a.go && git commit -qam three",
}

// gitClean: nothing denied was ever tracked.
var gitClean = []string{
	"mkdir -p src && echo 'package a // TODO' > src/a.go && echo hi > README.md && git add . && git commit -qm one",
	"echo 'package a // TODO 2' > src/a.go && git commit -qam two && echo 'package a // 3' > src/a.go && git add src/a.go",
	"echo " + gitSecret + " > .env",
}

func TestGateRefusesGitObjectsOfDeniedFiles(t *testing.T) {
	for _, tc := range []struct {
		name  string
		steps []string
		lines []string
	}{
		{"tracked", gitTracked, []string{
			"git log -p", "git log -p -1", "git log --all -p", "git log -u", "git log --patch -2", "git log -p --follow -- .",
			"git show", "git show HEAD", "git show -p HEAD", "git show --format=%H HEAD",
			"git diff", "git diff --cached", "git diff --staged", "git diff HEAD", "git diff HEAD~1 HEAD", "git diff HEAD~1..HEAD",
			"git diff HEAD~1", "git diff -- .", "git diff -U1 HEAD~1 HEAD",
			"git grep -n SECRET", "git grep SECRET HEAD", "git grep --cached SECRET", "git grep -l SECRET",
			"git archive HEAD", "git archive --format=tar HEAD", "git format-patch -1 --stdout", "git format-patch --root --stdout",
			"git stash show -p", "git stash show -p stash@{0}", "git show BLOB", "git show COMMIT", "git whatchanged -p",
			"git log --all -p --reverse", "git diff-tree -p HEAD", "git diff-index -p HEAD", "git diff-files -p",
			"cd src && git diff", "cd src && git log -p", "git -C src show HEAD", "git log -p -- src/.. ",
			"git log -G SECRET --oneline", "git bundle create src/x.bundle HEAD && git bundle list-heads src/x.bundle", "git log -p -- '*.env'", "git show HEAD -- .", "git grep -e SECRET -- ':/'",
		}},
		{"removed", gitRemoved, []string{
			"git log -p", "git log --all -p", "git show HEAD~2", "git show HEAD~1", "git show COMMIT1",
			"git diff HEAD~2 HEAD", "git diff HEAD~2", "git grep SECRET HEAD~2", "git archive HEAD~2",
			"git format-patch --root --stdout", "git whatchanged -p", "git show BLOB", "git log -p --reverse",
			"git log -p -3", "git log -p HEAD~1", "git diff HEAD~2..HEAD~1", "git bundle create src/x.bundle --all && git bundle list-heads src/x.bundle",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, lease := gitObjectsFixture(t, tc.steps...)
			blob := strings.TrimSpace(gitOut(t, f.dir, "git rev-parse --short HEAD:.env 2>/dev/null || git rev-parse --short HEAD~2:.env"))
			commit1 := strings.TrimSpace(gitOut(t, f.dir, "git rev-list --max-parents=0 HEAD"))
			commit := strings.TrimSpace(gitOut(t, f.dir, "git rev-parse HEAD"))
			for _, line := range tc.lines {
				line = strings.NewReplacer("BLOB", blob, "COMMIT1", commit1, "COMMIT", commit).Replace(line)
				// git grep -l and the pickaxe print names and commits, not
				// the secret: they answer questions about it (an oracle).
				oracle := strings.Contains(line, " -l ") || strings.Contains(line, " -G") || strings.Contains(line, " bundle ")
				if out := gitOut(t, f.dir, line); !strings.Contains(out, "SECRET=") && !(oracle && strings.Contains(out, ".env")) && !(oracle && strings.TrimSpace(out) != "") {
					t.Errorf("%q: real git does not print the secret, so the line is no attack:\n%s", line, out)
				}
				ans := f.svc.Gate(t.Context(), GateRequest{LeaseID: lease, Call: ToolCall{Tool: "Bash", Input: map[string]any{"command": line}}, Client: "test", DryRun: true})
				if ans.Verdict == VerdictAllow {
					t.Errorf("%q: allowed (%s), want it refused or held", line, ans.Reason)
				}
				if testing.Verbose() {
					t.Logf("%q: %s %s", line, ans.Verdict, ans.Reason)
				}
			}
		})
	}
}

// TestGateGitObjectsOrdinaryLines: in a repository that never tracked a
// denied file, lines that print contents stay allowed (a denied .env
// lies untracked in the work tree).
func TestGateGitObjectsOrdinaryLines(t *testing.T) {
	f, lease := gitObjectsFixture(t, gitClean...)
	for _, line := range []string{
		"git status", "git diff", "git diff --cached", "git diff HEAD~1", "git diff HEAD~1 HEAD", "git log -p -3", "git log -p",
		"git show HEAD", "git show", "git grep -n TODO", "git grep TODO HEAD~1", "git archive HEAD", "git log --all -p",
		"git format-patch -1 --stdout", "git log --oneline -5", "git show HEAD:src/a.go", "git whatchanged -p", "git blame src/a.go",
	} {
		if ans := f.gate(lease, "Bash", map[string]any{"command": line}); ans.Verdict != VerdictAllow {
			t.Errorf("%q: %s %s, want allow", line, ans.Verdict, ans.Reason)
		}
	}
}

// TestGateGitObjectsNarrowedLines: where .env is tracked, a line whose
// pathspecs or format leave it out stays allowed, and real git indeed
// prints no secret for it.
func TestGateGitObjectsNarrowedLines(t *testing.T) {
	f, lease := gitObjectsFixture(t, gitTracked...)
	for _, line := range []string{
		"git log -p -- . ':!.env'", "git log -p . ':!.env'", "git log -p -- src", "git log -p -- src/a.go",
		"git diff -- src", "git diff HEAD~1 HEAD -- src/a.go", "git show HEAD -- src", "git show HEAD -- ':(exclude).env' .",
		"git grep -n TODO -- src", "git grep -n TODO HEAD -- . ':!.env'", "git archive HEAD src", "cd src && git grep -n TODO",
		"git show -s HEAD", "git show --no-patch HEAD", "git log --stat", "git log --oneline", "git diff --stat",
		"git diff --name-only HEAD~1", "git show HEAD:src/a.go", "git status", "git log -p -1 -- src", "git diff --cached -- src",
		"git show HEAD~1", "git log -p HEAD~1", "git diff HEAD~1 -- src", "git format-patch -1 --stdout -- src",
	} {
		if out := gitOut(t, f.dir, line); strings.Contains(out, "SECRET=") {
			t.Errorf("%q: real git prints the secret, so the line is no narrowed one:\n%s", line, out)
		}
		ans := f.svc.Gate(t.Context(), GateRequest{LeaseID: lease, Call: ToolCall{Tool: "Bash", Input: map[string]any{"command": line}}, Client: "test", DryRun: true})
		if ans.Verdict != VerdictAllow {
			t.Errorf("%q: %s %s, want allow", line, ans.Verdict, ans.Reason)
		}
	}
}

// TestGateGitObjectsHeld: what the gate cannot read of a repository is
// held for a human, never allowed: replace refs (git shows other objects
// than the ones named), a malformed index, a message search.
func TestGateGitObjectsHeld(t *testing.T) {
	for _, tc := range []struct {
		name, step, line string
	}{
		{"replace refs", "git replace HEAD HEAD~1", "git show HEAD"},
		{"malformed index", "printf 'DIRC\\0\\0\\0\\2\\0\\0\\0\\1garbage' > .git/index", "git diff"},
		{"truncated index", "head -c 100 .git/index > x && mv x .git/index", "git grep -n TODO"},
		{"split index", "git update-index --split-index", "git diff"},
		{"message search", "", "git show ':/two'"},
		{"grafts", "echo $(git rev-parse HEAD) > .git/info/grafts", "git log -p -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			steps := append([]string{}, gitClean...)
			if tc.step != "" {
				steps = append(steps, tc.step)
			}
			f, lease := gitObjectsFixture(t, steps...)
			ans := f.svc.Gate(t.Context(), GateRequest{LeaseID: lease, Call: ToolCall{Tool: "Bash", Input: map[string]any{"command": tc.line}}, Client: "test", DryRun: true})
			if ans.Verdict != VerdictAsk || !strings.Contains(ans.Reason, "cannot tell what git") {
				t.Errorf("%q after %q: %s %s, want it held", tc.line, tc.step, ans.Verdict, ans.Reason)
			}
		})
	}
}
