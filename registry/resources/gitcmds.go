package resources

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The values of git subcommands' options that take a separate word. For a
// long option the generated table knows, the table decides
// (gitSeparateValue); these lists hold the letters and the revision
// options. An option whose value is optional takes only an attached one
// (-U5, -M50%, -S<keyid>, --branches=<glob>, --pretty=…), so it is not
// here: `git log --pretty .env` reads the history of .env.
const (
	gitLogValues    = " n max-count skip since after until before author committer grep format date S G L O output encoding decorate-refs decorate-refs-exclude diff-filter word-diff-regex ws-error-highlight l glob exclude orderfile skip-to rotate-to "
	gitCommitValues = " m message F file C c reuse-message reedit-message t template fixup squash author date cleanup trailer pathspec-from-file "
)

// gitPathWord turns a git operand into the path it names: REV:path and
// :path (a file in the object store or the index) are that path, :(top)x,
// :/x and :!x pathspec magic are x. ok is false for dynamic words.
func gitPathWord(w *syntax.Word) (*syntax.Word, bool) {
	l, ok := staticWord(w)
	if !ok {
		return w, singleField(w)
	}
	s := l.s
	if strings.HasPrefix(s, ":(") {
		if j := strings.IndexByte(s, ')'); j > 0 {
			s = s[j+1:]
		}
	} else if strings.HasPrefix(s, ":/") || strings.HasPrefix(s, ":!") || strings.HasPrefix(s, ":^") {
		s = s[2:]
	} else if i := strings.IndexByte(s, ':'); i >= 0 && !strings.Contains(s[:i], "/") {
		s = s[i+1:] // REV:path, :path, :0:path
		if len(s) > 2 && s[1] == ':' && s[0] >= '0' && s[0] <= '3' {
			s = s[2:]
		}
	}
	if s == "" {
		s = "."
	}
	return valueWord(s), true
}

// gitReadOps records operands (paths or revisions, which git cannot always
// tell apart either) as read.
func (a *analyzer) gitReadOps(prog string, ws []*syntax.Word, c ctx) {
	for _, w := range ws {
		pw, ok := gitPathWord(w)
		if !ok {
			a.failf("cannot tell what %s reads: %s is not known before it runs", prog, wordText(w))
			return
		}
		if _, static := staticWord(pw); !static {
			a.failf("cannot tell what %s reads: %s is not known before it runs", prog, wordText(w))
			return
		}
		a.readArg(prog, pw, c)
	}
}

func (a *analyzer) gitWriteOps(prog string, ws []*syntax.Word, c ctx) {
	for _, w := range ws {
		pw, _ := gitPathWord(w)
		a.writeArg(prog, pw, c)
	}
}

// gitWorkTree records a rewrite of the whole work tree of the repository
// the command runs in (ShellUse.WorkTrees): not only the directory it runs
// from, since `cd lib && git reset --hard` rewrites ../.mcp.json too.
func (a *analyzer) gitWorkTree(prog string, c ctx) {
	dirs, ok := a.argPaths(dotWord, c)
	if !ok {
		a.failf("cannot tell which work tree %s rewrites: the working directory is not known", prog)
		return
	}
	for _, d := range dirs {
		a.add(&a.use.WorkTrees, "wt:", d)
	}
}

// gitOutput records the files options write (--output=FILE).
func (a *analyzer) gitOutput(prog string, g gitArgs, c ctx, names ...string) {
	for _, n := range names {
		for _, v := range g.opts[n] {
			a.writeArg(prog+" --"+n, valueWord(v), c)
		}
	}
}

func (a *analyzer) gitOptReads(prog string, g gitArgs, c ctx, names ...string) {
	for _, n := range names {
		for _, v := range g.opts[n] {
			a.readArg(prog+" --"+n, valueWord(v), c)
		}
	}
}

// gitReads: operands are read; --output writes.
func gitReads(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	g, ok := a.parseGit(prog, args, gitLogValues)
	if !ok {
		return
	}
	a.gitOutput(prog, g, c, "output")
	a.gitOptReads(prog, g, c, "pathspec-from-file", "O", "orderfile")
	a.gitSpecReads(prog, g.all(), c)
	a.gitReachOf(prog, g)
}

