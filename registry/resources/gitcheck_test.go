package resources

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/registry/internal/gitbound"
)

// gitWorkspace is a workspace holding a real git repository made by steps
// (shell lines run by bash in it).
func gitWorkspace(t testing.TB, steps ...string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = t\n\temail = t@example.com\n[init]\n\tdefaultBranch = main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, s := range append([]string{"git init -q ."}, steps...) {
		c := exec.Command("bash", "-c", s)
		c.Dir = ws
		c.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1"}
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", s, err, out)
		}
	}
	return ws
}

// gitVerdict is what the object check answers for line in ws under a
// deny list of .env (and wt/.env, a worktree's): "denied", "held" or "ok".
func gitVerdict(t *testing.T, ws, line string) (string, string) {
	t.Helper()
	use, err := FromToolCall(ws, ToolBash, map[string]any{"command": line})
	if err != nil {
		return "refused", err.Error()
	}
	for _, h := range use.Holds {
		return "held", h.Reason
	}
	res := CheckGitReads(use.GitReads, []string{".env", "wt/.env"})
	switch {
	case res.Denied != nil:
		return "denied", res.Denied.Path + " in " + res.Denied.Where
	case res.Hold != "":
		return "held", res.Hold
	}
	return "ok", ""
}

// commitsWithEnvFirst: .env is committed first and removed by the second
// commit; three more commits change other files.
var commitsWithEnvFirst = []string{
	"echo SECRET=x > .env && echo a > a && git add . && git commit -qm one",
	"git rm -q .env && git commit -qm two",
	"for i in 3 4 5; do echo $i > a && git commit -qam c$i; done",
}

func TestGitCheckWalks(t *testing.T) {
	ws := gitWorkspace(t, commitsWithEnvFirst...)
	for _, tc := range []struct{ line, want string }{
		{"git log -p -1", "ok"}, {"git log -p -3", "ok"}, {"git log -p -4", "denied"}, {"git log -p -n 3", "ok"},
		{"git log -p --max-count=4", "denied"}, {"git log -p -3 --skip=1", "denied"}, {"git log -p -2 HEAD~2", "denied"},
		{"git log -p -1 --author=t", "denied"}, {"git log -p HEAD~3..HEAD", "ok"}, {"git log -p HEAD~4..HEAD", "denied"},
		{"git log -p ^HEAD~3 HEAD", "ok"}, {"git show HEAD~1", "ok"}, {"git show HEAD~3", "denied"}, {"git show HEAD~4", "denied"},
		{"git show HEAD~3..HEAD", "ok"}, {"git show HEAD~3^!", "denied"}, {"git diff HEAD~4 HEAD", "denied"},
		{"git diff HEAD~3 HEAD", "ok"}, {"git diff HEAD~4", "denied"}, {"git diff HEAD~3", "ok"}, {"git grep x HEAD~4", "denied"},
		{"git grep x HEAD~3", "ok"}, {"git format-patch -3 --stdout", "ok"}, {"git format-patch -4 --stdout", "denied"},
		{"git format-patch HEAD~3 --stdout", "ok"}, {"git format-patch --root HEAD --stdout", "denied"},
		{"git bundle create x.bundle HEAD~3..HEAD", "ok"}, {"git bundle create x.bundle HEAD", "denied"},
		{"git log -p --all", "denied"}, {"git log -p -1 -- a", "ok"}, {"git log -p -- a", "ok"}, {"git log -p -- .", "denied"},
		{"git log -p --full-diff -- a", "denied"}, {"git log -p -g", "denied"}, {"git show HEAD@{1}", "denied"},
		{"git diff HEAD~4...HEAD", "denied"}, {"git diff HEAD~3...HEAD", "ok"}, {"git log -p nosuchref", "ok"},
		{"git show v1-3-g" + strings.TrimSpace(gitIn(t, ws, "git rev-parse --short=7 HEAD~4")), "denied"},
		{"git stash show -p", "ok"}, {"git log -p main-worktree/HEAD", "held"}, {"git range-diff HEAD~4..HEAD~3 HEAD~2..HEAD", "denied"},
	} {
		if got, why := gitVerdict(t, ws, tc.line); got != tc.want {
			t.Errorf("%q: %s (%s), want %s", tc.line, got, why, tc.want)
		}
	}
}

