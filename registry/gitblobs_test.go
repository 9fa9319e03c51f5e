package registry

import (
	"strings"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/registry/internal/gitbound"
)

// A denied file's content reaches the agent under another name: a note
// made from its blob, a tag or ref naming the blob, an index entry or a
// tree planted with its id, the files git fsck --lost-found writes. Each
// case is a planting line and the lines that then print the secret: real
// git shows the chain does print it, and the gate refuses (or holds) the
// planting line before it runs and every printing line after it ran.

// gitCommitted: .env is committed in HEAD beside ordinary files.
var gitCommitted = []string{
	"mkdir -p src && echo 'package a // TODO' > src/a.go && echo " + gitSecret + " > .env && git add . && git commit -qm one",
}

// gitDangling: .env was staged once and unstaged (its blob is dangling);
// nothing denied is reachable.
var gitDangling = []string{
	"mkdir -p src && echo 'package a // TODO' > src/a.go && git add . && git commit -qm one",
	"echo " + gitSecret + " > .env && git add .env && git rm -q --cached .env",
}

type gitBlobAttack struct {
	name   string
	base   []string
	plant  string   // the line that gives the content a new name
	prints []string // lines that print it once planted
	quiet  bool     // the plant line needs an editor or more: the gate is asked, real git not run
}

func gitBlobAttacks() []gitBlobAttack {
	return []gitBlobAttack{
		{"notes -C", gitCommitted, "git notes add -C BLOB HEAD", []string{
			"git log", "git show HEAD", "git notes show", "git log --notes", "git log --format=%N",
			"git show -s HEAD", "git format-patch -1 --stdout --notes", "git log --oneline --notes", "git whatchanged -1"}, false},
		{"notes -C short", gitCommitted, "git notes add -C SHORT HEAD", []string{"git log -1"}, false},
		{"notes append", gitCommitted, "git notes append -C BLOB HEAD", []string{"git notes show HEAD"}, false},
		{"notes -c", gitCommitted, "git notes add -c BLOB HEAD", nil, true},
		{"notes REV:path", gitCommitted, "git notes add -C HEAD:.env HEAD", nil, true},
		{"tag", gitCommitted, "git tag y BLOB", []string{
			"git for-each-ref --format='%(raw)'", "git tag -l --format='%(raw)'"}, false},
		{"annotated tag", gitCommitted, "git tag -a y -m m BLOB", []string{"git for-each-ref --format='%(*raw)'"}, false},
		{"update-ref", gitCommitted, "git update-ref refs/x/z BLOB", []string{"git for-each-ref --format='%(raw)' refs/x"}, false},
		{"update-ref short", gitCommitted, "git update-ref refs/tags/y SHORT", []string{"git tag --format='%(raw)'"}, false},
		{"update-ref stdin", gitCommitted, "echo 'update refs/tags/y BLOB' | git update-ref --stdin", nil, false},
		{"replace", gitCommitted, "git replace -f HEAD BLOB", nil, true},
		{"cacheinfo", gitCommitted, "git update-index --add --cacheinfo 100644,BLOB,src/e", []string{
			"git show :src/e", "git cat-file -p :src/e", "git diff --cached", "git grep --cached SECRET",
			"git checkout-index src/e && cat src/e", "git checkout-index -a -f --prefix=src/x/ && cat src/x/src/e",
			"git show :0:src/e", "cd src && git show :./e"}, false},
		{"cacheinfo committed", append(append([]string{}, gitCommitted...), "git update-index --add --cacheinfo 100644,$(git hash-object .env),src/e && git commit -qm two"), "", []string{
			"git show HEAD", "git log -p -1", "git show HEAD:src/e", "git cat-file -p HEAD:src/e", "git archive HEAD src",
			"git grep SECRET HEAD -- src", "git diff HEAD~1 HEAD -- src", "git format-patch -1 --stdout -- src",
			"git blame HEAD -- src/e", "git annotate HEAD -- src/e",
			"rm -f src/e && git checkout HEAD -- src/e && cat src/e", "rm -f src/e && git restore --source=HEAD src/e && cat src/e",
			"rm -f src/e && git checkout -- src/e && cat src/e", "rm -f src/e && git restore src/e && cat src/e"}, false},
		{"read-tree prefix", gitCommitted, "git read-tree --prefix=src/k/ HEAD", []string{"git show :src/k/.env", "git diff --cached -- src"}, false},
		{"mktree", gitCommitted, "printf '100644 blob BLOB\\te\\n' | git mktree", nil, false},
		{"hash-object tree", gitDangling, "printf '100644 e\\0' | git hash-object -t tree --stdin -w", nil, true},
		// Once planted, a dangling blob in the index is any new file's:
		// the planting line is what the gate refuses.
		{"dangling cacheinfo", gitDangling, "git update-index --add --cacheinfo 100644,DANGLING,src/e", nil, false},
		{"dangling tag", gitDangling, "git tag y DANGLING", []string{"git for-each-ref --format='%(raw)' refs/tags"}, false},
		{"lost-found", gitDangling, "git fsck --lost-found", []string{"cat .git/lost-found/other/*", "grep -r SECRET .git/lost-found"}, false},
	}
}

