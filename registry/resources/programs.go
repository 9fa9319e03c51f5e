package resources

import "mvdan.cc/sh/v3/syntax"

// xargs records the program xargs runs (echo when none is named).
func (a *analyzer) xargs(args []*syntax.Word, c ctx) {
	opts, err := parseOpts("xargs", *wrappers["xargs"], args)
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
	for _, o := range []string{"a", "arg-file"} {
		if v, ok := opts.seen[o]; ok {
			if opts.dynamic[o] {
				a.failf("cannot tell which file xargs reads: the value of -%s is not static", o)
				return
			}
			a.readArg("xargs -a", valueWord(v), c)
		}
	}
	prog := args[opts.prog:]
	if len(prog) == 0 {
		a.addExe("echo")
		return
	}
	a.run(prog, inner)
}
