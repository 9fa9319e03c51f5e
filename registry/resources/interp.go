package resources

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

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
	// inline are the code letters whose argument is program text rather
	// than a module or file name (python -c, not python -m).
	inline string
}

var (
	pythonSpec = &interpSpec{code: "cm", inline: "c", args: "WX", flags: "bBdEhIOPqsSuvVxR3", stdin: "i",
		flagLong: []string{"help", "version", "help-env", "help-xoptions", "help-all"}}
	perlSpec = &interpSpec{code: "eE", inline: "eE", args: "IMm", attach: "CDdilx0F",
		flags: "acfhnpsStTuUvVwWX"}
	rubySpec = &interpSpec{code: "e", inline: "e", args: "ICEFr", attach: "0KTWx", flags: "acdhlnpsSvwy",
		flagLong: []string{"verbose", "version", "help", "yydebug", "jit"}}
	nodeSpec = &interpSpec{code: "ep", inline: "ep", args: "rC", flags: "hvc", stdin: "i",
		codeLong: []string{"eval", "print"},
		flagLong: []string{"no-warnings", "inspect", "inspect-brk", "trace-warnings",
			"enable-source-maps", "experimental-vm-modules", "test", "watch", "check",
			"version", "help", "abort-on-uncaught-exception", "expose-gc", "preserve-symlinks",
			"pending-deprecation", "no-deprecation", "throw-deprecation", "trace-deprecation",
			"experimental-strip-types", "experimental-transform-types", "trace-uncaught"}}
	phpSpec = &interpSpec{code: "rRBEFf", inline: "rRBE", args: "cdztS", flags: "hHilmnqsvwe", stdin: "a"}
	luaSpec = &interpSpec{code: "el", inline: "e", flags: "vEW", stdin: "i"}
	rSpec   = &interpSpec{code: "ef", inline: "e",
		flagLong: []string{"vanilla", "no-save", "save", "slave", "quiet", "silent", "no-restore",
			"no-environ", "no-site-file", "no-init-file", "verbose", "version", "help", "interactive"}}
	tclSpec       = &interpSpec{}
	osascriptSpec = &interpSpec{code: "e", inline: "e", args: "ls"}
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
	a.interp = name
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
				a.holdInline()
				a.codeArg(w, "", false, c)
				return interactive
			}
			if isStdinPath(s) {
				return true
			}
			return interactive
		}
		if spec.dashLong || strings.HasPrefix(s, "--") {
			var done bool
			i, done = a.interpLong(spec, args, i, c)
			if done {
				return interactive || i < 0
			}
			continue
		}
		for j := 1; j < len(s); j++ {
			ch := s[j]
			switch {
			case strings.IndexByte(spec.code, ch) >= 0:
				if strings.IndexByte(spec.inline, ch) >= 0 {
					a.holdInline()
				}
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

// interpLong handles the long option args[i] of an interpreter. It returns
// the index of the option's last word, and done when the option settles
// where the program comes from; i < 0 then means "standard input".
func (a *analyzer) interpLong(spec *interpSpec, args []*syntax.Word, i int, c ctx) (int, bool) {
	next := func(i int) *syntax.Word {
		if i < len(args) {
			return args[i]
		}
		return nil
	}
	l, _ := staticWord(args[i])
	opt, val, hasVal := strings.Cut(strings.TrimLeft(l.s, "-"), "=")
	if spec.dashLong {
		opt, _, _ = strings.Cut(strings.ToLower(opt), ":")
	}
	switch {
	case contains(spec.codeLong, opt):
		a.holdInline() // --eval, pwsh -Command
		if hasVal {
			a.codeArg(nil, val, true, c)
		} else {
			i++
			a.codeArg(next(i), "", false, c)
		}
		return i, true
	case contains(spec.fileLong, opt):
		i++
		if w := next(i); w != nil {
			if l, ok := staticWord(w); ok && isStdinPath(l.s) {
				return -1, true
			}
			a.scriptOperand(w, c, false)
			return i, true
		}
		return -1, true
	case contains(spec.flagLong, opt) || hasVal:
	default:
		i++ // unknown: assume it takes the next word
	}
	return i, false
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
			a.holdInline()
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

// holdInline records that the interpreter being analysed runs program text
// given on the line: a program the gate cannot model, which a human reads
// unless the lease grants "<interpreter>+inline".
func (a *analyzer) holdInline() {
	for _, h := range a.use.Holds {
		if h.Program == a.interp && h.Inline {
			return
		}
	}
	a.use.Holds = append(a.use.Holds, Hold{Program: a.interp, Inline: true,
		Reason: "the gate cannot tell what this runs: " + a.interp + " runs program text given inline"})
}
