package resources

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// optSpec describes the command-line options of a program that runs another
// program (a wrapper), so that the wrapped program's position can be found
// exactly. An option the spec does not know is an error: guessing whether it
// takes an argument could make the analysis skip the real program.
type optSpec struct {
	flags    string   // short options without an argument
	args     string   // short options with an argument, attached (-n10) or in the next word
	optional string   // short options with an optional argument that must be attached (xargs -i{})
	long     []string // long options without an argument
	longArgs []string // long options with an argument (--x=v or --x v)
	longOpt  []string // long options with an optional argument that must be attached (--x[=v])
	digits   bool     // -N is an option (nice -10)
	dash     bool     // a lone "-" is an option (env -)
	assigns  bool     // NAME=VALUE words may follow the options (env, sudo)
	operands int      // words between the options and the program (timeout's DURATION)
}

// wrappers maps a program that runs the program named by its arguments to the
// grammar of its options. find, xargs, busybox and the shells have their own
// handlers. Every command word is looked up here, and a map of values as
// large as optSpec is read through the runtime's slow path: it holds
// pointers.
var wrappers = map[string]*optSpec{
	"env": {
		flags: "i0v", args: "uCSa",
		long:     []string{"ignore-environment", "null", "debug", "help", "version", "list-signal-handling"},
		longArgs: []string{"unset", "chdir", "split-string", "argv0"},
		longOpt:  []string{"block-signal", "default-signal", "ignore-signal"},
		dash:     true, assigns: true,
	},
	"command": {flags: "pvV"},
	"exec":    {flags: "cl", args: "a"},
	"builtin": {},
	"nohup":   {long: []string{"help", "version"}},
	"nice": {
		args: "n", longArgs: []string{"adjustment"}, long: []string{"help", "version"}, digits: true,
	},
	"timeout": {
		flags: "fpv", args: "ks",
		long:     []string{"foreground", "preserve-status", "verbose", "help", "version"},
		longArgs: []string{"kill-after", "signal"},
		operands: 1,
	},
	"time": { // the program /usr/bin/time; the bash keyword is a TimeClause
		flags: "apqvV", args: "fo",
		long:     []string{"append", "portability", "quiet", "verbose", "version", "help"},
		longArgs: []string{"format", "output"},
	},
	"sudo": {
		flags: "AbEeHiKklnPSsVv", args: "CDgpRrtTUu", optional: "h",
		long: []string{"askpass", "background", "bell", "edit", "help", "set-home", "login",
			"remove-timestamp", "reset-timestamp", "list", "non-interactive", "preserve-groups",
			"stdin", "shell", "version", "validate"},
		longArgs: []string{"close-from", "chdir", "group", "prompt", "chroot", "role", "type",
			"command-timeout", "other-user", "user"},
		longOpt: []string{"preserve-env", "host"},
		assigns: true,
	},
	"doas": {flags: "Lns", args: "Cu"},
	"stdbuf": {
		args: "ioe", longArgs: []string{"input", "output", "error"}, long: []string{"help", "version"},
	},
	"setsid": {flags: "cfw", long: []string{"ctty", "fork", "wait", "help", "version"}},
	"xargs": {
		flags: "0oprtx", args: "adEILnPsJRS", optional: "eil",
		long: []string{"null", "open-tty", "interactive", "no-run-if-empty", "verbose", "exit",
			"show-limits", "help", "version"},
		longArgs: []string{"arg-file", "delimiter", "max-args", "max-procs", "max-chars",
			"process-slot-var"},
		longOpt: []string{"eof", "replace", "max-lines"},
	},
}

