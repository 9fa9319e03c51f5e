package resources

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// ddKeys are dd's operands (key=value): if= is read, of= is written, the
// rest name no file.
var ddKeys = map[string]bool{"if": true, "of": true, "bs": true, "cbs": true, "conv": true, "count": true,
	"ibs": true, "iflag": true, "obs": true, "oflag": true, "seek": true, "skip": true, "status": true,
	"iseek": true, "oseek": true}

// dd models dd: the file of if= is read and the file of of= written (each
// as bash passes it: a word that could split or expand to another operand
// is refused). An operand dd does not know is refused: the gate does not
// guess what it opens.
func (a *analyzer) dd(prog string, args []*syntax.Word, c ctx) {
	for _, w := range args {
		if !singleField(w) {
			a.failf("cannot tell which files %s opens: %s may expand to other operands", prog, wordText(w))
			return
		}
		key, val, ok := keyValueWord(w)
		switch {
		case !ok:
			a.failf("cannot tell which files %s opens: %s is not known before it runs", prog, wordText(w))
			return
		case val == nil && (key == "--help" || key == "--version"):
		case val == nil || !ddKeys[key]:
			a.failf("refused: %s operand %s is not one the gate knows", prog, shorten(key))
			return
		case key == "if":
			a.readArg(prog, val, c)
		case key == "of":
			a.writeArg(prog, val, c)
		}
	}
}

// keyValueWord splits an operand word key=value into the key, as the
// program sees it, and the value as a word of its own (nil without "=").
// ok is false when the key itself is not known before the line runs.
func keyValueWord(w *syntax.Word) (key string, val *syntax.Word, ok bool) {
	if l, static := staticWord(w); static {
		k, v, has := strings.Cut(l.s, "=")
		if !has {
			return l.s, nil, true
		}
		return k, valueWord(v), true
	}
	k, v, has := strings.Cut(leadingLit(w), "=")
	if !has || k == "" || strings.ContainsAny(k, `\'"`) {
		return "", nil, false
	}
	parts := w.Parts[1:]
	if v != "" {
		parts = append([]syntax.WordPart{&syntax.Lit{Value: v}}, parts...)
	}
	return k, &syntax.Word{Parts: parts}, true
}

// splitOpts are GNU split's options (see optWalk); the digits are the
// obsolete -NUM (lines per file).
var splitOpts = map[string]int{"a": 1, "suffix-length": 1, "additional-suffix": 1, "b": 1, "bytes": 1,
	"C": 1, "line-bytes": 1, "d": 0, "numeric-suffixes": 2, "x": 0, "hex-suffixes": 2, "e": 0,
	"elide-empty-files": 0, "filter": 1, "l": 1, "lines": 1, "n": 1, "number": 1, "t": 1, "separator": 1,
	"u": 0, "unbuffered": 0, "verbose": 0, "help": 0, "version": 0}

// split models split [FILE [PREFIX]]: FILE is read, and split creates
// PREFIX followed by a generated suffix (aa, ab, …; digits with -d, hex
// digits with -x; as long as -a says, longer once those run out) and any
// --additional-suffix. Those names are not known before it runs, so the
// outputs are one write of a pattern, PREFIX*SUFFIX (ShellUse.WritePatterns):
// the gate checks it against every name it can stand for, and each existing
// file it matches (a planted symbolic link among them) is a write too.
// --filter runs a program and is refused.
func (a *analyzer) split(prog string, args []*syntax.Word, c ctx) {
	p := optWalk{prog: prog, opts: splitOpts, short: "dxeu0123456789", argShort: "abCltn"}
	if !p.walk(a, args) {
		return
	}
	if p.has("filter") {
		a.failf("the gate cannot tell what this runs: %s --filter runs a program", prog)
		return
	}
	suffix := ""
	for _, w := range p.vals["additional-suffix"] {
		l, ok := staticWord(w)
		if !ok || strings.ContainsAny(l.s, "/*?[]{}\\") {
			a.failf("cannot tell which files %s writes: --additional-suffix %s", prog, wordText(w))
			return
		}
		suffix = l.s
	}
	ops := p.ops
	for _, w := range ops {
		if !singleField(w) {
			a.failf("cannot tell which files %s opens: %s may expand to several words", prog, wordText(w))
			return
		}
	}
	switch {
	case len(ops) > 2:
		a.failf("cannot tell which files %s opens: more operands than FILE and PREFIX", prog)
		return
	case len(ops) == 0:
	default:
		a.readArg(prog, ops[0], c)
	}
	prefix := &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: "x"}}}
	if len(ops) == 2 {
		prefix = ops[1]
	}
	a.writePattern(prog, prefix, suffix, c)
}

// writePattern records that prog writes files named by the word w,
// then any suffix, then suffix.
func (a *analyzer) writePattern(prog string, w *syntax.Word, suffix string, c ctx) {
	parts := append(append([]syntax.WordPart{}, w.Parts...), &syntax.Lit{Value: "*"})
	if suffix != "" {
		parts = append(parts, &syntax.SglQuoted{Value: suffix})
	}
	paths, ok := a.argPaths(&syntax.Word{Parts: parts}, c)
	if !ok {
		a.failf("cannot tell which files %s writes: %s is not known before it runs", prog, wordText(w))
		return
	}
	for _, p := range paths {
		// The pattern as written stands for every name; each existing
		// match is a file the program opens for writing.
		if strings.HasSuffix(p, "*"+suffix) {
			a.add(&a.use.WritePatterns, "wp:", p)
		} else {
			a.add(&a.use.WriteOperands, "wo:", p)
		}
	}
}
