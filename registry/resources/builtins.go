package resources

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// program resolves a command word to the basename of the program it runs.
func (a *analyzer) program(w *syntax.Word, c ctx) (string, bool) {
	l, ok := staticWord(w)
	switch {
	case !ok:
		a.failf("cannot determine the program run by %s", wordText(w))
	case l.hasGlob() || l.hasBraces():
		a.failf("cannot determine the program run by %s: it is a pattern", wordText(w))
	case l.s == "":
		a.failf("cannot determine the program run by %s: empty command name", wordText(w))
	case c.subst != "" && strings.Contains(l.s, c.subst):
		a.failf("cannot determine the program run by %s: its name is filled in at run time", wordText(w))
	default:
		return path.Base(l.s), true
	}
	return "", false
}

// run analyses the program named by args[0] and whatever it runs in turn.
func (a *analyzer) run(args []*syntax.Word, c ctx) {
	if a.err != nil || len(args) == 0 {
		return
	}
	name, ok := a.program(args[0], c)
	if !ok {
		return
	}
	a.addExe(name)
	rest := args[1:]
	switch {
	case name == "cd" || name == "pushd":
		a.cd(rest)
	case name == "popd":
		a.cwdUnknown = true
		a.lastCd = nil
	case name == "source" || name == ".":
		a.cwdUnknown = true // the sourced file may cd anywhere
		if len(rest) > 0 {
			a.scriptOperand(rest[0], c, true)
		}
	case name == "eval":
		a.eval(rest, c)
	case name == "hash" || name == "enable":
		// "hash -p /bin/rm ls" makes ls run rm; "enable -f lib.so x" loads
		// a builtin from a shared object.
		letter := map[string]string{"hash": "p", "enable": "f"}[name]
		for _, w := range rest {
			l, ok := staticWord(w)
			if !ok || (strings.HasPrefix(l.s, "-") && strings.Contains(l.s, letter)) {
				a.failf("cannot vouch for the command: %s %s can make a name run another program", name, wordsText(rest))
				return
			}
		}
	case name == "trap":
		a.trap(rest, c)
	case name == "alias":
		a.alias(rest, c)
	case name == "find":
		a.find(rest, c)
	case name == "xargs":
		a.xargs(rest, c)
	case name == "busybox" || name == "toybox":
		if len(rest) > 0 {
			if l, ok := staticWord(rest[0]); ok && strings.HasPrefix(l.s, "-") {
				return // --list, --help, --install: no applet runs
			}
			a.run(rest, c)
		}
	case shellFamily(name) != "":
		a.shell(name, rest, c)
	case interpreterOf(name) != nil:
		a.interpreter(name, rest, c)
	default:
		if spec, ok := wrappers[name]; ok {
			a.wrapper(name, spec, rest, c)
		}
	}
}

// eval parses its arguments, joined by spaces, as a script.
func (a *analyzer) eval(args []*syntax.Word, c ctx) {
	parts := make([]string, 0, len(args))
	for _, w := range args {
		l, ok := staticWord(w)
		if !ok || l.hasGlob() || l.hasBraces() {
			a.failf("cannot determine the script run by eval %s", wordsText(args))
			return
		}
		parts = append(parts, l.s)
	}
	a.nested(strings.Join(parts, " "), c)
}

// trap parses the action of "trap action signal…".
func (a *analyzer) trap(args []*syntax.Word, c ctx) {
	i := 0
	for i < len(args) {
		l, ok := staticWord(args[i])
		if !ok {
			break
		}
		if l.s == "--" {
			i++
			break
		}
		if l.s == "-" || !strings.HasPrefix(l.s, "-") {
			break
		}
		i++ // -l, -p, -P
	}
	if len(args)-i < 2 {
		return // "trap", "trap -p", "trap SIG": nothing is installed
	}
	l, ok := staticWord(args[i])
	if !ok {
		a.failf("cannot determine the command installed by trap %s", wordsText(args))
		return
	}
	if l.s == "-" || l.s == "" || isDigits(l.s) {
		return // reset or ignore
	}
	a.later++ // the action runs when the signal arrives, wherever the shell is then
	a.nested(l.s, c)
	a.later--
}

// alias parses the value of every "alias name=value": a later line may run it.
func (a *analyzer) alias(args []*syntax.Word, c ctx) {
	for _, w := range args {
		l, ok := staticWord(w)
		if !ok {
			a.failf("cannot determine the alias defined by alias %s", wordText(w))
			return
		}
		if _, value, found := strings.Cut(l.s, "="); found {
			a.later++
			a.nested(value, c)
			a.later--
		}
	}
}