// gitDiff: like gitReads; --no-index compares two files (or two
// directory trees) anywhere.
func gitDiff(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	g, ok := a.parseGit(prog, args, gitLogValues)
	if !ok || !g.has("no-index") {
		gitReads(a, prog, args, c)
		return
	}
	a.gitOutput(prog, g, c, "output")
	a.gitSpecReads(prog, g.all(), c)
	a.treeArgs(prog, g.all(), c, TreeFilter{}, true)
}

// gitNoPaths: operands are names (refs, objects), not files.
func gitNoPaths(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	g, ok := a.parseGit(prog, args, gitLogValues+" F file ")
	if !ok {
		return
	}
	a.gitOutput(prog, g, c, "output")
	a.gitOptReads(prog, g, c, "F", "file")
	for _, w := range g.all() {
		if l, ok := staticWord(w); ok && strings.Contains(l.s, ":") {
			a.gitReadOps(prog, []*syntax.Word{w}, c) // REV:path
		}
	}
	a.gitReachOf(prog, g)
}

func gitTag(a *analyzer, prog string, args []*syntax.Word, c ctx) { gitNoPaths(a, prog, args, c) }

// gitGrep: pathspecs are read, --no-index and --untracked read the
// working directory; -f files are read.
func gitGrep(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	g, ok := a.parseGit(prog, args, " e f A B C m max-depth context after-context before-context threads max-count ")
	if !ok {
		return
	}
	a.gitOptReads(prog, g, c, "f")
	ops := g.after
	if !g.has("e", "f") && len(g.before) > 0 {
		ops = append(ops, g.before[1:]...)
	} else {
		ops = append(ops, g.before...)
	}
	if len(ops) == 0 {
		ops = []*syntax.Word{dotWord}
	}
	a.gitSpecReads(prog, ops, c)
	if g.has("no-index", "untracked") {
		a.treeArgs(prog, []*syntax.Word{dotWord}, c, TreeFilter{}, false) // files git does not track
	}
	if !g.has("no-index") {
		a.gitReachOf(prog, g)
	}
}

// gitCatFile prints objects by name: REV:path names a file; a bare object
// id could be any file's content, which the gate cannot tell.
func gitCatFile(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	g, ok := a.parseGit(prog, args, "")
	if !ok {
		return
	}
	if g.has("t", "s", "e") && !g.has("p", "batch", "batch-command", "textconv", "filters") {
		return
	}
	if g.has("batch", "batch-command", "batch-all-objects") {
		a.failf("cannot tell what git cat-file reads: the objects are named on its input")
		return
	}
	for _, w := range g.all() {
		l, ok := staticWord(w)
		if !ok || !strings.Contains(l.s, ":") {
			if ok && (l.s == "blob" || l.s == "tree" || l.s == "commit" || l.s == "tag") {
				continue
			}
			a.failf("cannot tell what git cat-file reads: %s names an object, not a path", wordText(w))
			return
		}
		a.gitReadOps(prog, []*syntax.Word{w}, c)
	}
}

// gitCommit reads -F files and the pathspecs it commits.
func gitCommit(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	g, ok := a.parseGit(prog, args, gitCommitValues)
	if !ok {
		return
	}
	a.gitOptReads(prog, g, c, "F", "file", "t", "template", "pathspec-from-file")
	a.gitSpecReads(prog, g.all(), c)
}

// gitRm removes the files it names from the work tree (not with --cached).
func gitRm(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	g, ok := a.parseGit(prog, args, " pathspec-from-file ")
	if !ok {
		return
	}
	if g.has("cached") {
		a.gitSpecReads(prog, g.all(), c)
		return
	}
	a.gitWriteOps(prog, g.all(), c)
}

// gitWritesAll: every operand is written (git mv).
func gitWritesAll(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	g, ok := a.parseGit(prog, args, "")
	if !ok {
		return
	}
	a.gitWriteOps(prog, g.all(), c)
}

