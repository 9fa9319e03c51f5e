package resources

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// programModels are the programs whose options the gate models; any
// other program's operands are classified by generic.
var programModels map[string]func(a *analyzer, name string, args []*syntax.Word, c ctx)

func init() {
	programModels = map[string]func(a *analyzer, name string, args []*syntax.Word, c ctx){
		"git": (*analyzer).git, "sed": (*analyzer).sed, "gsed": (*analyzer).sed,
		"grep": (*analyzer).grep, "egrep": (*analyzer).grep, "fgrep": (*analyzer).grep, "rgrep": (*analyzer).grep,
		"rg": (*analyzer).rg, "ag": (*analyzer).agAck, "ack": (*analyzer).agAck, "ack-grep": (*analyzer).agAck,
		"zip": (*analyzer).zip, "rsync": (*analyzer).rsync,
		"sort": (*analyzer).sort, "uniq": (*analyzer).uniq, "diff": (*analyzer).diff,
		"awk": (*analyzer).awk, "gawk": (*analyzer).awk, "mawk": (*analyzer).awk, "nawk": (*analyzer).awk,
		"tar": (*analyzer).tar, "make": (*analyzer).make, "gmake": (*analyzer).make,
		"npm": (*analyzer).npm, "npx": (*analyzer).npx, "go": (*analyzer).goTool,
		"curl": (*analyzer).curl, "wget": (*analyzer).wget, "echo": nil, "printf": (*analyzer).printf,
		"dd": (*analyzer).dd, "split": (*analyzer).split,
	}
	delete(programModels, "echo")
}

// sortOpts are GNU sort's options; sort can run a compressor, so others are
// refused.
var sortOpts = map[string]int{
	"b": 0, "ignore-leading-blanks": 0, "d": 0, "dictionary-order": 0, "f": 0, "ignore-case": 0,
	"g": 0, "general-numeric-sort": 0, "i": 0, "ignore-nonprinting": 0, "M": 0, "month-sort": 0,
	"h": 0, "human-numeric-sort": 0, "n": 0, "numeric-sort": 0, "R": 0, "random-sort": 0, "r": 0,
	"reverse": 0, "V": 0, "version-sort": 0, "c": 0, "check": 2, "C": 0, "m": 0, "merge": 0, "s": 0,
	"stable": 0, "u": 0, "unique": 0, "z": 0, "zero-terminated": 0, "k": 1, "key": 1, "t": 1,
	"field-separator": 1, "S": 1, "buffer-size": 1, "parallel": 1, "batch-size": 1, "o": 1, "output": 1,
	"T": 1, "temporary-directory": 1, "random-source": 1, "sort": 1, "debug": 0, "help": 0, "version": 0,
}

// sort models sort: -o writes, -T writes temporary files there, the
// operands and --random-source are read; --compress-program runs a program
// and --files0-from takes the file names from a file.
func (a *analyzer) sort(prog string, args []*syntax.Word, c ctx) {
	p := optWalk{prog: prog, opts: sortOpts, short: "bdfgiMhnRrVcCmsuz", argShort: "ktSoT"}
	if !p.walk(a, args) {
		return
	}
	if p.has("compress-program") {
		a.failf("the gate cannot tell what this runs: sort --compress-program runs a program")
		return
	}
	for _, k := range []string{"o", "output", "T", "temporary-directory"} {
		a.writeArgs(prog+" -o", p.vals[k], c)
	}
	a.readArgs(prog, p.vals["random-source"], c)
	a.readArgs(prog, p.ops, c)
}

// uniq reads INPUT and writes OUTPUT.
func (a *analyzer) uniq(prog string, args []*syntax.Word, c ctx) {
	p := optWalk{prog: prog, opts: uniqOpts, argShort: "fsw", lax: true}
	if !p.walk(a, args) {
		return
	}
	if len(p.ops) > 0 {
		a.readArg(prog, p.ops[0], c)
	}
	if len(p.ops) > 1 {
		a.writeArg(prog, p.ops[1], c)
	}
}

// diff reads its operands and the files of --exclude-from, --from-file
// and --to-file; with -r it reads every file below the directories among
// them (its --exclude is not modelled: it counts for nothing).
func (a *analyzer) diff(prog string, args []*syntax.Word, c ctx) {
	p := optWalk{prog: prog, opts: diffOpts,
		argShort: "LxXIUCFW", lax: true}
	if !p.walk(a, args) {
		return
	}
	a.readArgs(prog, p.vals["X"], c)
	a.readArgs(prog, p.vals["exclude-from"], c)
	if p.has("r", "recursive") {
		files := append(append(p.vals["from-file"], p.vals["to-file"]...), p.ops...)
		a.treeArgs(prog, files, c, TreeFilter{}, !p.has("no-dereference"))
		return
	}
	a.readArgs(prog, p.vals["from-file"], c)
	a.readArgs(prog, p.vals["to-file"], c)
	a.readArgs(prog, p.ops, c)
}

// printf -v assigns a variable whose name bash evaluates.
func (a *analyzer) printf(prog string, args []*syntax.Word, c ctx) {
	for i := 0; i+1 < len(args); i++ {
		l, ok := staticWord(args[i])
		if !ok || !strings.HasPrefix(l.s, "-") || l.s == "--" {
			return
		}
		if l.s == "-v" {
			a.nameWord("printf -v", args[i+1])
			return
		}
	}
}

// uniqOpts are uniq's options (see optWalk), made once.
var uniqOpts = map[string]int{"f": 1, "skip-fields": 1, "s": 1, "skip-chars": 1,
	"w": 1, "check-chars": 1, "group": 2, "all-repeated": 2}

// diffOpts are diff's options (see optWalk), made once.
var diffOpts = map[string]int{"label": 1, "L": 1, "x": 1, "exclude": 1, "X": 1,
	"exclude-from": 1, "I": 1, "ignore-matching-lines": 1, "from-file": 1, "to-file": 1, "U": 1,
	"unified": 2, "C": 1, "context": 2, "color": 2, "F": 1, "show-function-line": 1, "horizon-lines": 1,
	"line-format": 1, "W": 1, "width": 1, "tabsize": 1, "palette": 1}
