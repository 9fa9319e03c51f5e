package resources

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The git commands of a line as the analysis records them, for the
// repository check of gitrepo.go.

// gitRun is one git command of a line as the analysis saw it: the
// directories it may start in and the repository options it was given.
type gitRun struct {
	dirs     []string  // candidate working directories (analysis paths, "" the start)
	gitDir   string    // --git-dir (or "." for --bare), relative to the working directory; "" when absent
	workTree string    // --work-tree, relative to the working directory; "" when absent
	unknown  string    // why the working directory cannot be told; "" when it can
	creates  bool      // git init or git clone: the repository it names is made, not used
	reach    *gitReach // what it prints from the object store and the index (gitreach.go); nil: nothing
	// ownFrom and ownTo are the command's own entries in WriteOperands
	// (git checkout -- . writes after git found its repository): not
	// counted as writes that may make the repository it uses. Empty in a
	// loop, where the next round runs after this one's writes.
	ownFrom, ownTo int
	ended          bool // endGitRun has set ownTo
	// rewrite is what the command writes when it moves the work tree
	// (gitrewrite.go); nil for the others.
	rewrite *gitRewrite
}

// noteGitRun records where a git command starts: global are the words
// before its subcommand (already checked by git), rest the subcommand and
// what follows. It returns the run's index for endGitRun.
func (a *analyzer) noteGitRun(global, rest []*syntax.Word) int {
	// a.cwds is replaced whenever the directory changes, never written
	// in place: the run can hold it as it is.
	run := gitRun{dirs: a.cwds, ownFrom: len(a.use.WriteOperands)}
	switch {
	case a.cwdUnknown:
		run.unknown = "the working directory changes in a way the gate cannot follow"
	case a.later > 0:
		run.unknown = "it runs at a time the gate cannot tell, wherever the shell is then"
	}
	for i := 0; i < len(global); i++ {
		l, _ := staticWord(global[i])
		name, val, hasVal := strings.Cut(strings.TrimLeft(l.s, "-"), "=")
		long := strings.HasPrefix(l.s, "--")
		takes := gitGlobal[name] == 1 && !hasVal && !(len(name) == 1 && len(l.s) > 2)
		if takes && i+1 < len(global) {
			i++
			if v, ok := staticWord(global[i]); ok {
				val = v.s
			} else {
				val = "\x00"
			}
		}
		switch {
		case long && name == "bare":
			run.gitDir = "."
		case long && (name == "git-dir" || name == "work-tree"):
			p, ok := pathWord(valueWord(val))
			if !ok || p == "" || strings.IndexByte(val, 0) >= 0 {
				run.unknown = "--" + name + " is not a plain path"
			}
			if name == "git-dir" {
				run.gitDir = p
			} else {
				run.workTree = p
			}
		}
	}
	a.noteGitChange(rest)
	if len(rest) > 0 {
		if l, ok := staticWord(rest[0]); ok && (l.s == "init" || l.s == "clone") {
			run.creates = true
		}
	}
	a.use.gitRuns = append(a.use.gitRuns, run)
	return len(a.use.gitRuns) - 1
}

// endGitRun marks the end of the git command's own writes. A command that
// asks what the one before it asked (the same directories and options,
// neither writing paths of its own) is not kept: gitRunHolds would judge
// it against the same writes and give the same answer.
func (a *analyzer) endGitRun(i int) {
	runs := a.use.gitRuns
	if i >= len(runs) {
		return
	}
	if a.loops == 0 {
		runs[i].ownTo = len(a.use.WriteOperands)
	} else {
		runs[i].ownTo = runs[i].ownFrom
	}
	runs[i].ended = true
	if shareGitRuns && i == len(runs)-1 && i > 0 && runs[i].sameQuestion(runs[i-1]) {
		a.use.gitRuns = runs[:i]
	}
}

// shareGitRuns lets endGitRun drop a git command that repeats the one
// before it; the test that compares the holds with and without turns it
// off.
var shareGitRuns = true

// sameQuestion reports whether r and o ask gitRunHolds the same question:
// both ended (a command still running may yet write paths of its own),
// neither has writes of its own (so both are judged against all of the
// line's writes), and they start in the same directories with the same
// repository options.
func (r gitRun) sameQuestion(o gitRun) bool {
	return r.ended && o.ended && r.rewrite == nil && o.rewrite == nil && r.ownTo <= r.ownFrom && o.ownTo <= o.ownFrom && r.gitDir == o.gitDir && r.workTree == o.workTree &&
		r.unknown == o.unknown && r.creates == o.creates && slices.Equal(r.dirs, o.dirs)
}