// gitClean deletes untracked files in the paths it names, or everywhere.
func gitClean(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	g, ok := a.parseGit(prog, args, " e exclude ")
	if !ok {
		return
	}
	if g.has("n", "dry-run") {
		return
	}
	ops := g.all()
	if len(ops) == 0 {
		a.gitWorkTree(prog, c)
		return
	}
	a.gitWriteOps(prog, ops, c)
}

// gitRestore writes the paths it names (not with --staged alone).
func gitRestore(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	g, ok := a.parseGit(prog, args, " s source pathspec-from-file ")
	if !ok {
		return
	}
	if g.has("S", "staged") && !g.has("W", "worktree") {
		return
	}
	if g.has("pathspec-from-file") {
		a.gitWorkTree(prog, c)
		return
	}
	a.gitWriteOps(prog, g.all(), c)
	var source []*syntax.Word
	for _, v := range append(append([]string{}, g.opts["s"]...), g.opts["source"]...) {
		source = append(source, valueWord(v))
	}
	a.gitPathsFrom(prog, source, g.all(), false, c)
}

// gitApply writes the files its patch names unless it only checks or
// reports.
func gitApply(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	g, ok := a.parseGit(prog, args, " p C exclude include directory whitespace ")
	if !ok {
		return
	}
	a.readArgs(prog, g.all(), c)
	if g.has("check", "stat", "numstat", "summary", "cached") && !g.has("apply", "index") {
		return
	}
	a.gitWorkTree(prog, c)
}

// gitCheckoutIndex writes the files it names, everything with -a, and
// below --prefix.
func gitCheckoutIndex(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	g, ok := a.parseGit(prog, args, " prefix stage ")
	if !ok {
		return
	}
	for _, p := range g.opts["prefix"] {
		a.writeArg(prog+" --prefix", valueWord(p), c)
	}
	if g.has("a", "all", "stdin") {
		a.gitWorkTree(prog, c)
	}
	a.gitWriteOps(prog, g.all(), c)
}

// gitReadTree rewrites the work tree with -u.
func gitReadTree(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	g, ok := a.parseGit(prog, args, " prefix index-output ")
	if !ok {
		return
	}
	a.gitOutput(prog, g, c, "index-output")
	if g.has("u", "reset") {
		a.gitWorkTree(prog, c)
	}
}

// gitWorktreeUnlessList: sparse-checkout list reads, the rest rewrites.
func gitWorktreeUnlessList(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	g, ok := a.parseGit(prog, args, "")
	if !ok {
		return
	}
	if len(g.before) > 0 {
		if l, _ := staticWord(g.before[0]); l.s == "list" || l.s == "check-rules" {
			return
		}
	}
	a.gitWorkTree(prog, c)
}

// gitWorktreeCmd: worktree add, move and remove write the trees they name.
func gitWorktreeCmd(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	g, ok := a.parseGit(prog, args, " b B reason expire ")
	if !ok {
		return
	}
	ops := g.all()
	if len(ops) == 0 {
		return
	}
	verb, _ := staticWord(ops[0])
	switch verb.s {
	case "add", "remove", "move":
		if len(ops) > 1 {
			a.gitWriteOps(prog+" "+verb.s, ops[1:2], c)
		}
		if verb.s == "move" && len(ops) > 2 {
			a.gitWriteOps(prog+" move", ops[2:3], c)
		}
		if verb.s == "add" {
			a.gitWorktreeAddReach(prog+" add", g, ops[1:])
		}
	case "list", "prune", "lock", "unlock", "repair":
	default:
		a.failf("refused: git worktree %s is not one the gate knows", verb.s)
	}
}

// gitBisect: run runs a program; the rest check out revisions.
func gitBisect(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	if len(args) > 0 {
		if l, ok := staticWord(args[0]); !ok || l.s == "run" || l.s == "replay" {
			a.failf("the gate cannot tell what this runs: git bisect %s runs commands", wordText(args[0]))
			return
		} else if l.s == "log" || l.s == "visualize" || l.s == "view" || l.s == "terms" {
			return
		}
	}
	a.gitWorkTree(prog, c)
}

