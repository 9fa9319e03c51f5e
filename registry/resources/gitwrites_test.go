package resources

import (
	"slices"
	"strings"
	"testing"
)

// rewriteOf derives a Bash line's use in ws and returns its writes
// (workspace-relative, or absolute outside it, "*" kept), its holds and
// its error.
func rewriteOf(t *testing.T, ws, line string) (writes []string, holds []string, err error) {
	t.Helper()
	use, err := FromToolCall(ws, ToolBash, map[string]any{"command": line})
	if err != nil {
		return nil, nil, err
	}
	for _, w := range use.Writes {
		// A write is judged as resolved and as spelled (a link's own
		// path): both are what it writes.
		if w.Inside {
			writes = append(writes, w.Rel)
		} else {
			writes = append(writes, w.Abs)
		}
		if w.lexRel != "" && w.lexRel != w.Rel {
			writes = append(writes, w.lexRel)
		}
	}
	writes = slices.Compact(slices.Sorted(slices.Values(writes)))
	for _, h := range use.Holds {
		holds = append(holds, h.Reason)
	}
	return writes, holds, nil
}

// featureRepo: main holds README.md and src/a.go; feature changes src/a.go
// and adds src/b.go; a stash entry changes src/a.go.
var featureRepo = []string{
	"mkdir src && echo a > src/a.go && echo r > README.md && git add . && git commit -qm one",
	"git checkout -qb feature && echo a2 > src/a.go && echo b > src/b.go && git add . && git commit -qm two",
	"git checkout -q main && echo c > src/c.go && git add . && git commit -qm three",
	"echo local > src/a.go && git stash -q",
}

// TestGitRewriteOrdinary: in a clean repository with a branch that
// touches only src/, each work-tree-moving command is judged as writing
// paths below src/ (and, for checkout, the operand as a path), with no
// hold and no refusal; git pull and git am are held.
func TestGitRewriteOrdinary(t *testing.T) {
	ws := gitWorkspace(t, featureRepo...)
	for _, tc := range []struct {
		line string
		want []string // paths that must be among the writes
	}{
		{"git checkout feature", []string{"src/b.go", "src/c.go"}},
		{"git switch feature", []string{"src/b.go"}},
		{"git switch -c topic feature", []string{"src/b.go"}},
		{"git checkout -b topic feature", []string{"src/b.go"}},
		{"git checkout --detach feature", []string{"src/b.go"}},
		{"git checkout -", nil},
		{"git merge feature", []string{"src/b.go"}},
		{"git merge --no-ff feature", []string{"src/b.go"}},
		{"git merge --squash -X theirs feature", []string{"src/b.go"}},
		{"git cherry-pick feature", []string{"src/b.go"}},
		{"git cherry-pick -n main~1..feature", []string{"src/b.go"}},
		{"git revert HEAD", []string{"src/c.go"}},
		{"git revert --no-edit -n HEAD", []string{"src/c.go"}},
		{"git stash", nil},
		{"git stash push -m wip", nil},
		{"git stash pop", []string{"src/a.go"}},
		{"git stash apply stash@{0}", []string{"src/a.go"}},
		{"git stash apply 0", []string{"src/a.go"}},
		{"git reset --hard", nil},
		{"git reset --hard HEAD~1", []string{"src/c.go"}},
		{"git reset --keep feature", []string{"src/b.go"}},
		{"git rebase feature", []string{"src/c.go"}},
		{"git rebase --onto feature main~1 main", []string{"src/c.go"}},
		{"git status && git checkout feature", []string{"src/b.go"}},
	} {
		w, h, err := rewriteOf(t, ws, tc.line)
		if err != nil || len(h) > 0 {
			t.Errorf("%s: refused or held (%v %v)", tc.line, err, h)
			continue
		}
		for _, p := range w {
			if !strings.HasPrefix(p, "src/") && p != "feature" && p != "-" {
				t.Errorf("%s: writes %s (%v)", tc.line, p, w)
			}
		}
		for _, p := range tc.want {
			if !slices.Contains(w, p) {
				t.Errorf("%s: writes %v, without %s", tc.line, w, p)
			}
		}
	}
	for _, line := range []string{"git pull", "git pull --rebase", "git pull origin main", "git am x.patch"} {
		if _, h, err := rewriteOf(t, ws, line); err != nil || len(h) == 0 || !strings.Contains(h[0], "cannot tell what git") {
			t.Errorf("%s: not held (%v %v)", line, err, h)
		}
	}
}
