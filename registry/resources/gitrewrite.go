package resources

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// git commands that move the work tree (checkout BRANCH, switch, reset
// --hard, stash, stash pop, merge, cherry-pick, revert, rebase) write from
// the repository's top level, and what they write comes from trees the
// agent can make (git commit-tree, a fetched branch, a commit on another
// branch). The analysis records what each one is asked to do (a
// gitRewrite); the gate then reads the repository's objects (gitwrites.go)
// for the paths it would really write, and judges the command as writing
// those. A command the gate cannot model that way (a loop, an operand not
// known before the line runs, an earlier git command on the line that
// changes the repository first) writes the whole work tree, as before.

// gitRewriteKind is what a work-tree-moving command does.
type gitRewriteKind int

const (
	rwCheckout   gitRewriteKind = iota + 1 // checkout REV, switch BRANCH: HEAD's tree to the target's
	rwReset                                // reset --hard|--merge|--keep REV: to REV, local changes restored
	rwStash                                // stash [push]: local changes back to HEAD
	rwStashApply                           // stash pop|apply [STASH]: a stash entry's changes applied
	rwMerge                                // merge REV…: the changes since the merge base
	rwCherryPick                           // cherry-pick REV…: each commit's changes
	rwRevert                               // revert REV…: each commit's changes undone
	rwRebase                               // rebase [--onto X] UPSTREAM [BRANCH]
	rwPaths                                // checkout [REV] -- PATH…, restore: the paths, from REV or the index
	rwAbort                                // merge|cherry-pick|revert|rebase|am --abort: back to the state before (gitabort.go)
)

// gitRewrite is one work-tree-moving command as the analysis saw it.
type gitRewrite struct {
	prog string
	kind gitRewriteKind
	revs []string // its revision operands, static
	// dirty: it also writes the tracked paths whose index entry or work
	// tree file differs from HEAD (reset --hard, stash, checkout -f,
	// --merge, --autostash).
	dirty    bool
	mainline int      // cherry-pick/revert -m N; 0: every parent
	onto     string   // rebase --onto
	root     bool     // rebase --root
	keepBase bool     // rebase --keep-base
	index    bool     // stash apply --index
	paths    []string // rwPaths: the pathspecs, relative to the working directory
	// revMaybePath: checkout REV PATH… without "--", where REV is a path
	// too when it names no revision.
	revMaybePath bool
	// before is how many git commands that change the repository ran
	// earlier on the line (itself not counted): their changes are not
	// in the objects the gate reads.
	before int
}

// gitReadOnly are the subcommands that change no ref, no index entry and
// no object a later command on the line could check out.
var gitReadOnly = map[string]bool{
	"status": true, "log": true, "show": true, "diff": true, "whatchanged": true, "shortlog": true,
	"blame": true, "annotate": true, "describe": true, "rev-list": true, "rev-parse": true,
	"ls-files": true, "ls-tree": true, "show-ref": true, "for-each-ref": true, "name-rev": true,
	"merge-base": true, "cherry": true, "count-objects": true, "var": true, "version": true,
	"help": true, "show-branch": true, "diff-tree": true, "diff-files": true, "diff-index": true,
	"check-ignore": true, "check-attr": true, "check-ref-format": true, "verify-commit": true,
	"verify-tag": true, "grep": true, "cat-file": true, "range-diff": true,
}

// noteGitChange counts a git command that may change the repository.
func (a *analyzer) noteGitChange(rest []*syntax.Word) {
	if len(rest) == 0 {
		return
	}
	if l, ok := staticWord(rest[0]); ok && gitReadOnly[l.s] {
		return
	}
	a.use.gitChanges++
}

// gitRewriteOf records rw as what the git command being analysed writes;
// when the gate cannot read the writes from the repository (rw is nil, a
// loop, a run whose directory or repository options it cannot follow), the
// command writes the whole work tree.
// It reports whether rw was recorded.
func (a *analyzer) gitRewriteOf(prog string, rw *gitRewrite, c ctx) bool {
	n := len(a.use.gitRuns)
	if rw == nil || a.loops > 0 || n == 0 {
		a.gitWorkTree(prog, c)
		return false
	}
	run := &a.use.gitRuns[n-1]
	if run.unknown != "" || run.gitDir != "" || run.workTree != "" || run.rewrite != nil || run.creates {
		a.gitWorkTree(prog, c)
		return false
	}
	rw.prog = prog
	rw.before = a.use.gitChanges - 1
	run.rewrite = rw
	return true
}

