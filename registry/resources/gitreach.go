package resources

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// git prints files from its object store and its index without naming
// their paths: git log -p, git show, git diff, git grep, git archive, git
// format-patch, git stash show, git bundle create, a blob named by its id.
// The analysis records, for each such command, what it may print (its
// reach: a mode, the revisions and pathspecs on the line); the gate reads
// the repository's own files (gitcheck.go) to find whether a path within
// that reach matches a deny entry. Operands before "--" may be revisions
// or paths, as git decides by looking them up: the check does the same.

// gitMode is how a command's revisions become what it prints.
type gitMode int

const (
	gitModeLog         gitMode = iota + 1 // log -p, whatchanged -p: the changes of every commit walked
	gitModeShow                           // show: each object named (commit: its changes; blob: itself)
	gitModeDiff                           // diff, difftool: the index, trees or the changes between two
	gitModeDiffTree                       // diff-tree -p: a commit's changes, or between two trees
	gitModeDiffIndex                      // diff-index -p: the index against a tree
	gitModeDiffFiles                      // diff-files -p: the index
	gitModeGrep                           // grep: the index (the tracked files) or trees
	gitModeArchive                        // archive: a tree
	gitModeFormatPatch                    // format-patch: the changes of a range (from HEAD)
	gitModeStash                          // stash show, stash list -p: every stash entry
	gitModeBundle                         // bundle create: every object of the commits walked
	gitModeRangeDiff                      // range-diff: the changes of the ranges
	gitModeBlame                          // blame, annotate: the file at a revision, or in the index and HEAD
	gitModeNamed                          // tag, update-ref, notes add -C …: the objects named (gitnamed.go)
	gitModeNotes                          // notes show: the notes
	gitModeRefFormat                      // for-each-ref --format=%(raw) …: the objects refs name
	gitModeIndexWrite                     // checkout-index: the index entries written
)

// gitReach is what one content-printing git command may print.
type gitReach struct {
	program string
	mode    gitMode
	revs    []string // operands before "--": revisions, or pathspecs when they name none
	paths   []string // operands after "--": pathspecs
	cached  bool     // --cached / --staged: the index against a tree
	noPatch bool     // show -s: commits print no changes (a blob still prints itself)
	depth   int      // commits walked from each tip, at most; 0 is all of them
	all     bool     // --all, --branches, --tags, --remotes, --glob: every ref
	reflogs bool     // --reflog, -g: every commit the reflogs name
	root    bool     // format-patch --root
	full    bool     // --full-diff: the whole change of a commit a pathspec selects
	// unknown says why the reach cannot be bounded: the line is held.
	unknown string
	// notes: the command prints the notes of the commits it shows;
	// notesOnly: and nothing else from the object store.
	notes, notesOnly bool
	// named are the objects a gitModeNamed command names; readsTree: it
	// reads them into the index (read-tree), below rename (--prefix).
	named     []string
	readsTree bool
	rename    string
}

// gitPatchOpts are the options that make log, whatchanged, diff-tree and
// the other plumbing print changes (not only names), and the pickaxe and
// line-log options that read contents to choose what to print.
var gitPatchOpts = map[string]bool{
	"p": true, "u": true, "patch": true, "U": true, "unified": true, "patch-with-stat": true,
	"patch-with-raw": true, "cc": true, "c": true, "remerge-diff": true, "word-diff": true,
	"word-diff-regex": true, "color-words": true, "check": true, "W": true, "function-context": true,
	"binary": true, "S": true, "G": true, "L": true, "pickaxe-regex": true, "dd": true,
	"combined-all-paths": true, "diff-merges": true, "m": true, "ext-diff": true, "textconv": true,
}

// gitNamesOnly are the formats of git diff that print names and counts,
// not contents.
var gitNamesOnly = map[string]bool{
	"stat": true, "numstat": true, "shortstat": true, "dirstat": true, "dirstat-by-file": true,
	"cumulative": true, "name-only": true, "name-status": true, "summary": true, "raw": true,
	"s": true, "no-patch": true, "quiet": true, "compact-summary": true,
}