func TestGateRefusesDeniedContentUnderAnotherName(t *testing.T) {
	for _, tc := range gitBlobAttacks() {
		t.Run(tc.name, func(t *testing.T) { runGitBlobAttack(t, tc, false) })
	}
}

// gitFiller are commits of a file of no account: past bounds of 6 commits, the walk for
// denied content stops before what lies below them.
const gitFiller = "for i in $(seq 1 12); do echo $i > filler && git add filler && git commit -qm f$i; done"

// gitPastBounds are bounds a repository with gitFiller on top is past.
var gitPastBounds = gitbound.Bounds{Commits: 6, Entries: 100000, Time: 2 * time.Second}

// TestGateRefusesDeniedContentPastTheBounds: the same chains in a
// repository whose history is past the bounds of the walk for denied
// content (as an agent can make it with a loop of empty commits). The
// planting lines and the printing lines are refused outright, not held:
// the blobs the refs, stash and index hold, and the planting commands'
// own reach, are what the chains go through.
func TestGateRefusesDeniedContentPastTheBounds(t *testing.T) {
	defer gitbound.Set(gitPastBounds)()
	for _, tc := range gitBlobAttacks() {
		// The filler goes after the first commit, which holds .env: the
		// walk stops before it, and HEAD's tree still holds .env.
		tc.base = append([]string{tc.base[0], gitFiller}, tc.base[1:]...)
		t.Run(tc.name, func(t *testing.T) { runGitBlobAttack(t, tc, true) })
	}
}

// runGitBlobAttack runs one chain: its planting line judged, run by real
// git, then its printing lines judged after real git shows they print
// the secret. Each must not be allowed; with outright, each must be
// refused (the planting lines that need more than git are only judged).
func runGitBlobAttack(t *testing.T, tc gitBlobAttack, outright bool) {
	f, lease := gitObjectsFixture(t, tc.base...)
	blob := strings.TrimSpace(gitOut(t, f.dir, "git hash-object .env"))
	fix := strings.NewReplacer("DANGLING", blob, "BLOB", blob, "SHORT", blob[:7]).Replace
	refused := func(line string) {
		t.Helper()
		ans := f.svc.Gate(t.Context(), GateRequest{LeaseID: lease, Call: ToolCall{Tool: "Bash", Input: map[string]any{"command": line}}, Client: "test", DryRun: true})
		switch {
		case ans.Verdict == VerdictAllow:
			t.Errorf("%q: allowed (%s), want it refused or held", line, ans.Reason)
		case outright && ans.Verdict != VerdictDeny:
			t.Errorf("%q: %s (%s), want it refused", line, ans.Verdict, ans.Reason)
		case testing.Verbose():
			t.Logf("%q: %s %s", line, ans.Verdict, ans.Reason)
		}
	}
	if plant := fix(tc.plant); plant != "" {
		refused(plant)
		if tc.quiet {
			return
		}
		// The planting line run by real git, and then the lines
		// that print the secret under the new name.
		gitOut(t, f.dir, "export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com; "+plant)
	}
	for _, line := range tc.prints {
		line = fix(line)
		if out := gitOut(t, f.dir, line); !strings.Contains(out, gitSecret) {
			t.Errorf("%q: real git does not print the secret, so the line is no attack:\n%s", line, out)
		}
		refused(line)
	}
}