func gitIn(t *testing.T, dir, line string) string {
	t.Helper()
	c := exec.Command("bash", "-c", line)
	c.Dir = dir
	out, err := c.Output()
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return string(out)
}

// TestGitCheckBounds: a command whose own reach passes a bound is held,
// never allowed; so is every command when even the refs, reflogs and
// index cannot be read whole within the bounds.
func TestGitCheckBounds(t *testing.T) {
	ws := gitWorkspace(t, append(append([]string{}, commitsWithEnvFirst...), "git gc -q")...)
	for _, tc := range []struct {
		name   string
		bounds gitbound.Bounds
		line   string
	}{
		{"commits", gitbound.Bounds{Commits: 2, Entries: 1000, Time: time.Second}, "git log -p"},
		{"entries", gitbound.Bounds{Commits: 100, Entries: 3, Time: time.Second}, "git show HEAD"},
		{"time", gitbound.Bounds{Commits: 100, Entries: 1000, Time: -time.Second}, "git show HEAD"},
	} {
		restore := gitbound.Set(tc.bounds)
		if got, why := gitVerdict(t, ws, tc.line); got != "held" || !strings.Contains(why, "cannot tell what git") {
			t.Errorf("%s bound: %q: %s (%s), want held", tc.name, tc.line, got, why)
		}
		restore()
	}
	if got, why := gitVerdict(t, ws, "git log -p"); got != "denied" {
		t.Errorf("packed repository: %s (%s), want denied", got, why)
	}
}

// TestGitCheckPastBounds: in a repository whose history is past the
// bounds of the walk for denied content, the commands whose own reach is
// within them are judged, not held: by name within their reach, and by
// content against the blobs the refs, reflogs, stash and index hold (and
// the history walked before the bound). A denied file's content read in
// under another name from past the walk is refused by its own name.
func TestGitCheckPastBounds(t *testing.T) {
	ws := gitWorkspace(t, append(append([]string{}, commitsWithEnvFirst...),
		"git tag old HEAD~4",
		"mkdir -p wt && echo SECRET=stashed > wt/.env && git add -f wt/.env && git stash -q",
		"for i in $(seq 6 20); do echo $i > a && git commit -qam c$i; done",
		// Copies, under other names, of .env as old's tree holds it and
		// of wt/.env as the stash entry's index holds it.
		"git show old:.env > copy && git show stash@{0}^2:wt/.env > stashcopy && git add copy stashcopy && git commit -qm copies",
		"mkdir -p wt && echo SECRET=staged > wt/.env && git add -f wt/.env")...)
	// Past the bound: .env lies in old's tree and deep in the history,
	// wt/.env in the stash and the index.
	defer gitbound.Set(gitbound.Bounds{Commits: 8, Entries: 100000, Time: 2 * time.Second})()
	for _, tc := range []struct{ line, want string }{
		{"git show HEAD~1", "ok"}, {"git log -p -3 HEAD~1", "ok"}, {"git diff HEAD~3 HEAD~1", "ok"}, {"git show HEAD:a", "ok"},
		{"git log -p -- a", "held"}, {"git log -p", "denied"}, {"git show old", "denied"}, {"git diff --cached", "denied"},
		{"git show HEAD:copy", "denied"}, {"git show HEAD:stashcopy", "denied"}, {"git show HEAD", "denied"},
		{"git read-tree --prefix=src/k/ old", "denied"}, {"git read-tree --prefix=src/k/ HEAD~20", "denied"},
		{"git read-tree --prefix=src/k/ HEAD~1", "ok"},
	} {
		if got, why := gitVerdict(t, ws, tc.line); got != tc.want {
			t.Errorf("%q: %s (%s), want %s", tc.line, got, why, tc.want)
		}
	}
}

