package resources

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// gitGlobal are git's options before the subcommand: 1 takes a value.
var gitGlobal = map[string]int{
	"C": 1, "c": 1, "git-dir": 1, "work-tree": 1, "namespace": 1, "super-prefix": 1, "attr-source": 1,
	"bare": 0, "no-pager": 0, "p": 0, "paginate": 0, "P": 0, "no-replace-objects": 0, "literal-pathspecs": 0,
	"glob-pathspecs": 0, "noglob-pathspecs": 0, "icase-pathspecs": 0, "no-optional-locks": 0, "no-advice": 0,
	"version": 0, "v": 0, "help": 0, "h": 0, "html-path": 0, "man-path": 0, "info-path": 0, "exec-path": 2,
	"list-cmds": 2, "no-lazy-fetch": 0,
}

// git models git. Everything git can be told to run is refused: -c and
// config writes of keys that name a program, a file or a host (core.pager,
// alias.*, filter.*, include.path, remote.*.url …), --exec-path,
// --config-env, --upload-pack, --receive-pack, --exec, --template,
// rebase --exec, bisect run, submodule, grep -O, difftool -x,
// filter-branch and any subcommand git does not ship (git-foo on PATH, or
// an alias). -C, --git-dir and --work-tree are directories read, and -C
// moves the working directory of the subcommand's paths. Paths are read
// (log, diff, show, blame, REV:path) or written (checkout -- path, rm,
// clean, worktree add, bundle create, --output); a subcommand that rewrites
// the work tree without naming paths (checkout BRANCH, reset --hard, stash,
// merge, pull) writes the whole work tree. URLs are hosts.
func (a *analyzer) git(prog string, args []*syntax.Word, c ctx) {
	saved := a.cwds
	defer func() { a.cwds = saved }()
	i := 0
	for ; i < len(args) && a.err == nil; i++ {
		l, ok := staticWord(args[i])
		if !ok {
			a.failf("cannot tell what git does: %s is not static", wordText(args[i]))
			return
		}
		if len(l.s) < 2 || l.s[0] != '-' {
			break
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(l.s, "-"), "=")
		kind, known := gitGlobal[name]
		if !known {
			a.failf("refused: git %s is not an option the gate knows, and git runs programs", l.s)
			return
		}
		var v *syntax.Word
		switch {
		case hasVal:
			v = valueWord(val)
		case kind == 1 && len(name) == 1 && len(l.s) > 2:
			v = valueWord(l.s[2:])
		case kind == 1 && i+1 < len(args):
			i++
			v = args[i]
		case kind == 1:
			a.failf("cannot tell what git does: %s needs a value", l.s)
			return
		}
		a.gitGlobalOpt(name, hasVal, v, c)
	}
	if a.err != nil {
		return
	}
	run := a.noteGitRun(args[:i], args[i:])
	defer a.endGitRun(run)
	if i >= len(args) {
		return // git --version, git -C dir: nothing runs
	}
	l, ok := staticWord(args[i])
	if !ok {
		a.failf("cannot tell what git runs: the subcommand %s is not static", wordText(args[i]))
		return
	}
	sub, ok := gitModels[l.s]
	if !ok {
		a.failf("refused: git %s is not a git subcommand the gate knows (it could be an alias or a git-%s program)", l.s, l.s)
		return
	}
	sub.model(a, sub.prog, args[i+1:], c)
}

// gitGlobalOpt handles one option before git's subcommand.
func (a *analyzer) gitGlobalOpt(name string, hasVal bool, v *syntax.Word, c ctx) {
	switch name {
	case "C":
		paths, ok := a.argPaths(v, c)
		if !ok {
			a.failf("cannot tell where git runs: -C %s is not static", wordText(v))
			return
		}
		a.readArg("git -C", v, c)
		a.cwds = paths
	case "git-dir", "work-tree":
		a.readArg("git --"+name, v, c)
	case "c":
		l, ok := staticWord(v)
		if !ok {
			a.failf("the gate cannot tell what this runs: git -c %s is not static", wordText(v))
			return
		}
		key, value, _ := strings.Cut(l.s, "=")
		a.gitConfigKey("-c", key, value)
	case "exec-path":
		if hasVal {
			a.failf("refused: git --exec-path= makes git run its subcommands from another directory")
		}
	}
}

