package resources

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The gate's answer for a work-tree-moving git command is a set of paths
// read from the repository's objects; real git decides what it writes.
// These tests run both on the same repository and check that whatever
// real git changed in the work tree (files and symbolic links, compared
// before and after) lies within what the gate said the command writes.

// treeState is every file and link below ws, .git left out: its kind,
// mode and content (a link's target).
func treeState(t testing.TB, ws string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(ws, p)
		if rel == ".git" {
			return filepath.SkipDir
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			out[filepath.ToSlash(rel)] = "link:" + target
		case d.Type().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fi, _ := d.Info()
			sum := sha256.Sum256(data)
			out[filepath.ToSlash(rel)] = fmt.Sprintf("file:%o:%s", fi.Mode().Perm()&0o100, hex.EncodeToString(sum[:8]))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// changedPaths are the paths whose state differs between before and after.
func changedPaths(before, after map[string]string) []string {
	var out []string
	for p, v := range before {
		if after[p] != v {
			out = append(out, p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// realGit runs line with real git and bash in ws (an isolated home, no
// system configuration, no editor); its exit status does not matter (a
// conflict still writes).
func realGit(t testing.TB, ws, line string) string {
	t.Helper()
	home := filepath.Join(filepath.Dir(ws), "home")
	_ = os.MkdirAll(home, 0o755)
	_ = os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = t\n\temail = t@example.com\n[init]\n\tdefaultBranch = main\n"), 0o644)
	c := exec.Command("bash", "-c", line)
	c.Dir = ws
	c.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1", "GIT_EDITOR=true",
		"GIT_MERGE_AUTOEDIT=no", "GIT_TERMINAL_PROMPT=0"}
	out, _ := c.CombinedOutput()
	return string(out)
}

// gateCovers reports whether the gate's writes (workspace-relative; a
// trailing "*" any suffix) hold rel.
func gateCovers(writes []string, rel string) bool {
	for _, w := range writes {
		if w == rel || (strings.HasSuffix(w, "*") && strings.HasPrefix(rel, strings.TrimSuffix(w, "*"))) {
			return true
		}
	}
	return false
}

// differential derives line's use in ws, runs it with real git there, and
// returns what the gate said and what git changed. ok is false when the
// gate did not allow the writes (it refused or held the line).
func differential(t *testing.T, ws, line string) (writes, changed []string, ok bool, why string) {
	t.Helper()
	w, holds, err := rewriteOf(t, ws, line)
	before := treeState(t, ws)
	out := realGit(t, ws, line)
	changed = changedPaths(before, treeState(t, ws))
	switch {
	case err != nil:
		return nil, changed, false, err.Error()
	case len(holds) > 0:
		return nil, changed, false, holds[0]
	}
	_ = out
	return w, changed, true, ""
}

// poolPaths are the paths random repositories use: ordinary ones and
// protected ones.
var poolPaths = []string{"src/a.go", "src/b.go", "src/sub/c.go", "README.md", "docs/x.md", ".mcp.json",
	".claude/settings.json", ".github/workflows/ci.yml", ".vscode/tasks.json", "lib/d.go"}

// randomEdit is a shell line that changes the work tree at random: writes,
// removals, renames and links among the pool's paths.
func randomEdit(r *rand.Rand) string {
	var steps []string
	for range 1 + r.Intn(3) {
		p := poolPaths[r.Intn(len(poolPaths))]
		switch r.Intn(6) {
		case 0:
			steps = append(steps, fmt.Sprintf("git rm -rqf --ignore-unmatch %s", p))
		case 1:
			q := poolPaths[r.Intn(len(poolPaths))]
			steps = append(steps, fmt.Sprintf("{ [ -e %s ] && [ ! -e %s ] && mkdir -p $(dirname %s) && git mv %s %s; true; }", p, q, q, p, q))
		case 2:
			target := []string{"/etc", "../README.md", "a.go", "../../outside"}[r.Intn(4)]
			steps = append(steps, fmt.Sprintf("mkdir -p $(dirname %s) && rm -rf %s && ln -s %s %s", p, p, target, p))
		default:
			steps = append(steps, fmt.Sprintf("mkdir -p $(dirname %s) && rm -rf %s && echo %d > %s", p, p, r.Intn(3), p))
		}
	}
	return strings.Join(steps, " && ")
}

// randomRepo builds a repository of a few commits on main and a branch
// feature, perhaps a stash entry and local changes.
func randomRepo(t *testing.T, r *rand.Rand) string {
	steps := []string{
		"mkdir -p src && echo 0 > src/a.go && echo r > README.md && git add -A && git commit -qm one",
		"git checkout -qb feature",
	}
	for range 1 + r.Intn(2) {
		steps = append(steps, randomEdit(r)+" && git add -A && git commit -qm f --allow-empty")
	}
	steps = append(steps, "git checkout -qf main")
	if r.Intn(2) == 0 {
		steps = append(steps, randomEdit(r)+" && git add -A && git commit -qm m --allow-empty")
	}
	if r.Intn(2) == 0 {
		steps = append(steps, "{ [ -f src/a.go ] && [ ! -L src/a.go ] && echo s$RANDOM >> src/a.go; git stash -q; true; }")
	}
	if r.Intn(3) == 0 {
		steps = append(steps, "{ [ -f README.md ] && [ ! -L README.md ] && echo local >> README.md; true; }")
	}
	return gitWorkspace(t, steps...)
}

// rewriteFamily are the commands the property test draws from.
var rewriteFamily = []string{
	"git checkout feature", "git switch feature", "git checkout -f feature", "git checkout -m feature",
	"git merge feature", "git merge --no-ff feature", "git merge --squash feature", "git cherry-pick feature",
	"git cherry-pick main..feature", "git revert --no-edit HEAD", "git reset --hard feature", "git reset --hard HEAD~1",
	"git reset --merge feature", "git reset --keep feature", "git rebase feature", "git stash", "git stash pop",
	"git stash apply", "git switch -c new feature", "git checkout --detach feature", "git merge -X theirs feature",
	"git cherry-pick -n feature", "git rebase --onto feature main~0 main", "git checkout feature -- src",
	"git checkout feature -- .", "git restore --source=feature src", "git checkout feature src/a.go",
	"git checkout -- .", "git restore .",
}

func TestGitRewriteWritesCoverRealGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	iterations := 60
	if testing.Short() {
		iterations = 15
	}
	r := rand.New(rand.NewSource(12))
	allowed := 0
	for i := range iterations {
		ws := randomRepo(t, r)
		line := rewriteFamily[r.Intn(len(rewriteFamily))]
		writes, changed, ok, why := differential(t, ws, line)
		if !ok {
			t.Logf("%d %s: not allowed (%s)", i, line, why)
			continue
		}
		allowed++
		for _, p := range changed {
			if !gateCovers(writes, p) {
				t.Errorf("%d %s: real git changed %s, which the gate's writes %v do not hold", i, line, p, writes)
			}
		}
	}
	if allowed == 0 {
		t.Fatal("the gate allowed none of the commands: the test checks nothing")
	}
}