// TestGitCheckRepositories: the index of an unborn branch, a linked
// worktree's commondir, a subdirectory's prefix, a repository the agent
// can write.
func TestGitCheckRepositories(t *testing.T) {
	ws := gitWorkspace(t, "echo SECRET=x > .env && git add .env")
	for _, tc := range []struct{ line, want string }{
		{"git show HEAD", "ok"}, {"git log -p", "ok"}, {"git diff --cached", "denied"}, {"git diff", "denied"},
		{"git grep -n x", "denied"}, {"git diff -- src", "ok"}, {"git stash show -p", "ok"},
	} {
		if got, why := gitVerdict(t, ws, tc.line); got != tc.want {
			t.Errorf("unborn: %q: %s (%s), want %s", tc.line, got, why, tc.want)
		}
	}
	ws = gitWorkspace(t, "mkdir src && echo x > src/a && echo SECRET=x > .env && git add . && git commit -qm one",
		"git worktree add -q wt && mkdir nested && git init -q nested && echo S > nested/.env && git -C nested add .env")
	for _, tc := range []struct{ line, want string }{
		{"git -C wt log -p", "denied"}, {"cd wt && git show HEAD -- src", "ok"}, {"cd src && git grep -n x", "ok"},
		{"cd src && git grep -n x -- ..", "denied"}, {"cd src && git grep -n x -- ':/'", "denied"}, {"git -C nested diff", "held"},
		{"git --git-dir=.git --work-tree=. show", "denied"},
	} {
		if got, why := gitVerdict(t, ws, tc.line); got != tc.want {
			t.Errorf("%q: %s (%s), want %s", tc.line, got, why, tc.want)
		}
	}
}

// BenchmarkGitObjectsOrdinary is the cost of deriving and checking the
// content-printing git lines of an ordinary session in a small repository
// that tracks no denied file (with .env lying untracked beside it):
// go test ./registry/resources -run XXX -bench GitObjectsOrdinary.
func BenchmarkGitObjectsOrdinary(b *testing.B) {
	ws := gitWorkspace(b, "mkdir -p src docs && for i in $(seq 1 50); do echo $i > src/f$i.go; echo $i > docs/d$i.md; done && git add . && git commit -qm one",
		"for i in 2 3 4 5; do echo $i >> src/f1.go && git commit -qam c$i; done && echo SECRET=x > .env && echo y >> src/f2.go")
	lines := []string{"git diff", "git show HEAD", "git log -p -3", "git grep -n TODO", "git diff HEAD~1 HEAD", "git status"}
	deny := []string{".env", "~/.ssh/**"}
	for _, line := range lines {
		b.Run(line, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				use, err := FromToolCall(ws, ToolBash, map[string]any{"command": line})
				if err != nil {
					b.Fatal(err)
				}
				if res := CheckGitReads(use.GitReads, deny); res.Denied != nil || res.Hold != "" {
					b.Fatalf("%q: %+v", line, res)
				}
			}
		})
	}
}

// TestGitCheckConcurrent: calls checked at once share the object cache
// and agree with a check made alone.
func TestGitCheckConcurrent(t *testing.T) {
	ws := gitWorkspace(t, append(append([]string{}, commitsWithEnvFirst...), "git gc -q")...)
	lines := map[string]string{"git log -p": "denied", "git log -p -2": "ok", "git show HEAD~3": "denied", "git diff HEAD~3 HEAD": "ok"}
	done := make(chan string)
	for range 4 {
		go func() {
			var bad []string
			for range 20 {
				for line, want := range lines {
					if got, why := gitVerdict(t, ws, line); got != want {
						bad = append(bad, line+": "+got+" "+why)
					}
				}
			}
			done <- strings.Join(bad, "; ")
		}()
	}
	for range 4 {
		if bad := <-done; bad != "" {
			t.Error(bad)
		}
	}
}