// gitDepthSafe are the log options that neither filter the commits walked
// nor reorder them beyond "a child before its parents": with only these,
// the first N commits shown lie within N steps of a tip.
var gitDepthSafe = map[string]bool{
	"p": true, "u": true, "patch": true, "U": true, "unified": true, "stat": true, "oneline": true,
	"format": true, "pretty": true, "abbrev-commit": true, "abbrev": true, "decorate": true, "graph": true,
	"n": true, "max-count": true, "skip": true, "reverse": true, "name-only": true, "name-status": true,
	"color": true, "no-color": true, "date": true, "topo-order": true, "date-order": true,
	"author-date-order": true, "first-parent": true, "numstat": true, "shortstat": true, "summary": true,
	"cc": true, "c": true, "m": true, "raw": true, "no-decorate": true, "patch-with-stat": true,
	"word-diff": true, "color-words": true, "no-walk": true, "full-index": true, "no-abbrev": true,
	"relative-date": true, "parents": true, "children": true, "left-right": true, "boundary": true,
	"show-signature": true, "no-notes": true, "notes": true, "log-size": true, "diff-merges": true,
	"no-renames": true, "M": true, "find-renames": true, "C": true, "find-copies": true, "z": true,
	"mailmap": true, "use-mailmap": true, "source": true, "encoding": true, "expand-tabs": true,
	"no-expand-tabs": true, "W": true, "function-context": true, "ignore-all-space": true, "w": true,
	"b": true, "ignore-space-change": true, "minimal": true, "patience": true, "histogram": true,
	"indent-heuristic": true, "no-indent-heuristic": true, "diff-algorithm": true, "binary": true,
	"no-prefix": true, "src-prefix": true, "dst-prefix": true, "line-prefix": true, "single-worktree": true,
	// format-patch's own, which change how a patch is written, not which.
	"stdout": true, "numbered": true, "no-numbered": true, "k": true, "keep-subject": true, "signoff": true,
	"cover-letter": true, "no-cover-letter": true, "subject-prefix": true, "o": true, "output-directory": true,
	"zero-commit": true, "no-stat": true, "thread": true, "no-thread": true, "quiet": true, "rfc": true,
}

// noteGitReach records the reach of the git command being analysed (the
// last git run noted) when mode, given its options, prints contents.
func (a *analyzer) noteGitReach(prog string, mode gitMode, g gitArgs, before []*syntax.Word) {
	notes := gitShowsNotes(prog, g)
	if a.err != nil || len(a.use.gitRuns) == 0 || !gitPrints(mode, g) && !notes {
		return
	}
	r := &gitReach{program: prog, mode: mode, notes: notes, notesOnly: !gitPrints(mode, g)}
	r.cached = g.has("cached", "staged")
	r.noPatch = mode == gitModeShow && g.has("s", "no-patch") && !gitHasAny(g, gitPatchOpts)
	r.full = g.has("full-diff")
	r.root = g.has("root")
	r.all = g.has("all", "branches", "tags", "remotes", "glob", "exclude", "alternate-refs", "bisect")
	r.reflogs = g.has("reflog", "g", "walk-reflogs")
	if g.has("stdin", "indexed-objects") {
		r.unknown = prog + " reads the objects it prints from elsewhere than the line"
	}
	r.depth = gitDepth(g)
	for _, lists := range []struct {
		words []*syntax.Word
		into  *[]string
	}{{before, &r.revs}, {g.after, &r.paths}} {
		for _, w := range lists.words {
			l, ok := staticWord(w)
			if !ok {
				r.unknown = "an operand of " + prog + " is not known before it runs"
				continue
			}
			*lists.into = append(*lists.into, l.s)
		}
	}
	run := &a.use.gitRuns[len(a.use.gitRuns)-1]
	run.reach = r
}

// gitPrints reports whether a command of mode, with options g, prints
// file contents (or reads them to choose what it prints).
func gitPrints(mode gitMode, g gitArgs) bool {
	switch mode {
	case gitModeLog, gitModeDiffTree, gitModeDiffIndex, gitModeDiffFiles:
		return gitHasAny(g, gitPatchOpts)
	case gitModeDiff:
		// git diff prints the changes unless it is told to print names.
		return gitHasAny(g, gitPatchOpts) || !gitHasAny(g, gitNamesOnly)
	}
	return true
}

