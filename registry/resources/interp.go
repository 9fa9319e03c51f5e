package resources

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// versionless strips a trailing version from a program name: python3.12 →
// python, ksh93 → ksh, php8.2 → php.
func versionless(name string) string {
	return strings.TrimRight(name, "0123456789.")
}

// shellFamily classifies a program as a POSIX-like shell whose scripts this
// package parses ("posix"), a shell with another syntax ("other"), or not a
// shell ("").
func shellFamily(name string) string {
	switch versionless(name) {
	case "sh", "bash", "rbash", "dash", "ash", "ksh", "mksh", "lksh", "pdksh", "zsh", "yash", "posh":
		return "posix"
	case "fish", "csh", "tcsh", "nu", "xonsh", "elvish":
		return "other"
	}
	return ""
}

// bashLong are bash's long options; all but rcfile and init-file take no
// argument.
var bashLong = map[string]bool{
	"debug": true, "debugger": true, "dump-po-strings": true, "dump-strings": true, "help": true,
	"login": true, "noediting": true, "noprofile": true, "norc": true, "posix": true,
	"pretty-print": true, "protected": true, "restricted": true, "verbose": true, "version": true,
	"wordexp": true,
}

// shell handles sh, bash and friends: "-c script" is parsed, a script file
// operand is only a script file, and no operand (or -s, or -i) reads the
// program from standard input.
func (a *analyzer) shell(name string, args []*syntax.Word, c ctx) {
	base := versionless(name)
	if shellFamily(name) == "other" {
		operand := false
		for _, w := range args {
			l, ok := staticWord(w)
			if !ok || (strings.HasPrefix(l.s, "-") && strings.ContainsAny(l.s, "cC")) {
				a.failf("cannot analyse %s: its scripts are not POSIX shell", name)
				return
			}
			if !strings.HasPrefix(l.s, "-") {
				operand = true
				a.scriptOperand(w, c, false)
				break
			}
		}
		if !operand {
			a.stdinCode(false, c)
		}
		return
	}
	c.zsh = base == "zsh" // what this shell runs is parsed with zsh's hazards in mind
	argLetters := "oO"
	if base == "ksh" || base == "mksh" || base == "lksh" || base == "pdksh" {
		argLetters = "oORT"
	}
	hasC, readStdin := false, false
	i := 0
options:
	for i < len(args) {
		l, ok := staticWord(args[i])
		if !ok || l.hasGlob() || l.hasBraces() {
			break
		}
		s := l.s
		switch {
		case s == "--" || s == "-":
			i++
			break options
		case len(s) < 2 || (s[0] != '-' && s[0] != '+'):
			break options
		case strings.HasPrefix(s, "--"):
			opt, _, _ := strings.Cut(s[2:], "=")
			switch {
			case (opt == "rcfile" || opt == "init-file" || (base == "zsh" && opt == "emulate")) && !strings.Contains(s, "="):
				i += 2
			case bashLong[opt] || base == "zsh":
				i++
			default:
				a.failf("cannot determine the script run by %s: unknown option %s", name, s)
				return
			}
			continue
		}
		for j := 1; j < len(s); j++ {
			ch := s[j]
			switch {
			case ch == 'c' && s[0] == '-':
				hasC = true
			case (ch == 's' || ch == 'i') && s[0] == '-':
				readStdin = true
			case strings.IndexByte(argLetters, ch) >= 0:
				i++
				if i >= len(args) {
					a.failf("cannot determine the script run by %s: option %c needs a value", name, ch)
					return
				}
			case ('a' <= ch && ch <= 'z') || ('A' <= ch && ch <= 'Z'):
			default:
				a.failf("cannot determine the script run by %s: unknown option %s", name, s)
				return
			}
		}
		i++
	}
	if hasC {
		if i >= len(args) {
			if c.xargs {
				a.flag() // xargs supplies the script from its input
				return
			}
			a.failf("cannot determine the script run by %s -c: it is missing", name)
			return
		}
		l, ok := staticWord(args[i])
		if !ok || l.hasGlob() || l.hasBraces() {
			a.failf("cannot determine the script run by %s -c %s", name, wordText(args[i]))
			return
		}
		if c.subst != "" && strings.Contains(l.s, c.subst) {
			a.failf("cannot determine the script run by %s -c %s: %s is replaced by run-time text", name, wordText(args[i]), c.subst)
			return
		}
		a.nested(l.s, c)
		return
	}
	if i < len(args) && !readStdin {
		a.scriptOperand(args[i], c, true)
		return
	}
	if c.xargs && i >= len(args) {
		a.flag() // "xargs sh": the script names come from the input
		return
	}
	a.stdinCode(true, c)
}