// staticOps are the words as static strings; ok is false when one is not.
func staticOps(ws []*syntax.Word) ([]string, bool) {
	out := make([]string, 0, len(ws))
	for _, w := range ws {
		l, ok := staticWord(w)
		if !ok || l.s == "" || strings.IndexByte(l.s, 0) >= 0 {
			return nil, false
		}
		out = append(out, l.s)
	}
	return out, true
}

// gitCheckout: paths after -- (or with a start point) are written; a
// branch switch writes what differs between HEAD's tree and the target's;
// -b NAME without a start point changes no file.
func gitCheckout(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	g, ok := a.parseGit(prog, args, " b B c C create force-create orphan conflict pathspec-from-file ")
	if !ok {
		return
	}
	force := g.has("f", "force", "discard-changes", "m", "merge")
	switch {
	case len(g.after) > 0:
		a.gitWriteOps(prog, g.after, c)
		a.gitPathsFrom(prog, g.before, g.after, false, c)
	case g.has("pathspec-from-file", "p", "patch"):
		a.gitWorkTree(prog, c)
	case len(g.before) == 0 && force && !g.has("b", "B", "c", "C", "create", "force-create", "orphan"):
		// checkout -f alone: the local changes are thrown away.
		a.gitRewriteOf(prog, &gitRewrite{kind: rwCheckout, revs: []string{"HEAD"}, dirty: true}, c)
	case len(g.before) == 0:
	case len(g.before) > 1 && prog == "git checkout":
		// checkout REV PATH…: the paths, from REV (or the index).
		a.gitWriteOps(prog, g.before[1:], c)
		a.gitPathsFrom(prog, g.before[:1], g.before[1:], true, c)
	default:
		revs, ok := staticOps(g.before[:1])
		var rw *gitRewrite
		if ok && len(g.before) == 1 {
			rw = &gitRewrite{kind: rwCheckout, revs: revs, dirty: force}
		}
		// An operand that names no revision is a path git restores: the
		// gate decides which when it reads the repository, and when it
		// cannot, counts both.
		if !a.gitRewriteOf(prog, rw, c) && prog == "git checkout" {
			a.gitWriteOps(prog, g.before, c)
		}
	}
}

// gitPathsFrom records checkout [REV] PATH… and restore: the paths are
// written (the caller records them), and what REV's tree or the index
// holds below them is read for links and submodules (a directory restored
// may hold a link out of the workspace). When that cannot be read, the
// whole work tree is written, and REV too when it may be a path.
func (a *analyzer) gitPathsFrom(prog string, revWords, pathWords []*syntax.Word, revMaybePath bool, c ctx) {
	revs, okRevs := staticOps(revWords)
	paths, okPaths := staticOps(pathWords)
	var rw *gitRewrite
	if okRevs && okPaths && len(revs) <= 1 {
		rw = &gitRewrite{kind: rwPaths, revs: revs, paths: paths, revMaybePath: revMaybePath}
	}
	if !a.gitRewriteOf(prog, rw, c) && revMaybePath {
		a.gitWriteOps(prog, revWords, c)
	}
}

// gitReset: --hard, --merge and --keep move the work tree to REV.
func gitReset(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	g, ok := a.parseGit(prog, args, " pathspec-from-file ")
	if !ok || !g.has("hard", "merge", "keep") {
		return
	}
	var rw *gitRewrite
	if len(g.after) == 0 && len(g.before) <= 1 && !g.has("pathspec-from-file", "recurse-submodules") {
		revs, ok := staticOps(g.before)
		if ok && len(revs) == 0 {
			revs = []string{"HEAD"}
		}
		if ok {
			rw = &gitRewrite{kind: rwReset, revs: revs, dirty: true}
		}
	}
	a.gitRewriteOf(prog, rw, c)
}

