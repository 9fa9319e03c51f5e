package resources

import (
	"mvdan.cc/sh/v3/syntax"
)

// grepOpts are the options of GNU grep that take an argument (1) or an
// optional attached one (2); grep runs nothing, so other options are flags.
var grepOpts = map[string]int{
	"e": 1, "regexp": 1, "f": 1, "file": 1, "m": 1, "max-count": 1, "A": 1, "after-context": 1, "B": 1,
	"before-context": 1, "C": 1, "context": 2, "d": 1, "directories": 1, "D": 1, "devices": 1, "include": 1,
	"exclude": 1, "exclude-from": 1, "exclude-dir": 1, "label": 1, "color": 2, "colour": 2,
	"binary-files": 1, "group-separator": 1,
}

// grep models grep, egrep, fgrep and rgrep: the pattern files (-f) and
// --exclude-from files are read, the file operands are read, and a
// recursive grep reads every file below its directory operands (the
// working directory without one), less what --exclude, --include and
// --exclude-dir provably leave out.
func (a *analyzer) grep(prog string, args []*syntax.Word, c ctx) {
	p := optWalk{prog: prog, opts: grepOpts, argShort: "efmABCdD", lax: true, ordered: true}
	if !p.walk(a, args) {
		return
	}
	for _, k := range []string{"f", "file", "exclude-from"} {
		a.readArgs(prog, p.vals[k], c)
	}
	ops := p.ops
	if !p.has("e", "regexp", "f", "file") {
		if len(ops) == 0 {
			return
		}
		ops = ops[1:] // the pattern
	}
	recursive := prog == "rgrep" || p.has("r", "R", "recursive", "dereference-recursive")
	for _, d := range append(p.vals["d"], p.vals["directories"]...) {
		if l, ok := staticWord(d); !ok || l.s == "recurse" {
			recursive = true
		}
	}
	if !recursive {
		a.readArgs(prog, ops, c)
		return
	}
	if len(ops) == 0 {
		ops = []*syntax.Word{dotWord}
	}
	// A recursive grep reads every file below each directory operand.
	a.treeArgs(prog, ops, c, a.grepFilter(&p), p.has("R", "dereference-recursive"))
}

// rgOpts are ripgrep's options with an argument (1); ripgrep can run
// preprocessors, so an option not listed is refused.
var rgOpts = map[string]int{
	"e": 1, "regexp": 1, "f": 1, "file": 1, "g": 1, "glob": 1, "iglob": 1, "t": 1, "type": 1, "T": 1,
	"type-not": 1, "m": 1, "max-count": 1, "A": 1, "after-context": 1, "B": 1, "before-context": 1,
	"C": 1, "context": 1, "j": 1, "threads": 1, "M": 1, "max-columns": 1, "E": 1, "encoding": 1,
	"r": 1, "replace": 1, "d": 1, "max-depth": 1, "maxdepth": 1, "sort": 1, "sortr": 1, "color": 1,
	"colors": 1, "max-filesize": 1, "path-separator": 1, "context-separator": 1, "field-match-separator": 1,
	"field-context-separator": 1, "engine": 1, "type-add": 1, "type-clear": 1, "ignore-file": 1,
	"i": 0, "ignore-case": 0, "S": 0, "smart-case": 0, "s": 0, "case-sensitive": 0, "w": 0, "word-regexp": 0,
	"x": 0, "line-regexp": 0, "v": 0, "invert-match": 0, "F": 0, "fixed-strings": 0, "n": 0, "line-number": 0,
	"N": 0, "no-line-number": 0, "l": 0, "files-with-matches": 0, "files-without-match": 0, "c": 0, "count": 0,
	"count-matches": 0, "o": 0, "only-matching": 0, "H": 0, "with-filename": 0, "I": 0, "no-filename": 0,
	"p": 0, "pretty": 0, "q": 0, "quiet": 0, "u": 0, "unrestricted": 0, "hidden": 0, "no-ignore": 0,
	"L": 0, "follow": 0, "z": 0, "search-zip": 0, "U": 0, "multiline": 0, "P": 0, "pcre2": 0, "a": 0,
	"text": 0, "json": 0, "vimgrep": 0, "heading": 0, "no-heading": 0, "column": 0, "byte-offset": 0,
	"b": 0, "trim": 0, "stats": 0, "files": 0, "type-list": 0, "no-messages": 0, "null": 0, "0": 0,
	"no-config": 0, "version": 0, "help": 0, "h": 0, "V": 0, "glob-case-insensitive": 0, "one-file-system": 0,
	"no-ignore-vcs": 0, "no-ignore-parent": 0, "no-ignore-dot": 0, "no-ignore-global": 0, "sort-files": 0,
	"crlf": 0, "passthru": 0, "mmap": 0, "no-mmap": 0, "debug": 0, "trace": 0,
}

// rg models ripgrep: --pre (and --pre-glob) run a program on every file,
// which the gate cannot see; the paths searched (default the working
// directory), pattern files and ignore files are read.
func (a *analyzer) rg(prog string, args []*syntax.Word, c ctx) {
	for _, w := range args {
		if l, ok := staticWord(w); ok && (l.s == "--pre" || hasPrefixAny(l.s, "--pre=", "--pre-glob")) {
			a.failf("the gate cannot tell what this runs: rg --pre runs a program on every file it searches")
			return
		}
	}
	p := optWalk{prog: prog, opts: rgOpts, short: "iSswxvFnNlcoHIpquLzUPab0hV",
		argShort: "efgtTmABCjMErd", ordered: true}
	if !p.walk(a, args) {
		return
	}
	for _, k := range []string{"f", "file", "ignore-file"} {
		a.readArgs(prog, p.vals[k], c)
	}
	ops := p.ops
	if !p.has("e", "regexp", "f", "file", "files", "type-list") && len(ops) > 0 {
		ops = ops[1:]
	}
	if len(ops) == 0 {
		ops = []*syntax.Word{dotWord}
	}
	if p.has("files", "type-list") {
		a.readArgs(prog, ops, c) // names only, no file is read
		return
	}
	// ripgrep reads every file below each directory it searches.
	a.treeArgs(prog, ops, c, a.rgFilter(&p), p.has("L", "follow"))
}

func hasPrefixAny(s string, prefixes ...string) bool {
	for _, p := range prefixes {
		if len(s) >= len(p) && s[:len(p)] == p {
			return true
		}
	}
	return false
}
