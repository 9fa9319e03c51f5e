package resources

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// versionless strips a trailing version from a program name: python3.12 →
// python, ksh93 → ksh, php8.2 → php.
func versionless(name string) string {
	// strings.TrimRight with a cutset builds the set on every call; this
	// runs for every command of a line.
	end := len(name)
	for end > 0 && (name[end-1] >= '0' && name[end-1] <= '9' || name[end-1] == '.') {
		end--
	}
	return name[:end]
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
	if shellFamily(name) == "other" {
		a.otherShell(name, args, c)
		return
	}
	c.zsh = versionless(name) == "zsh" // what this shell runs is parsed with zsh's hazards in mind
	opts, ok := a.shellOptions(name, args)
	if !ok {
		return
	}
	i := opts.next
	if opts.hasC {
		a.shellC(name, args, i, c)
		return
	}
	if i < len(args) && !opts.readStdin {
		a.scriptOperand(args[i], c, true)
		return
	}
	if c.xargs && i >= len(args) {
		a.flag() // "xargs sh": the script names come from the input
		return
	}
	a.stdinCode(true, c)
}

// otherShell handles a shell whose language this package does not parse:
// only a script file, or nothing at all, is accepted.
func (a *analyzer) otherShell(name string, args []*syntax.Word, c ctx) {
	for _, w := range args {
		l, ok := staticWord(w)
		if !ok || (strings.HasPrefix(l.s, "-") && strings.ContainsAny(l.s, "cC")) {
			a.failf("cannot analyse %s: its scripts are not POSIX shell", name)
			return
		}
		if !strings.HasPrefix(l.s, "-") {
			a.scriptOperand(w, c, false)
			return
		}
	}
	a.stdinCode(false, c)
}

// shellOpts is what a POSIX shell's options say: -c, -s or -i, and the index
// of the first word after the options.
type shellOpts struct {
	hasC, readStdin bool
	next            int
}

// shellOptions walks a POSIX shell's options. ok is false (and the analysis
// failed) when an option is unknown or lacks its value.
func (a *analyzer) shellOptions(name string, args []*syntax.Word) (shellOpts, bool) {
	base := versionless(name)
	argLetters := "oO"
	if base == "ksh" || base == "mksh" || base == "lksh" || base == "pdksh" {
		argLetters = "oORT"
	}
	var o shellOpts
	i := 0
	for i < len(args) {
		l, ok := staticWord(args[i])
		if !ok || l.hasGlob() || l.hasBraces() {
			break
		}
		s := l.s
		if s == "--" || s == "-" {
			i++
			break
		}
		if len(s) < 2 || (s[0] != '-' && s[0] != '+') {
			break
		}
		var skip int
		if strings.HasPrefix(s, "--") {
			skip, ok = a.shellLong(name, s)
		} else {
			skip, ok = a.shellCluster(name, s, argLetters, &o)
			if ok && i+skip > len(args) {
				a.failf("cannot determine the script run by %s: option %s needs a value", name, s)
				ok = false
			}
			ok = ok && a.shellModes(name, s, args[i+1:i+skip])
		}
		if !ok {
			return o, false
		}
		i += skip
	}
	o.next = i
	return o, true
}

// shellLong checks one long option of a POSIX shell and returns how many
// words it takes.
func (a *analyzer) shellLong(name, s string) (int, bool) {
	base := versionless(name)
	opt, _, _ := strings.Cut(s[2:], "=")
	switch {
	case opt == "rcfile" || opt == "init-file" || opt == "debugger" || opt == "posix":
		// A start-up file runs code the gate does not read (--debugger
		// sources the debugger's); posix mode reads the script otherwise.
		a.failf("refused: %s %s runs or reads its script in a way the gate does not model", name, s)
		return 0, false
	case base == "zsh" && opt == "emulate" && !strings.Contains(s, "="):
		return 2, true
	case bashLong[opt] || base == "zsh":
		return 1, true
	}
	a.failf("cannot determine the script run by %s: unknown option %s", name, s)
	return 0, false
}

// shellCluster checks a cluster of short options (-ec, +x, -o pipefail)
// and returns how many words it takes.
func (a *analyzer) shellCluster(name, s, argLetters string, o *shellOpts) (int, bool) {
	words := 1
	for j := 1; j < len(s); j++ {
		ch := s[j]
		switch {
		case ch == 'c' && s[0] == '-':
			o.hasC = true
		case (ch == 's' || ch == 'i') && s[0] == '-':
			o.readStdin = true
		case strings.IndexByte(argLetters, ch) >= 0:
			words++
		case ('a' <= ch && ch <= 'z') || ('A' <= ch && ch <= 'Z'):
		default:
			a.failf("cannot determine the script run by %s: unknown option %s", name, s)
			return 0, false
		}
	}
	return words, true
}

// shellC parses the script of "sh -c script", args[i].
func (a *analyzer) shellC(name string, args []*syntax.Word, i int, c ctx) {
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

// shellModes refuses the options of a shell's invocation that change how
// the script is read or what its words name, as set and shopt would from
// inside it: -k (assignments anywhere on a command line), -H (history
// expansion: !$:s/x/y/ is a word of an earlier line, edited), and -o/-O
// modes (posix and keyword reading, cd to a variable's value, globs that
// ignore case, a pipeline's last command in the shell itself, aliases,
// the debugger's traps). values are the words the cluster s takes.
func (a *analyzer) shellModes(name, s string, values []*syntax.Word) bool {
	if s[0] == '-' && strings.ContainsAny(s[1:], "kH") {
		a.failf("refused: %s %s changes how the script's words are read, which the gate does not model", name, s)
		return false
	}
	for _, w := range values {
		v, ok := staticWord(w)
		if !ok || (s[0] == '-' && shellModeRefused[v.s]) {
			a.failf("refused: %s %s %s changes how the script is read or what its words name, which the gate does not model", name, s, wordText(w))
			return false
		}
	}
	return true
}

// shellModeRefused are the set -o and shopt modes shellModes refuses
// turned on (see setArgs for set's own).
var shellModeRefused = map[string]bool{
	"posix": true, "keyword": true, "histexpand": true, "cdable_vars": true, "nocaseglob": true,
	"lastpipe": true, "expand_aliases": true, "extdebug": true, "cdspell": true, "autocd": true,
	"direxpand": true, "globasciiranges": true,
}
