package resources

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// transparentWrappers run the program named in their arguments and nothing
// else: the gate judges the wrapped program, not them (timeout 60 npm test
// needs npm, not timeout).
var transparentWrappers = map[string]bool{
	"time": true, "timeout": true, "nice": true, "nohup": true, "stdbuf": true,
	"command": true, "builtin": true, "exec": true,
}

// inertBuiltins run no program and touch no file by themselves; they are not
// programs a lease names (set -e; npm test needs npm only). Those with
// something to check are handled in builtin.
var inertBuiltins = map[string]bool{
	":": true, "true": true, "false": true, "shift": true, "exit": true, "return": true, "break": true,
	"continue": true, "pwd": true, "dirs": true, "times": true, "type": true, "unalias": true,
	"umask": true, "caller": true, "help": true, "jobs": true, "disown": true,
}

// builtin handles the shell builtins that run no program of their own. It
// reports whether name was one of them.
func (a *analyzer) builtin(name string, args []*syntax.Word, c ctx) bool {
	switch name {
	case "cd", "pushd":
		a.cd(args)
	case "popd":
		a.cwdUnknown = true
		a.lastCd = nil
	case "test", "[":
		a.testArgs(args)
	case "set":
		a.setArgs(args)
	case "hash":
		a.refuseOption(name, args, "p", "it makes a name run another program")
	case "read":
		a.nameArgs(name, args, "dinNptu", "a")
	case "getopts":
		if len(args) >= 2 {
			a.nameWord(name, args[1])
		}
	case "mapfile", "readarray":
		a.refuseOption(name, args, "C", "its callback runs code")
		a.nameArgs(name, args, "dnOsuC", "")
	case "unset":
		a.nameArgs(name, args, "", "")
	case "export", "local", "declare", "typeset", "readonly":
		a.declWords(name, args)
	case "trap":
		a.trap(args, c)
	case "wait":
		a.waitArgs(args)
	case "alias":
		a.alias(args)
	default:
		return inertBuiltins[name]
	}
	return true
}

// refuseOption fails when a short option in letters appears among args
// (or an argument is not static, since it might be one).
func (a *analyzer) refuseOption(name string, args []*syntax.Word, letters, why string) {
	for _, w := range args {
		l, ok := staticWord(w)
		if !ok {
			a.failf("cannot vouch for %s %s: an argument is not static and %s -%s %s", name, wordsText(args), name, letters, why)
			return
		}
		if l.s == "--" {
			return
		}
		if strings.HasPrefix(l.s, "-") && strings.ContainsAny(l.s[1:], letters) {
			a.failf("refused: %s -%s %s", name, letters, why)
			return
		}
	}
}

// setArgs refuses the options of set that change how the rest of the line
// is read: -k (assignments anywhere on a command line), -H (history
// expansion) and posix mode.
func (a *analyzer) setArgs(args []*syntax.Word) {
	for i := 0; i < len(args); i++ {
		l, ok := staticWord(args[i])
		if !ok {
			return // positional parameters: "$@" is dynamic anyway
		}
		if l.s == "--" || l.s == "-" || !(strings.HasPrefix(l.s, "-") || strings.HasPrefix(l.s, "+")) {
			return
		}
		if strings.Contains(l.s[1:], "k") {
			a.failf("refused: set %s makes assignments anywhere on a command line, which the gate does not model", l.s)
			return
		}
		if l.s[0] == '-' && strings.Contains(l.s[1:], "H") {
			// History expansion: on the lines that follow, !$:s/x/y/ is
			// a word of an earlier line, edited.
			a.failf("refused: set %s turns on history expansion, which rewrites the lines after it", l.s)
			return
		}
		// Each o of the cluster takes the next word as a mode's name
		// (set -oo pipefail keyword), and the options go on after them
		// (set -o pipefail -k).
		for n := strings.Count(l.s[1:], "o"); n > 0 && i+1 < len(args); n-- {
			i++
			if v, ok := staticWord(args[i]); !ok || v.s == "posix" || v.s == "keyword" || (l.s[0] == '-' && v.s == "histexpand") {
				a.failf("refused: set %s %s changes how bash reads the rest of the line", l.s, wordText(args[i]))
				return
			}
		}
	}
}

