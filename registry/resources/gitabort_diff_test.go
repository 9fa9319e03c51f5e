package resources

import (
	"math/rand"
	"os/exec"
	"strings"
	"testing"
)

// abortStarts leave an operation in progress (or finish it, when it
// applies cleanly) for the abort that follows.
var abortStarts = []struct{ start, abort string }{
	{"git merge feature", "git merge --abort"},
	{"git merge --no-commit --no-ff feature", "git merge --abort"},
	{"git cherry-pick feature", "git cherry-pick --abort"},
	{"git cherry-pick main..feature", "git cherry-pick --abort"},
	{"git revert --no-edit HEAD", "git revert --abort"},
	{"git revert --no-edit HEAD~1..HEAD", "git revert --abort"},
	{"git rebase feature", "git rebase --abort"},
	{"git checkout -qf feature && git rebase main", "git rebase --abort"},
	{"git rebase --apply feature", "git rebase --abort"},
	{"rm -rf ../p && git format-patch -q -2 feature -o ../p && git am -3 ../p/*.patch", "git am --abort"},
	// Operations that stop whether or not they conflict.
	{"git rebase --exec false feature", "git rebase --abort"},
	{"echo m > m.txt && git add m.txt && git commit -qm m && git rebase --exec false feature", "git rebase --abort"},
	{"echo m > m.txt && git add m.txt && git commit -qm m && git rebase --apply --exec false feature", "git rebase --abort"},
	{"echo m > m.txt && git add m.txt && git commit -qm m && git checkout -qf feature && git rebase --exec false main", "git rebase --abort"},
	{"git checkout -qf feature && git rebase --exec false main", "git rebase --abort"},
	{"git checkout -qf feature && git rebase --exec false --apply main", "git rebase --abort"},
	{"git merge --no-commit --no-ff -s ours feature", "git merge --abort"},
}

// abortMoves are what an agent may do between the start and the abort:
// move the refs the abort reads, change the work tree.
var abortMoves = []string{
	"", "", "git update-ref refs/heads/main feature", "git update-ref ORIG_HEAD feature",
	"git update-ref MERGE_HEAD HEAD", "git update-ref CHERRY_PICK_HEAD HEAD", "git update-ref --no-deref HEAD feature",
	"echo x > src/a.go", "git add -A",
}

// TestGitAbortWritesCoverRealGit: an operation started (conflicting or
// not) in a random repository, the refs it reads perhaps moved, then
// aborted: wherever the gate allows the abort, everything real git
// changed lies within what the gate said it writes.
func TestGitAbortWritesCoverRealGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	iterations := 90
	if testing.Short() {
		iterations = 20
	}
	r := rand.New(rand.NewSource(7))
	allowed, wrote := 0, 0
	for i := range iterations {
		ws := randomRepo(t, r)
		op := abortStarts[r.Intn(len(abortStarts))]
		move := abortMoves[r.Intn(len(abortMoves))]
		realGit(t, ws, op.start)
		if move != "" {
			realGit(t, ws, move)
		}
		writes, changed, ok, why := differential(t, ws, op.abort)
		if !ok {
			t.Logf("%d %s; %s; %s: not allowed (%s)", i, op.start, move, op.abort, why)
			continue
		}
		allowed++
		if testing.Verbose() {
			t.Logf("%d %s; %s; %s: changed %v", i, op.start, move, op.abort, changed)
		}
		if len(changed) > 0 {
			wrote++
		}
		for _, p := range changed {
			if !gateCovers(writes, p) {
				t.Errorf("%d %s; %s; %s: real git changed %s, which the gate's writes %v do not hold", i, op.start, move, op.abort, p, writes)
			}
		}
	}
	t.Logf("%d aborts allowed, %d of which changed the work tree", allowed, wrote)
	if allowed == 0 || wrote == 0 {
		t.Fatalf("the gate allowed %d aborts, %d of which changed the work tree: the test checks nothing", allowed, wrote)
	}
}

// TestGitAbortWrites: with no operation in progress an abort writes
// nothing, and so does --quit; after a conflicted merge, --abort writes
// the paths the merge touched; an abort that applies an autostash, or a
// state the gate cannot read, is held.
func TestGitAbortWrites(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup []string
		line  string
		want  []string // paths that must be among the writes
		none  bool     // no writes at all
		held  string
	}{
		{"no merge", nil, "git merge --abort", nil, true, ""},
		{"no rebase", nil, "git rebase --abort", nil, true, ""},
		{"no am", nil, "git am --abort", nil, true, ""},
		{"quit", []string{"echo x > src/a.go && git commit -qam x && { git cherry-pick feature; true; }"}, "git cherry-pick --quit", nil, true, ""},
		{"conflicted merge", []string{"echo x > src/a.go && git commit -qam x && { git merge feature; true; }"}, "git merge --abort", []string{"src/a.go", "src/b.go"}, false, ""},
		{"conflicted pick", []string{"echo x > src/a.go && git commit -qam x && { git cherry-pick feature; true; }"}, "git cherry-pick --abort", []string{"src/a.go", "src/b.go"}, false, ""},
		{"moved head", []string{"git update-ref MERGE_HEAD HEAD && git update-ref refs/heads/main feature"}, "git merge --abort", []string{"src/b.go"}, false, ""},
		{"autostash", []string{"git update-ref MERGE_HEAD HEAD && git rev-parse HEAD > .git/MERGE_AUTOSTASH"}, "git merge --abort", nil, false, "MERGE_AUTOSTASH"},
		{"sequencer", []string{"mkdir .git/sequencer && echo nonsense > .git/sequencer/head"}, "git revert --abort", nil, false, "sequencer/head"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := gitWorkspace(t, append(append([]string{}, featureRepo...), tc.setup...)...)
			writes, holds, err := rewriteOf(t, ws, tc.line)
			switch {
			case err != nil:
				t.Fatalf("%s: %v", tc.line, err)
			case tc.held != "":
				if len(holds) == 0 || !strings.Contains(holds[0], tc.held) {
					t.Errorf("%s: holds %v, want one naming %s", tc.line, holds, tc.held)
				}
				return
			case len(holds) > 0:
				t.Fatalf("%s: held: %v", tc.line, holds)
			case tc.none && len(writes) > 0:
				t.Errorf("%s: writes %v, want none", tc.line, writes)
			}
			for _, p := range tc.want {
				if !gateCovers(writes, p) {
					t.Errorf("%s: writes %v, want %s among them", tc.line, writes, p)
				}
			}
		})
	}
}