// scriptOperand handles the script-file operand of a shell, source or an
// interpreter: a process substitution or /dev/stdin means the program text
// arrives at run time.
func (a *analyzer) scriptOperand(w *syntax.Word, c ctx, shell bool) {
	if hasProcSubst(w) {
		a.flag()
		return
	}
	if l, ok := staticWord(w); ok && isStdinPath(l.s) {
		a.stdinCode(shell, c)
	}
}

func isStdinPath(s string) bool {
	return s == "-" || s == "/dev/stdin" || s == "/dev/fd/0" || s == "/proc/self/fd/0"
}

// stdinCode handles an interpreter that reads its program from standard
// input. A pipe, or a here-document whose text is not static, is flagged; a
// static here-document fed to a shell is parsed like sh -c.
func (a *analyzer) stdinCode(shell bool, c ctx) {
	switch c.stdin {
	case stdinPipe:
		a.flag()
	case stdinHeredoc:
		body, ok := heredocText(c.hdoc)
		if !ok {
			a.flag()
			return
		}
		if shell {
			inner := c
			inner.stdin, inner.hdoc = stdinFile, nil
			a.nested(body, inner)
		}
	}
}

// heredocText returns the text a here-document or here-string feeds, if it is
// static.
func heredocText(r *syntax.Redirect) (string, bool) {
	if r == nil {
		return "", true
	}
	if r.Op == syntax.WordHdoc {
		l, ok := staticWord(r.Word)
		if !ok {
			return "", false
		}
		return l.s + "\n", true
	}
	if r.Hdoc == nil {
		return "", true
	}
	quoted := false // a quoted delimiter keeps the body literal
	for _, p := range r.Word.Parts {
		if l, ok := p.(*syntax.Lit); !ok || strings.Contains(l.Value, `\`) {
			quoted = true
		}
	}
	var b strings.Builder
	for _, p := range r.Hdoc.Parts {
		l, ok := p.(*syntax.Lit)
		if !ok {
			return "", false
		}
		if quoted {
			b.WriteString(l.Value)
		} else {
			b.WriteString(unescapeDouble(l.Value, false))
		}
	}
	return b.String(), true
}

// interpSpec describes how an interpreter that is not a shell is told where
// its program is: in an option's argument (code), in a script-file operand,
// or, when neither is given, on standard input. Options it does not know are
// assumed to take an argument, which errs towards "reads standard input".
type interpSpec struct {
	code     string   // short options whose argument is program text or a module (python -c, -m; perl -e)
	args     string   // short options with an argument (attached or the next word)
	flags    string   // short options without an argument
	attach   string   // short options with an optional attached argument; they end the cluster
	stdin    string   // short options that make it read program text from stdin too (python -i)
	codeLong []string // long options whose argument is program text (--eval)
	fileLong []string // long options whose argument is the script file (pwsh -File)
	flagLong []string // long options without an argument
	dashLong bool     // options are single-dash words compared case-insensitively (pwsh)
	operand  bool     // a bare operand is program text rather than a file (Windows PowerShell)
}

var (
	pythonSpec = &interpSpec{code: "cm", args: "WX", flags: "bBdEhIOPqsSuvVxR3", stdin: "i",
		flagLong: []string{"help", "version", "help-env", "help-xoptions", "help-all"}}
	perlSpec = &interpSpec{code: "eE", args: "IMm", attach: "CDdilx0F",
		flags: "acfhnpsStTuUvVwWX"}
	rubySpec = &interpSpec{code: "e", args: "ICEFr", attach: "0KTWx", flags: "acdhlnpsSvwy",
		flagLong: []string{"verbose", "version", "help", "yydebug", "jit"}}
	nodeSpec = &interpSpec{code: "ep", args: "rC", flags: "hvc", stdin: "i",
		codeLong: []string{"eval", "print"},
		flagLong: []string{"no-warnings", "inspect", "inspect-brk", "trace-warnings",
			"enable-source-maps", "experimental-vm-modules", "test", "watch", "check",
			"version", "help", "abort-on-uncaught-exception", "expose-gc", "preserve-symlinks",
			"pending-deprecation", "no-deprecation", "throw-deprecation", "trace-deprecation",
			"experimental-strip-types", "experimental-transform-types", "trace-uncaught"}}
	phpSpec = &interpSpec{code: "rRBEFf", args: "cdztS", flags: "hHilmnqsvwe", stdin: "a"}
	luaSpec = &interpSpec{code: "el", flags: "vEW", stdin: "i"}
	rSpec   = &interpSpec{code: "ef",
		flagLong: []string{"vanilla", "no-save", "save", "slave", "quiet", "silent", "no-restore",
			"no-environ", "no-site-file", "no-init-file", "verbose", "version", "help", "interactive"}}
	tclSpec       = &interpSpec{}
	osascriptSpec = &interpSpec{code: "e", args: "ls"}
	pwshSpec      = &interpSpec{dashLong: true,
		codeLong: []string{"c", "command", "cmd", "e", "ec", "encodedcommand"},
		fileLong: []string{"f", "file"},
		flagLong: []string{"noprofile", "nop", "nologo", "nol", "noninteractive", "noni", "noexit",
			"interactive", "i", "mta", "sta", "login", "l", "version", "v", "help", "h", "?"}}
	powershellSpec = &interpSpec{dashLong: true, operand: true,
		codeLong: pwshSpec.codeLong, fileLong: pwshSpec.fileLong, flagLong: pwshSpec.flagLong}
	// denoSpec is a marker: deno has subcommands and is handled apart.
	denoSpec = &interpSpec{}
)

// interpreterOf returns the spec of an interpreter that is not a shell, or
// nil.
func interpreterOf(name string) *interpSpec {
	switch versionless(name) {
	case "python", "pypy":
		return pythonSpec
	case "perl":
		return perlSpec
	case "ruby":
		return rubySpec
	case "node", "nodejs", "bun":
		return nodeSpec
	case "deno":
		return denoSpec
	case "php":
		return phpSpec
	case "lua", "luajit":
		return luaSpec
	case "Rscript", "R":
		return rSpec
	case "tclsh", "wish":
		return tclSpec
	case "osascript":
		return osascriptSpec
	case "pwsh":
		return pwshSpec
	case "powershell":
		return powershellSpec
	}
	return nil
}

// interpreter handles a non-shell interpreter: its program text is in the
// command line (fine: allowing the interpreter allowed that), in a script
// file (fine), or arrives at run time (flagged).
func (a *analyzer) interpreter(name string, args []*syntax.Word, c ctx) {
	spec := interpreterOf(name)
	var stdin bool
	if spec == denoSpec {
		stdin = a.scanDeno(args, c)
	} else {
		stdin = a.scanInterp(spec, args, c)
	}
	if a.err != nil || !stdin {
		return
	}
	if c.xargs {
		a.flag() // the program name or text comes from xargs' input
		return
	}
	a.stdinCode(false, c)
}

// codeArg checks program text given in an argument: text that is not static,
// or that a wrapper fills in at run time, is program text the gate cannot see.
func (a *analyzer) codeArg(w *syntax.Word, attached string, isAttached bool, c ctx) {
	text := attached
	if !isAttached {
		if w == nil {
			if c.xargs {
				a.flag()
			}
			return
		}
		l, ok := staticWord(w)
		if !ok {
			a.flag()
			return
		}
		text = l.s
	}
	if c.subst != "" && strings.Contains(text, c.subst) {
		a.flag()
	}
	if text == "-" {
		a.stdinCode(false, c) // pwsh -Command -
	}
}

// scanInterp reports whether the interpreter reads its program from standard
// input.
func (a *analyzer) scanInterp(spec *interpSpec, args []*syntax.Word, c ctx) bool {
	interactive := false
	next := func(i int) *syntax.Word {
		if i < len(args) {
			return args[i]
		}
		return nil
	}
	for i := 0; i < len(args); i++ {
		w := args[i]
		l, ok := staticWord(w)
		if !ok || l.hasGlob() || l.hasBraces() {
			if hasProcSubst(w) {
				a.flag()
				return false
			}
			if spec.operand && !singleField(w) {
				a.flag()
				return false
			}
			// A script name, unless the word may expand to nothing.
			return interactive || !singleField(w)
		}
		s := l.s
		switch {
		case s == "-":
			return true
		case s == "--":
			if w := next(i + 1); w != nil {
				a.scriptOperand(w, c, false)
				return interactive
			}
			return true
		case len(s) < 2 || s[0] != '-':
			if spec.operand {
				a.codeArg(w, "", false, c)
				return interactive
			}
			if isStdinPath(s) {
				return true
			}
			return interactive
		}
		if spec.dashLong || strings.HasPrefix(s, "--") {
			opt, val, hasVal := strings.Cut(strings.TrimLeft(s, "-"), "=")
			if spec.dashLong {
				opt, _, _ = strings.Cut(strings.ToLower(opt), ":")
			}
			switch {
			case contains(spec.codeLong, opt):
				if hasVal {
					a.codeArg(nil, val, true, c)
				} else {
					i++
					a.codeArg(next(i), "", false, c)
				}
				return interactive
			case contains(spec.fileLong, opt):
				i++
				if w := next(i); w != nil {
					if l, ok := staticWord(w); ok && isStdinPath(l.s) {
						return true
					}
					a.scriptOperand(w, c, false)
					return interactive
				}
				return true
			case contains(spec.flagLong, opt) || hasVal:
			default:
				i++ // unknown: assume it takes the next word
			}
			continue
		}
		for j := 1; j < len(s); j++ {
			ch := s[j]
			switch {
			case strings.IndexByte(spec.code, ch) >= 0:
				if j+1 < len(s) {
					a.codeArg(nil, s[j+1:], true, c)
				} else {
					i++
					a.codeArg(next(i), "", false, c)
				}
				return interactive
			case strings.IndexByte(spec.stdin, ch) >= 0:
				interactive = true
			case strings.IndexByte(spec.flags, ch) >= 0:
			case strings.IndexByte(spec.attach, ch) >= 0:
				j = len(s)
			default: // spec.args, or unknown: the argument is attached or next
				if j+1 == len(s) {
					i++
				}
				j = len(s)
			}
		}
	}
	return true
}

// scanDeno: "deno eval CODE", "deno run FILE|-", a bare "deno" is a REPL.
func (a *analyzer) scanDeno(args []*syntax.Word, c ctx) bool {
	if len(args) == 0 {
		return true
	}
	for i, w := range args {
		l, ok := staticWord(w)
		if !ok {
			if hasProcSubst(w) {
				a.flag()
				return false
			}
			continue
		}
		if l.s == "-" {
			return true
		}
		if l.s == "eval" {
			for _, cw := range args[i+1:] {
				if cl, ok := staticWord(cw); ok && strings.HasPrefix(cl.s, "-") {
					continue
				}
				a.codeArg(cw, "", false, c)
				return false
			}
			a.codeArg(nil, "", false, c)
			return false
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