// TestGateRefusesDeepContentPastTheBounds: .env was committed and removed,
// the history since is past the bounds, and no reflog names the commit
// (as in a clone), so the blobs at a denied path are not known to hold
// it. Every line that would give its content another name is still
// refused, by the denied path of what it names.
func TestGateRefusesDeepContentPastTheBounds(t *testing.T) {
	defer gitbound.Set(gitPastBounds)()
	f, lease := gitObjectsFixture(t, append(append([]string{}, gitRemoved...), gitFiller, "git reflog expire --expire=now --all")...)
	blob := strings.TrimSpace(gitOut(t, f.dir, "git rev-parse HEAD~14:.env"))
	if len(blob) != 40 {
		t.Fatalf("the deep .env: %q", blob)
	}
	for _, line := range []string{
		"git read-tree --prefix=src/k/ HEAD~14", "git read-tree --prefix=src/k/ HEAD~14^{tree}",
		"git notes add -C HEAD~14:.env HEAD", "git tag y HEAD~14:.env", "git update-ref refs/x/y HEAD~14:.env",
		"git update-index --add --cacheinfo 100644," + blob + ",src/e", "git notes add -C " + blob + " HEAD",
		"git tag y " + blob[:8], "git show HEAD~14", "git log -p -- .env", "git checkout HEAD~14 -- .env",
		"git worktree add src/w HEAD~14", "git archive HEAD~14",
	} {
		ans := f.svc.Gate(t.Context(), GateRequest{LeaseID: lease, Call: ToolCall{Tool: "Bash", Input: map[string]any{"command": line}}, Client: "test", DryRun: true})
		if ans.Verdict != VerdictDeny {
			t.Errorf("%q: %s (%s), want it refused", line, ans.Verdict, ans.Reason)
		}
	}
	// The ordinary lines stay allowed there.
	for _, line := range []string{"git show HEAD", "git log -p -3", "git show HEAD~12:src/a.go", "git read-tree --prefix=src/k/ HEAD"} {
		ans := f.svc.Gate(t.Context(), GateRequest{LeaseID: lease, Call: ToolCall{Tool: "Bash", Input: map[string]any{"command": line}}, Client: "test", DryRun: true})
		if ans.Verdict != VerdictAllow {
			t.Errorf("%q: %s (%s), want allow", line, ans.Verdict, ans.Reason)
		}
	}
}

// TestGateAllowsNamesOfOrdinaryObjects: where .env is committed, the
// commands that name objects stay allowed for objects that hold no denied
// content, and so do log and show, which print notes, when no note holds
// one; past the bounds of the walk for denied content too.
func TestGateAllowsNamesOfOrdinaryObjects(t *testing.T) {
	base := append(append([]string{}, gitCommitted...), "git notes add -m 'reviewed' HEAD")
	t.Run("within the bounds", func(t *testing.T) { gateAllowsOrdinaryObjects(t, base) })
	t.Run("past the bounds", func(t *testing.T) {
		defer gitbound.Set(gitPastBounds)()
		gateAllowsOrdinaryObjects(t, append([]string{base[0], gitFiller}, base[1:]...))
	})
}

func gateAllowsOrdinaryObjects(t *testing.T, base []string) {
	f, lease := gitObjectsFixture(t, base...)
	for _, line := range []string{
		"git tag v1", "git tag v1 HEAD", "git tag -a v1 -m one HEAD", "git update-ref refs/heads/x HEAD", "git notes add -m hi -f HEAD",
		"git notes add -C HEAD:src/a.go -f HEAD", "git log", "git log --oneline", "git show -s HEAD", "git notes show",
		"git for-each-ref --format='%(refname) %(subject)'", "git tag -l --format='%(contents)'", "git branch --format='%(raw)'",
		"git read-tree HEAD", "git fsck", "git blame src/a.go", "git blame HEAD -- src/a.go", "git show HEAD:src/a.go", "git cat-file -p HEAD:src/a.go", "git show :src/a.go",
		"git checkout-index src/a.go", "git checkout HEAD -- src/a.go", "git restore --source=HEAD src", "git restore src/a.go", "git update-index --cacheinfo 100644,HEAD:src/a.go,src/b.go",
	} {
		ans := f.svc.Gate(t.Context(), GateRequest{LeaseID: lease, Call: ToolCall{Tool: "Bash", Input: map[string]any{"command": line}}, Client: "test", DryRun: true})
		if ans.Verdict != VerdictAllow {
			t.Errorf("%q: %s %s, want allow", line, ans.Verdict, ans.Reason)
		}
	}
}