// nameArgs checks the variable names a builtin assigns: every operand (and
// the value of an option in nameOpts) must be a static name that renames
// nothing; valueOpts take a value that is not a name.
func (a *analyzer) nameArgs(name string, args []*syntax.Word, valueOpts, nameOpts string) {
	options := true
	for i := 0; i < len(args); i++ {
		l, ok := staticWord(args[i])
		if options && ok && l.s == "--" {
			options = false
			continue
		}
		if options && ok && len(l.s) > 1 && l.s[0] == '-' {
			last := l.s[len(l.s)-1]
			switch {
			case strings.IndexByte(nameOpts, last) >= 0 && i+1 < len(args):
				i++
				a.nameWord(name, args[i])
			case strings.IndexByte(valueOpts, last) >= 0:
				i++
			}
			continue
		}
		options = false
		a.nameWord(name, args[i])
		if a.err != nil {
			return
		}
	}
}

// nameWord checks one variable name given to a builtin as an argument:
// bash evaluates a subscript in it (read 'a[$(id)]' runs id), so it must
// be a static identifier, optionally with a numeric subscript.
func (a *analyzer) nameWord(prog string, w *syntax.Word) {
	l, ok := staticWord(w)
	if !ok {
		a.failf("the gate cannot tell what this runs: %s %s names a variable that is not static, and bash evaluates subscripts in it", prog, wordText(w))
		return
	}
	base, sub, hasSub := strings.Cut(l.s, "[")
	if !validName(base) || (hasSub && !(strings.HasSuffix(sub, "]") && isDigits(strings.TrimSuffix(sub, "]")))) {
		a.failf("the gate cannot tell what this runs: %s %q is not a plain variable name", prog, l.s)
		return
	}
	if prog == "test -v" || prog == "[[ -v ]]" {
		return // asks whether it is set: assigns nothing
	}
	a.checkAssignName(base)
	a.forgetNumber(base)
}

// declWords checks the words of export, declare, local, typeset and
// readonly when they arrive as ordinary arguments (builtin export X=1).
func (a *analyzer) declWords(name string, args []*syntax.Word) {
	for _, w := range args {
		l, ok := staticWord(w)
		if !ok {
			a.failf("the gate cannot tell what this runs: %s %s is not static", name, wordText(w))
			return
		}
		if strings.HasPrefix(l.s, "-") || strings.HasPrefix(l.s, "+") {
			a.declFlags(name, l.s)
			continue
		}
		n, _, _ := strings.Cut(l.s, "=")
		n, _, _ = strings.Cut(n, "+")
		a.nameWord(name, &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: n}}})
	}
}

// declFlags refuses the attributes whose assignments evaluate or alias:
// -n (a name reference renames a variable, BASH_CMDS included) and -i
// (every later assignment is evaluated as arithmetic).
func (a *analyzer) declFlags(name, flags string) {
	if strings.HasPrefix(flags, "-") && strings.ContainsAny(flags[1:], "ni") {
		a.failf("the gate cannot tell what this runs: %s %s makes later assignments evaluate or rename variables", name, flags)
	}
}

// testArgs checks test and [: -v evaluates the subscript of the variable
// name it is given.
func (a *analyzer) testArgs(args []*syntax.Word) {
	for i, w := range args {
		if l, ok := staticWord(w); ok && l.s == "-v" && i+1 < len(args) {
			a.nameWord("test -v", args[i+1])
		}
	}
}

// alias refuses alias definitions: an alias renames a program for the
// lines that follow (and, with expand_aliases, for this one). Listing
// aliases is harmless.
func (a *analyzer) alias(args []*syntax.Word) {
	for _, w := range args {
		l, ok := staticWord(w)
		if !ok || strings.Contains(l.s, "=") {
			a.failf("refused: alias %s defines an alias, which renames a program", wordText(w))
			return
		}
	}
}
