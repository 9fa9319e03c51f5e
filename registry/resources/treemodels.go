package resources

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// hasFlag reports whether args give one of the short option letters
// (alone or in a cluster) or one of the long options, before a "--".
// A letter inside another option's attached value counts too: that only
// errs towards reading more.
func hasFlag(args []*syntax.Word, letters string, longs ...string) bool {
	for _, w := range args {
		l, ok := staticWord(w)
		if !ok || len(l.s) < 2 || l.s[0] != '-' {
			continue
		}
		if l.s == "--" {
			return false
		}
		if strings.HasPrefix(l.s, "--") {
			name, _, _ := strings.Cut(l.s[2:], "=")
			for _, n := range longs {
				if name == n {
					return true
				}
			}
			continue
		}
		if strings.ContainsAny(l.s[1:], letters) {
			return true
		}
	}
	return false
}

// agAckOpts are the options of the silver searcher (ag) and ack that take
// an argument; others are flags. Both read every file below the
// directories they search (the working directory without one).
var agAckOpts = map[string]int{
	"A": 1, "B": 1, "C": 1, "G": 1, "g": 1, "m": 1, "p": 1, "W": 1, "after": 1, "before": 1,
	"context": 2, "file-search-regex": 1, "max-count": 1, "path-to-ignore": 1, "width": 1, "ignore": 1,
	"ignore-dir": 1, "depth": 1, "pager": 1, "workers": 1, "after-context": 1, "before-context": 1,
	"type": 1, "ignore-file": 1, "match": 1, "output": 1, "type-set": 1, "type-add": 1, "type-del": 1,
	"ignore-directory": 1, "noignore-directory": 1, "color-match": 1, "color-filename": 1,
	"color-lineno": 1, "color-line-number": 1, "color-path": 1,
}

// agAck models ag and ack: the first operand is the pattern (unless
// --match gives it), the others are searched recursively.
func (a *analyzer) agAck(prog string, args []*syntax.Word, c ctx) {
	p := optWalk{prog: prog, opts: agAckOpts, argShort: "ABCGgmpW", lax: true}
	if !p.walk(a, args) {
		return
	}
	ops := p.ops
	listOnly := prog != "ag" && p.has("f") // ack -f lists the files it would search
	if !p.has("match", "g") && !listOnly && len(ops) > 0 {
		ops = ops[1:]
	}
	if len(ops) == 0 {
		ops = []*syntax.Word{dotWord}
	}
	follow := p.has("follow") || prog == "ag" && p.has("f")
	a.treeArgs(prog, ops, c, TreeFilter{}, follow)
}

// zip models zip: the first operand is the archive written, the others
// are read, and with -r (--recurse-paths) every file below them. Its -x
// and -i lists run to the next option, so their words are taken for
// files read as well (only ever more reads).
func (a *analyzer) zip(prog string, args []*syntax.Word, c ctx) {
	ops, _, _ := operandWords(args, "bnPtO", nil)
	if len(ops) == 0 {
		return
	}
	a.writeArg(prog, ops[0], c)
	if hasFlag(args, "rR", "recurse-paths", "recurse-patterns") {
		a.treeArgs(prog, ops[1:], c, TreeFilter{}, !hasFlag(args, "y", "symlinks"))
		return
	}
	a.readArgs(prog, ops[1:], c)
}

// rsync models rsync's local copies: the last operand is written, the
// others read, and with -r or -a every file below them. An operand
// host:path or a URL names another machine, whose files the gate does
// not see: it is left to the host checks of the lease.
func (a *analyzer) rsync(prog string, args []*syntax.Word, c ctx) {
	ops, _, _ := operandWords(args, "eBfTM", nil)
	if len(ops) == 0 {
		return
	}
	var local []*syntax.Word
	for _, w := range ops {
		if l, ok := staticWord(w); ok && (isScpLike(l.s) || strings.Contains(l.s, "://")) {
			continue
		}
		local = append(local, w)
	}
	last := ops[len(ops)-1]
	srcs := local
	if len(local) > 0 && local[len(local)-1] == last {
		srcs = local[:len(local)-1]
		a.writeArg(prog, last, c)
	}
	if hasFlag(args, "ra", "recursive", "archive") {
		a.treeArgs(prog, srcs, c, TreeFilter{}, hasFlag(args, "Lk", "copy-links", "copy-unsafe-links", "copy-dirlinks"))
		return
	}
	a.readArgs(prog, srcs, c)
}