// gitSafeKeys are configuration sections and keys that name no program,
// file or host. Every other key is refused in -c and in config writes.
var (
	gitSafeSections = map[string]bool{
		"user": true, "color": true, "advice": true, "i18n": true, "column": true, "blame": true,
		"log": true, "format": true, "status": true, "rerere": true, "feature": true, "init": true,
		"push": true, "pull": true, "fetch": true, "merge": true, "rebase": true, "tag": true, "branch": true,
		"diff": true, "grep": true, "commit": true, "gc": true, "pack": true, "index": true, "checkout": true,
		"clean": true, "stash": true, "transfer": true, "am": true, "apply": true, "help": true,
	}
	// gitRiskyInSafe are keys of those sections that still name a program,
	// a file or a remote.
	gitRiskyInSafe = map[string]bool{
		"diff.external": true, "commit.template": true, "merge.tool": false, "diff.tool": false,
		"help.browser": true, "push.recurseSubmodules": false, "fetch.recurseSubmodules": true,
		"init.templatedir": true, "log.mailmap": false, "blame.ignorerevsfile": true,
		"gc.logexpiry": false, "rebase.instructionformat": false, "status.showuntrackedfiles": false,
	}
	gitSafeCore = map[string]bool{
		"core.autocrlf": true, "core.filemode": true, "core.ignorecase": true, "core.quotepath": true,
		"core.whitespace": true, "core.eol": true, "core.safecrlf": true, "core.longpaths": true,
		"core.symlinks": true, "core.abbrev": true, "core.precomposeunicode": true, "core.untrackedcache": true,
		"core.preloadindex": true, "core.commentchar": true, "core.commentstring": true, "core.compression": true,
		"core.bigfilethreshold": true, "core.checkstat": true, "core.trustctime": true,
	}
)

// gitConfigKey refuses a configuration key that names a program, a file or
// a host (given with -c or written with git config).
func (a *analyzer) gitConfigKey(how, key, value string) {
	k := strings.ToLower(key)
	section, rest, _ := strings.Cut(k, ".")
	sub := strings.Contains(rest, ".") // section.subsection.key
	switch {
	case gitSafeCore[k]:
		return
	case gitSafeSections[section] && !sub && !gitRiskyInSafe[k]:
		return
	case section == "branch" && sub && (strings.HasSuffix(k, ".merge") || strings.HasSuffix(k, ".rebase") || strings.HasSuffix(k, ".description")):
		return
	}
	a.failf("refused: git %s %s may name a program, a file or a host git would use (%s)", how, key, shorten(value))
}

// gitSubcommands maps each subcommand the gate models to its model;
// gitModels to the model and the subcommand's name as a program ("git
// status"), made once rather than on every command.
var (
	gitSubcommands map[string]func(a *analyzer, prog string, args []*syntax.Word, c ctx)
	gitModels      map[string]gitModel
)

type gitModel struct {
	prog  string
	model func(a *analyzer, prog string, args []*syntax.Word, c ctx)
}

func init() {
	gitSubcommands = map[string]func(a *analyzer, prog string, args []*syntax.Word, c ctx){
		"status": gitReads, "log": gitReads, "show": gitReads, "diff": gitDiff, "whatchanged": gitReads,
		"shortlog": gitReads, "blame": gitReads, "annotate": gitReads, "describe": gitNoPaths,
		"rev-list": gitReads, "rev-parse": gitNoPaths, "ls-files": gitReads, "ls-tree": gitNoPaths,
		"reflog": gitNoPaths, "show-ref": gitNoPaths, "for-each-ref": gitListFormat, "name-rev": gitNoPaths,
		"merge-base": gitNoPaths, "range-diff": gitNoPaths, "cherry": gitNoPaths, "count-objects": gitNoPaths,
		"var": gitNoPaths, "version": gitNoPaths, "help": gitNoPaths, "fsck": gitFsck, "show-branch": gitNoPaths,
		"diff-tree": gitReads, "diff-files": gitReads, "diff-index": gitReads, "check-ignore": gitReads,
		"check-attr": gitReads, "check-ref-format": gitNoPaths, "verify-commit": gitNoPaths,
		"verify-tag": gitNoPaths, "branch": gitListFormat, "tag": gitTagCmd, "notes": gitNotesCmd,
		"update-ref": gitUpdateRefCmd, "symbolic-ref": gitNoPaths, "update-index": gitUpdateIndexCmd, "write-tree": gitNoPaths,
		"mktree": gitMktree, "gc": gitNoPaths, "prune": gitNoPaths, "repack": gitNoPaths, "replace": gitReplaceCmd,
		"rerere": gitNoPaths, "grep": gitGrep, "cat-file": gitCatFileCmd, "add": gitReads, "commit": gitCommit,
		"rm": gitRm, "mv": gitWritesAll, "clean": gitClean, "checkout": gitCheckoutCmd, "switch": gitCheckout,
		"restore": gitRestoreCmd, "reset": gitReset, "stash": gitStash, "merge": gitWorktree, "rebase": gitWorktree,
		"pull": gitRemote, "cherry-pick": gitWorktree, "revert": gitWorktree, "am": gitWorktree,
		"apply": gitApply, "checkout-index": gitCheckoutIndexCmd, "read-tree": gitReadTreeCmd,
		"sparse-checkout": gitWorktreeUnlessList, "worktree": gitWorktreeCmd, "bisect": gitBisect,
		"fetch": gitRemote, "push": gitRemote, "ls-remote": gitRemote, "clone": gitClone, "remote": gitRemoteCmd,
		"config": gitConfig, "init": gitInit, "bundle": gitBundle, "archive": gitArchive,
		"format-patch": gitFormatPatch, "hash-object": gitHashObjectCmd, "difftool": gitDifftool,
		"mergetool": gitDifftool, "maintenance": gitMaintenance, "submodule": gitSubmodule,
	}
	gitModels = make(map[string]gitModel, len(gitSubcommands))
	for sub, model := range gitSubcommands {
		gitModels[sub] = gitModel{"git " + sub, model}
	}
}

