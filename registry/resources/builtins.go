package resources

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// program resolves a command word to the program it runs (see
// programName).
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
	case l.s[0] == '=' && !l.quoted[0]:
		a.failf("refused: zsh expands %s to the path of another program", wordText(w))
	case strings.HasPrefix(l.s, "~") && !l.quoted[0] && !strings.HasPrefix(l.s, "~/"):
		a.failf("cannot determine the program run by %s: it depends on run-time state", wordText(w))
	default:
		return programName(l.s), true
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
	rest := args[1:]
	if strings.Contains(name, "/") {
		a.addExe(name) // a file the agent may have written: no model applies
		return
	}
	if name == "enable" {
		a.refuseOption(name, rest, "f", "loads a builtin from a shared object")
	}
	if a.builtin(name, rest, c) {
		return
	}
	spec, isWrapper := wrappers[name]
	if isWrapper && transparentWrappers[name] {
		a.wrapper(name, *spec, rest, c)
		return
	}
	a.addExe(name)
	switch {
	case name == "source" || name == ".":
		a.cwdUnknown = true // the sourced file may cd anywhere
		if len(rest) > 0 {
			a.scriptOperand(rest[0], c, true)
		}
	case name == "eval":
		a.eval(rest, c)
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
		if isWrapper {
			a.wrapper(name, *spec, rest, c)
			return
		}
		a.model(name, rest, c)
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