// gitInit writes the directory it creates.
func gitInit(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	g, ok := a.parseGit(prog, args, " b initial-branch object-format ref-format ")
	if !ok {
		return
	}
	ops := g.all()
	if len(ops) == 0 {
		ops = []*syntax.Word{dotWord}
	}
	a.gitWriteOps(prog, ops, c)
}

// gitBundle: create writes its file; the rest read it.
func gitBundle(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	g, ok := a.parseGit(prog, args, " version ")
	if !ok {
		return
	}
	ops := g.all()
	if len(ops) < 2 {
		return
	}
	verb, _ := staticWord(ops[0])
	if verb.s == "create" {
		a.writeArg(prog+" create", ops[1], c)
		a.gitReachOf(prog, g)
		return
	}
	a.readArg(prog, ops[1], c)
}

// gitArchive writes -o and reads the tree (or the paths it names).
func gitArchive(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	g, ok := a.parseGit(prog, args, " o output prefix format remote add-file ")
	if !ok {
		return
	}
	if g.has("remote") {
		a.failf("refused: git archive --remote reaches a host and runs a program there")
		return
	}
	for _, n := range []string{"o", "output"} {
		for _, v := range g.opts[n] {
			a.writeArg(prog+" -o", valueWord(v), c)
		}
	}
	a.gitOptReads(prog, g, c, "add-file")
	a.gitReachOf(prog, g)
	ops := g.all()
	if len(ops) <= 1 {
		a.readArg(prog, dotWord, c)
		return
	}
	a.gitSpecReads(prog, ops[1:], c)
}

// gitFormatPatch writes patch files into -o DIR, or the working directory.
func gitFormatPatch(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	g, ok := a.parseGit(prog, args, " o output-directory v reroll-count subject-prefix in-reply-to to cc signature-file base output ")
	if !ok {
		return
	}
	a.gitOutput(prog, g, c, "output")
	a.gitOptReads(prog, g, c, "signature-file")
	a.gitReachOf(prog, g)
	switch {
	case g.has("stdout"):
	case g.has("o", "output-directory"):
		for _, v := range append(g.opts["o"], g.opts["output-directory"]...) {
			a.writeArg(prog+" -o", valueWord(v), c)
		}
	default:
		a.writeArg(prog, dotWord, c)
	}
}

// gitHashObject reads the files it hashes; their names on its input cannot
// be seen.
func gitHashObject(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	g, ok := a.parseGit(prog, args, " t path ")
	if !ok {
		return
	}
	if g.has("stdin-paths") {
		a.failf("cannot tell what git hash-object reads: the paths are named on its input")
		return
	}
	a.readArgs(prog, g.all(), c)
}

// gitDifftool: -x and --extcmd are refused by parseGit; the tool itself
// comes from configuration.
func gitDifftool(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	g, ok := a.parseGit(prog, args, " t tool ")
	if !ok {
		return
	}
	a.gitSpecReads(prog, g.all(), c)
	a.gitReachOf(prog, g)
}

// gitMaintenance: start, register and stop write the user's scheduler.
func gitMaintenance(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	if len(args) > 0 {
		if l, ok := staticWord(args[0]); ok && l.s == "run" {
			return
		}
	}
	a.failf("refused: git maintenance %s changes the user's scheduled tasks", wordsText(args))
}

// gitSubmodule: only status and summary are modelled; the others reach
// the hosts .gitmodules names or run commands.
func gitSubmodule(a *analyzer, prog string, args []*syntax.Word, c ctx) {
	if len(args) == 0 {
		return
	}
	if l, ok := staticWord(args[0]); ok && (l.s == "status" || l.s == "summary") {
		return
	}
	a.failf("the gate cannot tell what this runs: git submodule %s follows .gitmodules (a file the agent can write) to hosts and commands", wordsText(args))
}