// gitRefused are long options that make a git subcommand run a program or
// reach a host the gate cannot check; gitShortRefused are the short ones,
// by subcommand (-x is rebase --exec but cherry-pick's "(cherry picked
// from …)").
var (
	gitRefused = map[string]string{
		"upload-pack": "runs a program", "receive-pack": "runs a program", "exec": "runs a program",
		"template": "installs hooks from a directory", "config-env": "takes configuration from the environment",
		"open-files-in-pager": "runs a program", "extcmd": "runs a program", "bundle-uri": "reaches a host",
		"recurse-submodules": "follows .gitmodules to other hosts", "separate-git-dir": "moves the repository",
	}
	gitShortRefused = map[string]string{
		"git rebase": "x", "git difftool": "x", "git mergetool": "x", "git grep": "O", "git clone": "u",
		"git ls-remote": "u",
	}
	gitStrategies = map[string]bool{"git merge": true, "git rebase": true, "git pull": true,
		"git cherry-pick": true, "git revert": true}
)

// gitArgs are a git subcommand's arguments: options with their values ("" for
// a flag), and the operands before and after "--".
type gitArgs struct {
	opts   map[string][]string
	before []*syntax.Word
	after  []*syntax.Word
}

func (g gitArgs) has(names ...string) bool {
	for _, n := range names {
		if _, ok := g.opts[n]; ok {
			return true
		}
	}
	return false
}

// all is the operands before and after "--". Most commands have one side
// only, which is handed out with its capacity cut, so that an append by
// the caller copies it.
func (g gitArgs) all() []*syntax.Word {
	switch {
	case len(g.after) == 0:
		return slices.Clip(g.before)
	case len(g.before) == 0:
		return slices.Clip(g.after)
	}
	return append(slices.Clip(g.before), g.after...)
}

// parseGit walks a subcommand's arguments. withValue lists, space-separated
// and space-padded, the options that take a separate value. Options that
// run programs are refused, and so are merge strategies other than git's
// own (-s foo runs git-merge-foo).
func (a *analyzer) parseGit(prog string, args []*syntax.Word, withValue string) (gitArgs, bool) {
	var g gitArgs
	dd := false
	for i := 0; i < len(args); i++ {
		w := args[i]
		l, ok := staticWord(w)
		if !ok && !dd {
			if lead := leadingLit(w); strings.HasPrefix(lead, "--") && strings.Contains(lead, "=") {
				l, ok = lit{s: lead + "\x00dynamic"}, true // --author="$(…)": an option, its value unknown
			}
		}
		if dd || !ok || len(l.s) < 2 || l.s[0] != '-' {
			if !ok && !singleField(w) {
				a.failf("cannot tell what %s does: %s may expand to an option", prog, wordText(w))
				return g, false
			}
			if dd {
				g.after = append(g.after, w)
			} else {
				g.before = append(g.before, w)
			}
			continue
		}
		if l.s == "--" {
			dd = true
			continue
		}
		short := !strings.HasPrefix(l.s, "--")
		var name, val string
		var hasVal bool
		if short {
			name, val, hasVal = l.s[1:2], l.s[2:], len(l.s) > 2
			if r := gitShortRefused[prog]; r != "" && strings.ContainsAny(l.s[1:], r) {
				a.failf("refused: %s %s runs a program, which the gate cannot see", prog, l.s)
				return g, false
			}
		} else if name, val, hasVal, ok = a.gitLong(prog, l.s); !ok {
			return g, false
		}
		if !hasVal && i+1 < len(args) && gitSeparateValue(strings.TrimPrefix(prog, "git "), name, short, withValue) {
			i++
			v, ok := staticWord(args[i])
			if !ok {
				v.s = "\x00dynamic"
			}
			val = v.s
		}
		if (name == "strategy" || (short && name == "s")) && gitStrategies[prog] {
			switch val {
			case "ort", "recursive", "resolve", "octopus", "ours", "subtree":
			default:
				a.failf("refused: %s -s %s runs the program git-merge-%s", prog, val, val)
				return g, false
			}
		}
		if g.opts == nil {
			g.opts = map[string][]string{}
		}
		g.opts[name] = append(g.opts[name], val)
	}
	return g, true
}

// leadingLit is the unquoted literal text a word starts with.
func leadingLit(w *syntax.Word) string {
	if len(w.Parts) == 0 {
		return ""
	}
	if l, ok := w.Parts[0].(*syntax.Lit); ok {
		return l.Value
	}
	return ""
}
