package resources

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// awk models awk: a program file (-f) cannot be seen and is refused; the
// program text is refused when it runs commands (system(), pipes to or from
// a command), reads files by name (getline <), writes them (print > file)
// or loads extensions (@load, -l); operands that are not var=value
// assignments are read.
func (a *analyzer) awk(prog string, args []*syntax.Word, c ctx) {
	p := optWalk{prog: prog, opts: awkOpts,
		short: "bcPrSNOstVhnM", argShort: "FvfeilEW", optShort: "L"}
	if !p.walk(a, args) {
		return
	}
	if p.has("f", "file", "i", "include", "l", "load", "E", "exec") {
		a.failf("the gate cannot tell what this runs: %s reads its program from a file or loads code", prog)
		return
	}
	programs := append(p.vals["e"], p.vals["source"]...)
	ops := p.ops
	if len(programs) == 0 {
		if len(ops) == 0 {
			return
		}
		programs, ops = ops[:1], ops[1:]
	}
	for _, w := range programs {
		l, ok := staticWord(w)
		if !ok {
			a.failf("the gate cannot tell what this runs: the %s program %s is not static", prog, wordText(w))
			return
		}
		if why := awkHazard(l.s); why != "" {
			a.failf("the gate cannot tell what this runs: the %s program %s", prog, why)
			return
		}
	}
	for _, w := range ops {
		if l, ok := staticWord(w); ok {
			if n, _, found := strings.Cut(l.s, "="); found && validName(n) {
				continue // var=value, not a file
			}
		}
		a.readArg(prog, w, c)
	}
}

// awkHazard scans awk program text outside string literals and regular
// expressions for what the gate cannot follow.
func awkHazard(src string) string {
	code := awkCode(src)
	switch {
	case strings.Contains(code, "system"):
		return "calls system(), which runs a command"
	case strings.Contains(strings.ReplaceAll(code, "||", ""), "|"):
		return "pipes to or from a command"
	case strings.Contains(code, "getline"):
		return "reads with getline"
	case strings.Contains(code, "@"):
		return "loads or includes code"
	case strings.Contains(code, "ENVIRON") && strings.Contains(code, "="):
		return "uses the environment"
	}
	// print and printf with > or >> write a file.
	for _, stmt := range strings.FieldsFunc(code, func(r rune) bool { return r == ';' || r == '\n' || r == '{' || r == '}' }) {
		s := strings.TrimSpace(stmt)
		if (strings.HasPrefix(s, "print") || strings.Contains(s, " print")) && strings.Contains(s, ">") {
			return "writes a file with print >"
		}
	}
	return ""
}

// awkCode blanks out string literals and regular expressions, so that only
// code is scanned (a "|" in a string is not a pipe).
func awkCode(src string) string {
	b := []byte(src)
	var quote byte
	for i := 0; i < len(b); i++ {
		ch := b[i]
		switch {
		case quote != 0 && ch == '\\' && i+1 < len(b):
			b[i], b[i+1] = ' ', ' '
			i++
		case quote != 0 && ch == quote:
			quote = 0
		case quote != 0:
			b[i] = ' '
		case ch == '"':
			quote = '"'
		case ch == '/' && awkRegexStart(b, i):
			quote = '/'
		}
	}
	return string(b)
}

// awkRegexStart guesses whether a / at i starts a regular expression: at the
// start, or after an operator, a brace, a parenthesis or a comma.
func awkRegexStart(b []byte, i int) bool {
	for j := i - 1; j >= 0; j-- {
		if b[j] == ' ' || b[j] == '\t' {
			continue
		}
		return strings.IndexByte("(,{};!~&|=\n", b[j]) >= 0
	}
	return true
}

// tar models tar: creating reads the operands (recursively) and writes the
// archive; listing reads the archive; extracting writes below the
// directory (-C or the working one). Options that run programs
// (--to-command, -I/--use-compress-program, --checkpoint-action,
// --info-script, --rsh-command) and remote archives (host:file) are
// refused, and so is any option the gate does not know.
func (a *analyzer) tar(prog string, args []*syntax.Word, c ctx) {
	if len(args) > 0 {
		if l, ok := staticWord(args[0]); ok && l.s != "" && l.s[0] != '-' {
			cp := append([]*syntax.Word{valueWord("-" + l.s)}, args[1:]...)
			args = cp // old-style bundled options: tar czf x.tgz dir
		}
	}
	p := optWalk{prog: prog, opts: tarOpts,
		short: "cxtruzjJavpkOwhmWS", argShort: "fCXTHb"}
	if !p.walk(a, args) {
		return
	}
	if p.has("T", "files-from") {
		a.failf("cannot tell what tar reads: --files-from takes the names from a file")
		return
	}
	for _, k := range []string{"X", "exclude-from"} {
		a.readArgs(prog, p.vals[k], c)
	}
	saved := a.cwds
	defer func() { a.cwds = saved }()
	for _, d := range append(p.vals["C"], p.vals["directory"]...) {
		a.readArg(prog+" -C", d, c)
		if paths, ok := a.argPaths(d, c); ok {
			a.cwds = paths
		}
	}
	archives := append(p.vals["f"], p.vals["file"]...)
	for _, f := range archives {
		if l, ok := staticWord(f); ok && isScpLike(l.s) && !p.has("force-local") {
			a.failf("refused: tar -f %s is a remote archive, which tar reaches by running a program", l.s)
			return
		}
	}
	switch {
	case p.has("c", "create", "r", "append", "u", "update"):
		a.writeArgs(prog, archives, c)
		if p.has("no-recursion") && !p.has("recursion") {
			a.readArgs(prog, p.ops, c)
		} else {
			a.treeArgs(prog, p.ops, c, TreeFilter{}, p.has("h", "dereference")) // its --exclude is not modelled
		}
	case p.has("x", "extract", "get"):
		a.readArgs(prog, archives, c)
		if !p.has("O", "to-stdout") {
			a.writeArg(prog+" -x", dotWord, c) // members may land anywhere below
		}
	default:
		a.readArgs(prog, archives, c)
	}
}

