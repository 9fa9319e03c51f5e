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
		{"git checkout src/a.go", []string{"src/a.go"}},
		{"git checkout feature -- src", []string{"src/b.go"}},
		{"git checkout feature src/b.go", []string{"src/b.go"}},
		{"git checkout -- src/a.go", []string{"src/a.go"}},
		{"git restore --source=feature src/b.go", []string{"src/b.go"}},
		{"git restore src", []string{"src/a.go"}},
		{"cd src && git checkout a.go", []string{"src/a.go"}},
	} {
		w, h, err := rewriteOf(t, ws, tc.line)
		if err != nil || len(h) > 0 {
			t.Errorf("%s: refused or held (%v %v)", tc.line, err, h)
			continue
		}
		for _, p := range w {
			if !strings.HasPrefix(p, "src/") && p != "src" && p != "feature" && p != "-" {
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

// TestGitRewriteAttacks: a tree the agent made with git alone (a branch,
// a commit made with plumbing, a stash entry, an index entry) carries a
// protected path, a link out of the workspace, a path git refuses or a
// submodule; each command that would write it is judged as writing it (so
// the lease's rules refuse it) or refused outright, and real git, run
// afterwards on the same repository, shows the write is real.
func TestGitRewriteAttacks(t *testing.T) {
	base := []string{"mkdir -p src && echo a > src/a.go && git add . && git commit -qm one"}
	branch := func(name, edit string) string {
		return "git checkout -qb " + name + " && " + edit + " && git add -Af . && git commit -qm x && git checkout -qf main"
	}
	plumbing := "t=$(printf '100644 blob %s\\t.mcp.json\\n' $(echo '{}' | git hash-object -w --stdin) | git mktree) && " +
		"git update-ref refs/heads/evil $(git commit-tree -p HEAD -m x $t)"
	for _, tc := range []struct {
		name, setup, line string
		want              string // a path among the writes, or (prefixed "!") text of the refusal
		real              string // the path real git then writes ("" to skip: git itself refuses)
	}{
		{"checkout .mcp.json", branch("evil", "echo '{}' > .mcp.json"), "git checkout evil", ".mcp.json", ".mcp.json"},
		{"switch settings", branch("evil", "mkdir -p .claude && echo '{}' > .claude/settings.json"), "git switch evil", ".claude/settings.json", ".claude/settings.json"},
		{"merge workflow", branch("evil", "mkdir -p .github/workflows && echo on > .github/workflows/x.yml"), "git merge evil", ".github/workflows/x.yml", ".github/workflows/x.yml"},
		{"rebase workflow", branch("evil", "mkdir -p .github/workflows && echo on > .github/workflows/x.yml"), "git rebase evil", ".github/workflows/x.yml", ".github/workflows/x.yml"},
		{"cherry-pick tasks", branch("evil", "mkdir -p .vscode && echo '{}' > .vscode/tasks.json"), "git cherry-pick evil", ".vscode/tasks.json", ".vscode/tasks.json"},
		{"reset to a plumbing commit", plumbing, "git reset --hard evil", ".mcp.json", ".mcp.json"},
		{"checkout -f a plumbing commit", plumbing, "git checkout -f evil", ".mcp.json", ".mcp.json"},
		{"merge a plumbing commit", plumbing, "git merge evil", ".mcp.json", ".mcp.json"},
		{"revert restores", "echo '{}' > .mcp.json && git add .mcp.json && git commit -qm add && git rm -q .mcp.json && git commit -qm rm", "git revert --no-edit HEAD", ".mcp.json", ".mcp.json"},
		{"stash pop of a planted index", "git update-index --add --cacheinfo 100644,$(echo '{}' | git hash-object -w --stdin),.mcp.json && git stash -q", "git stash pop", ".mcp.json", ".mcp.json"},
		{"reset of a planted index", "echo x > .mcp.json && git update-index --add --cacheinfo 100644,$(echo '{}' | git hash-object -w --stdin),.mcp.json", "git reset --hard", ".mcp.json", ".mcp.json"},
		{"stash of a planted index", "echo x > .mcp.json && git update-index --add --cacheinfo 100644,$(echo '{}' | git hash-object -w --stdin),.mcp.json", "git stash", ".mcp.json", ".mcp.json"},
		{"checkout of a directory from a branch", branch("evil", "ln -s /etc src/l"), "git checkout evil -- src", "!src/l a symbolic link to /etc", "src/l"},
		{"checkout of a link from a branch", branch("evil", "ln -s /etc src/l"), "git checkout evil src/l", "!src/l a symbolic link to /etc", "src/l"},
		{"restore of a directory", branch("evil", "ln -s /etc src/l"), "git restore --source=evil src", "!src/l a symbolic link to /etc", "src/l"},
		{"checkout of a planted index link", "git update-index --add --cacheinfo 120000,$(printf /etc | git hash-object -w --stdin),src/l", "cd src && git checkout -- .", "!src/l a symbolic link to /etc", "src/l"},
		{"checkout of a path", "echo '{}' > .mcp.json && git add .mcp.json && git commit -qm add && echo x > .mcp.json", "git checkout .mcp.json", ".mcp.json", ".mcp.json"},
		{"link to /etc", branch("evil", "ln -s /etc src/l"), "git checkout evil", "!src/l a symbolic link to /etc", "src/l"},
		{"link to the home", branch("evil", "ln -s $HOME/.ssh src/l"), "git merge evil", "!a symbolic link to", "src/l"},
		{"link up and out", branch("evil", "ln -s ../../../x src/l"), "git stash && git switch evil", "", ""},
		{"link up and out, alone", branch("evil", "ln -s ../../../x src/l"), "git switch evil", "!outside the workspace", "src/l"},
		{"link to a protected file", branch("evil", "ln -s ../.mcp.json src/l"), "git cherry-pick evil", ".mcp.json", "src/l"},
		{"submodule", "git update-index --add --cacheinfo 160000,$(git rev-parse HEAD),src/sub && git commit -qm sub && git checkout -qb evil && git checkout -q main && git rm -q --cached src/sub && git commit -qm unsub", "git checkout evil", "!submodule", ""},
		{".GIT in a tree", "t=$(printf '100644 blob %s\\tconfig\\n' $(echo x | git hash-object -w --stdin) | git mktree) && t2=$(printf '040000 tree %s\\t.GIT\\n' $t | git mktree --missing) && git update-ref refs/heads/evil $(git commit-tree -m x $t2)", "git checkout evil", "!a name that writes into a repository", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := gitWorkspace(t, append(slices.Clone(base), tc.setup)...)
			w, h, err := rewriteOf(t, ws, tc.line)
			switch {
			case tc.want == "":
				if err == nil && len(h) == 0 && !slices.Contains(w, ".") {
					t.Errorf("%s: allowed, writing %v", tc.line, w)
				}
			case strings.HasPrefix(tc.want, "!"):
				if err == nil || !strings.Contains(err.Error(), tc.want[1:]) {
					t.Errorf("%s: %v %v %v, want refused saying %q", tc.line, w, h, err, tc.want[1:])
				}
			case err != nil || len(h) > 0 || !slices.Contains(w, tc.want):
				t.Errorf("%s: writes %v (holds %v, error %v), want %s among them", tc.line, w, h, err, tc.want)
			}
			if tc.real == "" {
				return
			}
			before := treeState(t, ws)
			out := realGit(t, ws, tc.line)
			if changed := changedPaths(before, treeState(t, ws)); !slices.Contains(changed, tc.real) {
				t.Errorf("real git %s did not write %s (changed %v): %s", tc.line, tc.real, changed, out)
			}
		})
	}
}

// TestGitRewriteRunsNothingTheAgentWrote: what git runs during these
// commands — the post-checkout, post-merge and post-rewrite hooks, a merge
// driver — comes from the repository's configuration: one that names a
// program or a hooks directory the agent can write holds the command.
func TestGitRewriteRunsNothingTheAgentWrote(t *testing.T) {
	for _, cfg := range []string{
		"git config core.hooksPath src/hooks",
		"git config merge.x.driver ./src/merge.sh && echo '* merge=x' > .gitattributes",
	} {
		ws := gitWorkspace(t, append(slices.Clone(featureRepo), cfg)...)
		for _, line := range []string{"git checkout feature", "git merge feature", "git rebase feature", "git stash pop"} {
			if _, h, err := rewriteOf(t, ws, line); err == nil && len(h) == 0 {
				t.Errorf("%s with %s: not held", line, cfg)
			}
		}
	}
}