// wrapper handles the programs in the wrappers table.
func (a *analyzer) wrapper(name string, spec optSpec, args []*syntax.Word, c ctx) {
	opts, err := parseOpts(name, spec, args)
	if err != nil {
		a.failf("%v", err)
		return
	}
	for _, w := range args[:opts.prog] {
		if n := assignName(w); n != "" {
			a.checkAssignName(n)
			if a.err != nil {
				return
			}
		}
	}
	prog := args[opts.prog:]
	switch name {
	case "env":
		if opts.has("S", "split-string") {
			a.failf("cannot determine the program run by env -S: it splits a string into a command")
			return
		}
	case "command":
		if opts.has("v", "V") {
			return // command -v only looks the name up
		}
	case "sudo":
		if opts.has("e", "edit") {
			a.failf("cannot analyse sudo -e: it edits files as another user")
			return
		}
		if len(prog) == 0 && opts.has("s", "i", "shell", "login") {
			a.failf("cannot determine the shell run by sudo -s/-i")
			return
		}
	case "doas":
		if len(prog) == 0 && opts.has("s") {
			a.failf("cannot determine the shell run by doas -s")
			return
		}
	}
	if name == "time" {
		for _, o := range []string{"o", "output"} {
			if v, ok := opts.seen[o]; ok {
				a.writeArg("time -o", valueWord(v), c)
			}
		}
	}
	for _, d := range []string{"C", "chdir", "D"} {
		v, ok := opts.seen[d]
		if !ok || (d == "D" && name != "sudo") || (d == "C" && name != "env") {
			continue
		}
		if opts.dynamic[d] {
			a.failf("cannot tell where %s runs the program: the directory is not static", name)
			return
		}
		dir := valueWord(v)
		paths, ok := a.argPaths(dir, c)
		if !ok {
			return
		}
		a.readArg(name+" -C", dir, c)
		saved := a.cwds
		defer func() { a.cwds = saved }()
		a.cwds = paths // the wrapped program runs there
	}
	a.run(prog, c)
}

// parsedOpts is the result of parseOpts: the index of the wrapped program in
// the argument list (len(args) when there is none) and the options seen, by
// their canonical name (a letter or a long name), with their values when
// static. dynamic lists options whose value is not statically known.
type parsedOpts struct {
	prog    int
	seen    map[string]string
	dynamic map[string]bool
}

func (p parsedOpts) has(names ...string) bool {
	for _, n := range names {
		if _, ok := p.seen[n]; ok {
			return true
		}
	}
	return false
}

// parseOpts walks the options of the wrapper named name. Every word it skips
// must be statically known or at least expand to exactly one field; otherwise
// the position of the program is unknown and the result is an error.
func parseOpts(name string, spec optSpec, args []*syntax.Word) (parsedOpts, error) {
	p := &optParser{name: name, spec: spec, args: args,
		res: parsedOpts{seen: map[string]string{}, dynamic: map[string]bool{}}}
	i := 0
options:
	for i < len(args) {
		l, ok := staticWord(args[i])
		if !ok || l.hasGlob() || l.hasBraces() {
			// Could be an option, an assignment or the program: decided below.
			break
		}
		s := l.s
		var err error
		switch {
		case s == "--":
			i++
			break options
		case s == "-" && spec.dash:
			p.res.seen["-"] = ""
			i++
			continue
		case len(s) < 2 || s[0] != '-':
			break options
		case spec.digits && (isDigits(s[1:]) || (strings.HasPrefix(s, "--") && isDigits(s[2:]))):
			p.res.seen["n"] = strings.TrimLeft(s, "-")
		case strings.HasPrefix(s, "--"):
			i, err = p.long(s, i)
		default:
			i, err = p.cluster(s, i)
		}
		if err != nil {
			return p.res, err
		}
		i++
	}
	if spec.assigns {
		for i < len(args) && isAssignWord(args[i]) {
			i++
		}
	}
	for k := 0; k < spec.operands && i < len(args); k++ {
		if !singleField(args[i]) {
			return p.res, fmt.Errorf("cannot determine the program run by %s: %s may expand to several words", name, wordText(args[i]))
		}
		i++
	}
	p.res.prog = i
	return p.res, nil
}

// optParser is the state of one parseOpts.
type optParser struct {
	name string
	spec optSpec
	args []*syntax.Word
	res  parsedOpts
}

// value records the value of option opt given in the word w.
func (p *optParser) value(opt string, w *syntax.Word) error {
	if l, ok := staticWord(w); ok && !l.hasGlob() && !l.hasBraces() {
		p.res.seen[opt] = l.s
		return nil
	}
	if !singleField(w) {
		return fmt.Errorf("cannot determine the program run by %s: the value of option %s (%s) may expand to several words", p.name, opt, wordText(w))
	}
	p.res.seen[opt] = ""
	p.res.dynamic[opt] = true
	return nil
}