// gitStash: list and show read; push with pathspecs writes those; push
// and save write the local changes; pop and apply write the entry's
// changes; with untracked files (-u, -a) the whole work tree.
func gitStash(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	g, ok := a.parseGit(prog, args, " m message pathspec-from-file ")
	if !ok {
		return
	}
	verb := ""
	if len(g.before) > 0 {
		l, _ := staticWord(g.before[0])
		verb = l.s
	}
	untracked := g.has("u", "include-untracked", "a", "all")
	switch {
	case verb == "list" || verb == "show":
		a.gitReachOf(prog, g)
	case verb == "create" || verb == "store" || verb == "drop" || verb == "clear":
	case untracked || g.has("pathspec-from-file"):
		a.gitWorkTree(prog, c)
	case (verb == "" || verb == "push") && len(g.after) > 0:
		a.gitWriteOps(prog, g.after, c)
	case verb == "push" && len(g.before) > 1:
		a.gitWriteOps(prog, g.before[1:], c)
	case verb == "" || verb == "push" || verb == "save":
		a.gitRewriteOf(prog, &gitRewrite{kind: rwStash, dirty: true}, c)
	case verb == "pop" || verb == "apply":
		var rw *gitRewrite
		if revs, ok := staticOps(g.before[1:]); ok && len(revs) <= 1 && len(g.after) == 0 {
			rw = &gitRewrite{kind: rwStashApply, revs: revs, index: g.has("index")}
		}
		a.gitRewriteOf(prog, rw, c)
	default:
		a.gitWorkTree(prog, c) // stash branch, and verbs the gate does not know
	}
}

// gitWorktree: merge, rebase, cherry-pick and revert write what the
// commits they apply change; am applies patches from its input, which the
// gate cannot read, and is held; --abort writes what putting the work
// tree back writes.
func gitWorktree(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	g, ok := a.parseGit(prog, args, " m F file s strategy X strategy-option onto C ")
	if !ok {
		return
	}
	switch {
	case g.has("quit", "show-current-patch"):
		return // the work tree and the index are left as they are
	case g.has("abort"):
		a.gitRewriteOf(prog, &gitRewrite{kind: rwAbort}, c)
		return
	}
	a.gitOptReads(prog, g, c, "F", "file")
	if prog == "git am" {
		a.gitHoldUnknownWrites(prog, "the patches it applies come from its input or from files, not from the repository")
		return
	}
	a.gitRewriteOf(prog, gitRewriteFor(prog, g), c)
}

// gitHoldUnknownWrites holds a command whose writes depend on what is not
// in the repository yet.
func (a *analyzer) gitHoldUnknownWrites(prog, why string) {
	a.use.Holds = append(a.use.Holds, Hold{Program: "git", Approval: "git-writes", EveryCall: true,
		Reason: "the gate cannot tell what " + prog + " writes: " + why})
}

// gitRewriteFor is the rewrite merge, rebase, cherry-pick or revert asks
// for; nil when the gate cannot model it (an operand not static, an
// editor or a sequence in progress, the subtree strategy, which moves
// paths).
func gitRewriteFor(prog string, g gitArgs) *gitRewrite {
	if g.has("continue", "skip", "edit-todo", "i", "interactive", "rebase-merges", "r", "fork-point") && prog == "git rebase" {
		return nil
	}
	if g.has("continue", "skip") || len(g.after) > 0 {
		return nil
	}
	for _, v := range append(append([]string{}, g.opts["strategy"]...), g.opts["s"]...) {
		if v == "subtree" {
			return nil
		}
	}
	for _, v := range append(append([]string{}, g.opts["strategy-option"]...), g.opts["X"]...) {
		if strings.HasPrefix(v, "subtree") || strings.Contains(v, "\x00") {
			return nil
		}
	}
	revs, ok := staticOps(g.before)
	if !ok {
		return nil
	}
	rw := &gitRewrite{revs: revs, dirty: true}
	switch prog {
	case "git merge":
		rw.kind = rwMerge
	case "git cherry-pick", "git revert":
		rw.kind, rw.dirty = rwCherryPick, false
		if prog == "git revert" {
			rw.kind = rwRevert
		}
		for _, m := range append(append([]string{}, g.opts["m"]...), g.opts["mainline"]...) {
			n, err := strconv.Atoi(m)
			if err != nil || n < 1 || n > 64 {
				return nil
			}
			rw.mainline = n
		}
	case "git rebase":
		rw.kind = rwRebase
		rw.root, rw.keepBase = g.has("root"), g.has("keep-base")
		for _, o := range g.opts["onto"] {
			if o == "" || strings.Contains(o, "\x00") {
				return nil
			}
			rw.onto = o
		}
	default:
		return nil
	}
	return rw
}