func gitHasAny(g gitArgs, set map[string]bool) bool {
	for name := range g.opts {
		if set[name] {
			return true
		}
	}
	return false
}

// gitDepth is how many commits log walks from each tip, at most (0: no
// bound): -n N, -N and --max-count, plus --skip, when every option is one
// that keeps "the k-th commit shown lies within k steps of a tip" (no
// filter: a filtered walk goes as deep as it must to find N commits that
// pass; the check drops the bound when a pathspec is given).
func gitDepth(g gitArgs) int {
	n := 0
	skip := 0
	for name, vals := range g.opts {
		v := vals[len(vals)-1]
		switch {
		case name == "n" || name == "max-count":
			n = atoiOr(v, 0)
		case len(name) == 1 && name[0] >= '0' && name[0] <= '9':
			n = atoiOr(name+v, 0) // -3, -10 (read as -1 with "0")
		case name == "skip":
			skip = atoiOr(v, -1)
			if skip < 0 {
				return 0
			}
		case !gitDepthSafe[name]:
			return 0
		}
	}
	if n <= 0 {
		return 0
	}
	return n + skip
}

func atoiOr(s string, def int) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 1<<20 {
		return def
	}
	return n
}

// gitReachOperands are a content command's operands before "--" that may
// be revisions: git grep's first is its pattern (unless -e or -f gives
// it), git archive's is its tree, git stash's its verb, git bundle's its
// verb and file.
func gitReachOperands(mode gitMode, g gitArgs) []*syntax.Word {
	ops := g.before
	switch {
	case mode == gitModeGrep && !g.has("e", "f") && len(ops) > 0:
		ops = ops[1:]
	case mode == gitModeStash && len(ops) > 0:
		ops = ops[1:]
	case mode == gitModeBundle && len(ops) > 1:
		ops = ops[2:]
	}
	return ops
}

// gitReachOf notes the reach of one of the subcommands that print
// contents, by name; the others print none.
func (a *analyzer) gitReachOf(prog string, g gitArgs) {
	mode := gitModes[strings.TrimPrefix(prog, "git ")]
	if mode == 0 {
		return
	}
	if mode == gitModeStash {
		verb := ""
		if len(g.before) > 0 {
			l, _ := staticWord(g.before[0])
			verb = l.s
		}
		if verb != "show" && !(verb == "list" && gitHasAny(g, gitPatchOpts)) {
			return
		}
	}
	ops := gitReachOperands(mode, g)
	if mode == gitModeLog && prog == "git reflog" {
		// git reflog [show] is git log -g; its other verbs print nothing.
		if len(ops) > 0 {
			l, _ := staticWord(ops[0])
			switch l.s {
			case "show":
				ops = ops[1:]
			case "expire", "delete", "exists", "list", "drop":
				return
			}
		}
		if g.opts == nil {
			g.opts = map[string][]string{}
		}
		g.opts["g"] = append(g.opts["g"], "")
	}
	if mode == gitModeBundle {
		if len(g.before) == 0 {
			return
		}
		if l, _ := staticWord(g.before[0]); l.s != "create" {
			return
		}
	}
	a.noteGitReach(prog, mode, g, ops)
}

// gitModes are the subcommands that can print contents, by name.
var gitModes = map[string]gitMode{
	"log": gitModeLog, "whatchanged": gitModeLog, "show": gitModeShow, "diff": gitModeDiff,
	"difftool": gitModeDiff, "diff-tree": gitModeDiffTree, "diff-index": gitModeDiffIndex,
	"diff-files": gitModeDiffFiles, "grep": gitModeGrep, "archive": gitModeArchive,
	"format-patch": gitModeFormatPatch, "stash": gitModeStash, "bundle": gitModeBundle,
	"range-diff": gitModeRangeDiff, "reflog": gitModeLog, "blame": gitModeBlame, "annotate": gitModeBlame,
}