// long handles the long option s at args[i] and returns the index of its
// last word.
func (p *optParser) long(s string, i int) (int, error) {
	opt, val, hasVal := strings.Cut(s[2:], "=")
	full, kind, err := matchLong(p.name, p.spec, opt)
	if err != nil {
		return i, err
	}
	switch kind {
	case 0: // no argument
		if hasVal {
			return i, fmt.Errorf("cannot determine the program run by %s: option --%s takes no value", p.name, full)
		}
		p.res.seen[full] = ""
	case 1: // argument
		if hasVal {
			p.res.seen[full] = val
			return i, nil
		}
		i++
		if i >= len(p.args) {
			return i, fmt.Errorf("cannot determine the program run by %s: option --%s needs a value", p.name, full)
		}
		return i, p.value(full, p.args[i])
	case 2: // optional attached argument
		p.res.seen[full] = val
	}
	return i, nil
}

// cluster handles the short options s at args[i] (-i0, -n10, -u root) and
// returns the index of its last word.
func (p *optParser) cluster(s string, i int) (int, error) {
	for j := 1; j < len(s); j++ {
		ch := s[j]
		opt := string(ch)
		switch {
		case strings.IndexByte(p.spec.flags, ch) >= 0:
			p.res.seen[opt] = ""
		case strings.IndexByte(p.spec.args, ch) >= 0:
			if j+1 < len(s) {
				p.res.seen[opt] = s[j+1:]
				return i, nil
			}
			i++
			if i >= len(p.args) {
				return i, fmt.Errorf("cannot determine the program run by %s: option -%s needs a value", p.name, opt)
			}
			return i, p.value(opt, p.args[i])
		case strings.IndexByte(p.spec.optional, ch) >= 0:
			p.res.seen[opt] = s[j+1:]
			return i, nil
		default:
			return i, fmt.Errorf("cannot determine the program run by %s: unknown option -%s", p.name, opt)
		}
	}
	return i, nil
}

// matchLong resolves a long option the way getopt_long does, accepting an
// unambiguous prefix. kind is 0 (no argument), 1 (argument) or 2 (optional
// attached argument).
func matchLong(name string, spec optSpec, opt string) (full string, kind int, err error) {
	type cand struct {
		name string
		kind int
	}
	var exact, prefix []cand
	for k, list := range [][]string{spec.long, spec.longArgs, spec.longOpt} {
		for _, n := range list {
			switch {
			case n == opt:
				exact = append(exact, cand{n, k})
			case opt != "" && strings.HasPrefix(n, opt):
				prefix = append(prefix, cand{n, k})
			}
		}
	}
	if len(exact) == 1 {
		return exact[0].name, exact[0].kind, nil
	}
	if len(prefix) == 1 {
		return prefix[0].name, prefix[0].kind, nil
	}
	if len(prefix) > 1 {
		return "", 0, fmt.Errorf("cannot determine the program run by %s: ambiguous option --%s", name, opt)
	}
	return "", 0, fmt.Errorf("cannot determine the program run by %s: unknown option --%s", name, opt)
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isAssignWord reports whether w is a NAME=VALUE word as env and sudo accept
// it: a static, unquoted NAME= prefix and a value that stays one field.
func isAssignWord(w *syntax.Word) bool {
	if len(w.Parts) == 0 {
		return false
	}
	first, ok := w.Parts[0].(*syntax.Lit)
	if !ok {
		return false
	}
	name, _, found := strings.Cut(first.Value, "=")
	return found && validName(name) && singleField(w)
}

// assignName returns the variable name of a NAME=VALUE word, or "".
func assignName(w *syntax.Word) string {
	if !isAssignWord(w) {
		return ""
	}
	name, _, _ := strings.Cut(w.Parts[0].(*syntax.Lit).Value, "=")
	return name
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || (i > 0 && '0' <= c && c <= '9') {
			continue
		}
		return false
	}
	return true
}

// singleField reports whether w expands to exactly one word whatever the
// run-time state: a static word without pattern characters, or a word whose
// expansions are all inside double quotes and are not "$@", "$*" or array
// expansions that split into several words.
func singleField(w *syntax.Word) bool {
	if l, ok := staticWord(w); ok {
		return !l.hasGlob() && !l.hasBraces()
	}
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if containsAnyOf(p.Value, &splittingBytes) {
				return false
			}
		case *syntax.SglQuoted:
		case *syntax.DblQuoted:
			for _, dp := range p.Parts {
				if pe, ok := dp.(*syntax.ParamExp); ok {
					if pe.Param != nil && (pe.Param.Value == "@" || pe.Param.Value == "*") {
						return false
					}
					if pe.Index != nil || pe.Names != 0 {
						return false
					}
				}
			}
		default:
			return false
		}
	}
	return true
}

// splittingBytes are the unquoted bytes that make a word more than one field.
var splittingBytes = newByteSet("*?[{~")
