package resources

import "mvdan.cc/sh/v3/syntax"

// fileWriters modify the files their operands name; fileReaders read them.
var (
	fileWriters = map[string]bool{"rm": true, "rmdir": true, "unlink": true, "mv": true, "cp": true, "touch": true,
		"mkdir": true, "chmod": true, "chown": true, "chgrp": true, "ln": true, "tee": true, "truncate": true,
		"install": true, "shred": true}
	fileReaders = map[string]bool{"cat": true, "head": true, "tail": true, "less": true, "more": true, "nl": true,
		"od": true, "xxd": true, "base64": true, "strings": true, "tac": true}
)

// classify sorts a program's operands into paths written and read, for
// the programs whose operands are known to be files (see fileWriters).
func (a *analyzer) classify(prog string, ops []string) {
	write := func(list []string) {
		for _, o := range list {
			a.add(&a.use.WriteOperands, "wo:", o)
		}
	}
	read := func(list []string) {
		for _, o := range list {
			if o != "-" {
				a.add(&a.use.ReadOperands, "ro:", o)
			}
		}
	}
	switch {
	case len(ops) == 0:
	case prog == "chmod" || prog == "chown" || prog == "chgrp":
		write(ops[1:]) // the first operand is the mode or owner
	case prog == "cp" || prog == "install":
		read(ops[:len(ops)-1])
		write(ops[len(ops)-1:])
	case prog == "ln":
		write(ops[len(ops)-1:]) // the link; its target is not touched
	case fileWriters[prog]:
		write(ops)
	case fileReaders[prog]:
		read(ops)
	}
}

// find records the programs of -exec, -execdir, -ok and -okdir.
func (a *analyzer) find(args []*syntax.Word, c ctx) {
	for _, w := range args {
		l, ok := staticWord(w)
		if !ok || l.hasGlob() || l.hasBraces() {
			// An unquoted expansion or pattern could produce -exec.
			a.failf("cannot determine what find runs: %s is not a static word", wordText(w))
			return
		}
	}
	for i := 0; i < len(args); i++ {
		l, _ := staticWord(args[i])
		switch l.s {
		case "-exec", "-execdir", "-ok", "-okdir":
		default:
			continue
		}
		start := i + 1
		end := start
		for end < len(args) {
			e, _ := staticWord(args[end])
			if e.s == ";" {
				break
			}
			if e.s == "+" && end > start {
				if p, _ := staticWord(args[end-1]); p.s == "{}" {
					break
				}
			}
			end++
		}
		if start >= len(args) || start == end {
			a.failf("cannot determine the program run by find %s", l.s)
			return
		}
		inner := c
		inner.subst = "{}"
		a.run(args[start:end], inner)
		i = end
	}
}

// xargs records the program xargs runs (echo when none is named).
func (a *analyzer) xargs(args []*syntax.Word, c ctx) {
	opts, err := parseOpts("xargs", wrappers["xargs"], args)
	if err != nil {
		a.failf("%v", err)
		return
	}
	inner := c
	inner.xargs = true
	inner.stdin, inner.hdoc = stdinFile, nil // GNU xargs gives the command /dev/null
	if opts.has("o", "open-tty") {
		inner.stdin = stdinInherited
	}
	for _, o := range []string{"I", "i", "replace", "J"} {
		v, ok := opts.seen[o]
		if !ok {
			continue
		}
		if opts.dynamic[o] {
			a.failf("cannot determine the program run by xargs: the replacement string of -%s is not static", o)
			return
		}
		if v == "" {
			v = "{}"
		}
		inner.subst = v
	}
	prog := args[opts.prog:]
	if len(prog) == 0 {
		a.addExe("echo")
		return
	}
	a.run(prog, inner)
}
