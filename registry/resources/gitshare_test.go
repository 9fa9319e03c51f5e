package resources

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestGitCommandsShareTheOwnRepoAnswer: the git commands of one line
// share the answer about the workspace's own repository, and a git command
// that repeats the one before it is not asked again; the holds are those
// of asking for every command, for random lines of git commands among
// writes, directory changes and other repositories, in workspaces whose
// configuration names hooks and included files.
func TestGitCommandsShareTheOwnRepoAnswer(t *testing.T) {
	configs := []string{
		"", // no repository in the workspace
		"[core]\n\trepositoryformatversion = 0\n",
		"[core]\n\thooksPath = .githooks\n",
		"[include]\n\tpath = ../src/extra.cfg\n",
		"[core]\n\tfsmonitor = false\n[remote \"origin\"]\n\turl = https://github.com/x/y\n",
	}
	pieces := []string{"git status", "git log --oneline", "git diff", "git add -A && git commit -m x", "cd src && git log",
		"git -C src status", "echo x > src/f", "echo x > HEAD", "mkdir -p src/r/.git", "git init src/new", "cd .git && git status",
		"git --git-dir=.git status", "ls", "cd src", "git stash", "echo y > .githooks/pre-commit", "git fetch origin",
		"git status && git status", "git checkout -- src/f && git status", "git status && git checkout -- src/f",
		"for x in a b; do git status; git checkout -- src/f; done", "git -C src status && git status", "git init src/new && git -C src/new status",
		"git init && git status", "echo x > HEAD; git init && git status", "echo x > HEAD; for d in a; do git init; git status; done", "git --work-tree=src status && git status", "trap 'git status' EXIT; git status"}
	r := rand.New(rand.NewPCG(21, 22))
	held := 0
	for ci, cfg := range configs {
		ws, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		dirs := []string{".git/objects", ".git/refs/heads", "src", ".githooks"}
		files := map[string]string{".git/HEAD": "ref: refs/heads/main\n", ".git/config": cfg, "src/extra.cfg": "[user]\n\tname = x\n"}
		if cfg == "" {
			dirs, files = dirs[2:], map[string]string{}
		}
		for _, d := range dirs {
			if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		for name, data := range files {
			if err := os.WriteFile(filepath.Join(ws, name), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for i := 0; i < 300; i++ {
			parts := make([]string, 1+r.IntN(6))
			for j := range parts {
				parts[j] = pieces[r.IntN(len(pieces))]
			}
			line := strings.Join(parts, []string{" && ", "; ", "\n"}[r.IntN(3)])
			in := map[string]any{"command": line}
			shareOwnRepo, shareGitRuns = true, true
			shared, err1 := bashUse(ws, in)
			shareOwnRepo, shareGitRuns = false, false
			alone, err2 := bashUse(ws, in)
			shareOwnRepo, shareGitRuns = true, true
			if len(alone.Holds) > 0 {
				held++
			}
			if (err1 == nil) != (err2 == nil) || !reflect.DeepEqual(shared.Holds, alone.Holds) {
				t.Fatalf("config %d, %q: shared %v %v, asked for every command %v %v", ci, line, shared.Holds, err1, alone.Holds, err2)
			}
		}
	}
	if held < 50 {
		t.Fatalf("only %d of the lines were held: the test shows little", held)
	}
}

// TestSameGitQuestion: a git command still being analysed (it may yet
// write paths of its own), or one with writes of its own, never asks the
// same question as another.
func TestSameGitQuestion(t *testing.T) {
	done := gitRun{dirs: []string{""}, ownFrom: 3, ownTo: 3, ended: true}
	for _, c := range []struct {
		name string
		r    gitRun
		want bool
	}{
		{"the same", gitRun{dirs: []string{""}, ownFrom: 5, ownTo: 5, ended: true}, true},
		{"still running", gitRun{dirs: []string{""}, ownFrom: 5}, false},
		{"own writes", gitRun{dirs: []string{""}, ownFrom: 5, ownTo: 6, ended: true}, false},
		{"another directory", gitRun{dirs: []string{"src"}, ownFrom: 5, ownTo: 5, ended: true}, false},
		{"more directories", gitRun{dirs: []string{"", "src"}, ownFrom: 5, ownTo: 5, ended: true}, false},
		{"--git-dir", gitRun{dirs: []string{""}, gitDir: ".git", ownFrom: 5, ownTo: 5, ended: true}, false},
		{"--work-tree", gitRun{dirs: []string{""}, workTree: "src", ownFrom: 5, ownTo: 5, ended: true}, false},
		{"unknown", gitRun{dirs: []string{""}, unknown: "x", ownFrom: 5, ownTo: 5, ended: true}, false},
		{"creates", gitRun{dirs: []string{""}, creates: true, ownFrom: 5, ownTo: 5, ended: true}, false},
	} {
		if got := c.r.sameQuestion(done); got != c.want {
			t.Errorf("%s: sameQuestion %v, want %v", c.name, got, c.want)
		}
		if got := done.sameQuestion(c.r); got != c.want {
			t.Errorf("%s (the other way): sameQuestion %v, want %v", c.name, got, c.want)
		}
	}
}