// make runs the recipes of the makefiles it reads (granting make grants
// them): -C moves where it runs, -f and -I files are read, --eval runs
// make code given on the line, and variable overrides on the command line
// (CC=…) change what the recipes run, so both are refused.
func (a *analyzer) make(prog string, args []*syntax.Word, c ctx) {
	p := optWalk{prog: prog, opts: makeOpts,
		short: "bBdeikSnpqrRstvwLh", argShort: "CfIoWE", optShort: "jlO"}
	if !p.walk(a, args) {
		return
	}
	if p.has("E", "eval") {
		a.failf("the gate cannot tell what this runs: make --eval runs make code given on the command line")
		return
	}
	for _, d := range append(p.vals["C"], p.vals["directory"]...) {
		a.readArg(prog+" -C", d, c)
		if paths, ok := a.argPaths(d, c); ok {
			saved := a.cwds
			defer func() { a.cwds = saved }()
			a.cwds = paths
		}
	}
	for _, k := range []string{"f", "file", "makefile", "I", "include-dir"} {
		a.readArgs(prog, p.vals[k], c)
	}
	for _, w := range p.ops {
		l, ok := staticWord(w)
		if !ok || strings.Contains(l.s, "=") {
			a.failf("the gate cannot tell what this runs: make %s overrides a variable the recipes may run", wordText(w))
			return
		}
	}
}

// awkOpts are awk's options (see optWalk), made once.
var awkOpts = map[string]int{"F": 1, "field-separator": 1, "v": 1, "assign": 1,
	"f": 1, "file": 1, "e": 1, "source": 1, "i": 1, "include": 1, "l": 1, "load": 1, "E": 1, "exec": 1,
	"b": 0, "characters-as-bytes": 0, "c": 0, "traditional": 0, "P": 0, "posix": 0, "r": 0,
	"re-interval": 0, "S": 0, "sandbox": 0, "N": 0, "use-lc-numeric": 0, "O": 0, "optimize": 0,
	"s": 0, "no-optimize": 0, "t": 0, "lint-old": 0, "L": 2, "lint": 2, "version": 0, "V": 0,
	"help": 0, "h": 0, "n": 0, "non-decimal-data": 0, "M": 0, "bignum": 0, "W": 1}

// tarOpts are tar's options (see optWalk), made once.
var tarOpts = map[string]int{"f": 1, "file": 1, "C": 1, "directory": 1, "c": 0, "create": 0,
	"x": 0, "extract": 0, "get": 0, "t": 0, "list": 0, "r": 0, "append": 0, "u": 0, "update": 0,
	"z": 0, "gzip": 0, "j": 0, "bzip2": 0, "J": 0, "xz": 0, "zstd": 0, "a": 0, "auto-compress": 0,
	"v": 0, "verbose": 0, "p": 0, "preserve-permissions": 0, "k": 0, "keep-old-files": 0,
	"exclude": 1, "X": 1, "exclude-from": 1, "T": 1, "files-from": 1, "strip-components": 1,
	"transform": 1, "xform": 1, "owner": 1, "group": 1, "mode": 1, "mtime": 1, "sort": 1, "format": 1,
	"H": 1, "numeric-owner": 0, "no-same-owner": 0, "overwrite": 0, "O": 0, "to-stdout": 0, "w": 0,
	"interactive": 0, "force-local": 0, "h": 0, "dereference": 0, "exclude-vcs": 0, "wildcards": 0,
	"anchored": 0, "null": 0, "totals": 0, "show-transformed-names": 0, "warning": 1, "help": 0,
	"version": 0, "s": 0, "same-order": 0, "m": 0, "touch": 0, "W": 0, "verify": 0, "S": 0, "sparse": 0,
	"one-file-system": 0, "b": 1, "blocking-factor": 1, "no-recursion": 0, "recursion": 0}

// makeOpts are make's options (see optWalk), made once.
var makeOpts = map[string]int{"C": 1, "directory": 1, "f": 1, "file": 1, "makefile": 1,
	"I": 1, "include-dir": 1, "j": 2, "jobs": 2, "l": 2, "load-average": 2, "o": 1, "old-file": 1,
	"assume-old": 1, "W": 1, "what-if": 1, "new-file": 1, "assume-new": 1, "O": 2, "output-sync": 2,
	"debug": 2, "d": 0, "E": 1, "eval": 1, "b": 0, "B": 0, "always-make": 0, "e": 0, "environment-overrides": 0,
	"i": 0, "ignore-errors": 0, "k": 0, "keep-going": 0, "S": 0, "stop": 0, "n": 0, "just-print": 0,
	"dry-run": 0, "recon": 0, "p": 0, "print-data-base": 0, "q": 0, "question": 0, "r": 0,
	"no-builtin-rules": 0, "R": 0, "no-builtin-variables": 0, "s": 0, "silent": 0, "quiet": 0, "t": 0,
	"touch": 0, "trace": 0, "v": 0, "version": 0, "w": 0, "print-directory": 0, "no-print-directory": 0,
	"warn-undefined-variables": 0, "L": 0, "check-symlink-times": 0, "h": 0, "help": 0, "shuffle": 2}
