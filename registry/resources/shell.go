package resources

import (
	"fmt"
	"path"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// ShellUse is what one shell command line does, as far as the gate cares.
//
// Executables holds the basename of every program the command line may run,
// deduplicated, in order of first appearance (substitutions inside a
// statement's redirections are seen before the statement's command).
// "Program" means the command word of every simple command wherever it
// appears — lists, pipelines, subshells, blocks, if/while/for/case bodies,
// function bodies, and $(…), `…`, <(…), >(…) in any word — so it includes
// shell builtins such as echo, cd, test, [, :, printf, export, local and
// true. That is deliberate: the command word is what a policy names, and the
// gate can then allow echo while refusing rm. Shell keywords (if, for,
// [[ … ]], (( … ))) are syntax, not programs, and are not listed, except
// time, which is listed like the wrapper it is. A call of a function
// defined in the same command line is listed under the function's name too
// (the analysis does not model which definition is live); the programs of
// the function's body are listed where it is defined.
//
// For a program that runs another program named in its arguments — env,
// command, exec, builtin, nohup, nice, time, timeout, xargs, sudo, doas,
// stdbuf, setsid, busybox, toybox, find -exec/-execdir/-ok/-okdir — both the
// wrapper and the wrapped program are listed. Scripts handed to sh, bash,
// dash, ash, ksh, mksh, zsh and their variants with -c, to eval, trap and
// alias, or fed to such a shell as a static here-document, are parsed in
// turn. Any other program that runs programs (make, git, npm, ssh, watch,
// python -c …) is listed by its own name only: allowing it allows what it
// runs.
//
// Reads and Writes hold redirection targets: >, >>, >|, &>, &>>, <> and
// >&word targets are writes; <, <> and <&word sources are reads. File
// descriptor duplications (2>&1, >&2, <&0, >&-), the devices /dev/null,
// /dev/stdin, /dev/stdout, /dev/stderr, /dev/tty, /dev/zero, /dev/random
// and /dev/urandom, and <(…)/>(…) used as targets are not listed. A relative
// target is reported as written, prefixed by the directory a preceding cd or
// pushd moved to ("cd sub && make > log" writes "sub/log"); when a cd may or
// may not have happened, the target is listed once per candidate directory,
// and a relative target in a function body, trap action or alias is listed
// for every directory the line ever moves to. Targets are not resolved:
// callers hand them to [ResolvePath]. Files that programs open on their own
// (cp a b, tee f) are not redirections and are not listed.
//
// PipesIntoInterpreter reports that program text not visible in the command
// line reaches an interpreter that reads its program rather than running a
// script named in its arguments: a pipe, a process substitution, a dynamic
// here-document or xargs' input feeding sh, bash, python, perl, ruby, node,
// php, lua, pwsh and the like ("curl … | sh", "bash <(curl …)",
// "python3 - <<< \"$x\"", "python3 -c \"$(curl …)\""). It is deliberately
// conservative: an interpreter run by a function body counts as piped.
type ShellUse struct {
	Executables          []string `json:"executables"`
	Reads                []string `json:"reads"`
	Writes               []string `json:"writes"`
	PipesIntoInterpreter bool     `json:"pipes_into_interpreter"`
	// Operands are the static words given to programs as arguments (and
	// the value of a --flag=value). Which of them a program opens is its
	// own business, so they are not reads or writes; but any of them may
	// name a file, and the gate checks them against the deny list, so
	// that `cat ~/.ssh/id_rsa` is refused like a Read of it.
	Operands []string `json:"operands,omitempty"`
	// WriteOperands and ReadOperands are the operands of programs known
	// to modify (rm, mv, cp, touch, …) or read (cat, head, …) the files
	// they name, options left out: the gate treats them as paths written
	// and read, so `rm -rf ..` and `cat /etc/shadow` are checked like a
	// Write or a Read. Operands of a program behind a wrapper (sudo,
	// xargs) are not classified.
	WriteOperands []string `json:"write_operands,omitempty"`
	ReadOperands  []string `json:"read_operands,omitempty"`
}

// fileWriters modify the files their operands name; fileReaders read them.
var (
	fileWriters = map[string]bool{"rm": true, "rmdir": true, "unlink": true, "mv": true, "cp": true, "touch": true,
		"mkdir": true, "chmod": true, "chown": true, "chgrp": true, "ln": true, "tee": true, "truncate": true,
		"install": true, "shred": true}
	fileReaders = map[string]bool{"cat": true, "head": true, "tail": true, "less": true, "more": true, "nl": true,
		"od": true, "xxd": true, "base64": true, "strings": true, "tac": true}
)

// maxShellDepth is how deeply scripts may nest inside one another (sh -c
// within sh -c, eval within eval, …) before the analysis gives up.
const maxShellDepth = 4

// maxCwds bounds the number of candidate working directories tracked for cd.
const maxCwds = 16

// ignoredDevices are redirection targets that are not files in the sense of
// the gate: they neither leak nor persist data.
var ignoredDevices = map[string]bool{
	"/dev/null":    true,
	"/dev/stdin":   true,
	"/dev/stdout":  true,
	"/dev/stderr":  true,
	"/dev/tty":     true,
	"/dev/zero":    true,
	"/dev/random":  true,
	"/dev/urandom": true,
}

// riskyVars are variables whose assignment makes the shell or the dynamic
// loader run code the command line does not show (BASH_ENV is sourced by
// every non-interactive bash, PS4 is prompt-expanded under xtrace, LD_PRELOAD
// loads a library into every program, …). Assigning one is refused.
var riskyVars = map[string]bool{
	"BASH_ENV": true, "ENV": true, "PS4": true, "PROMPT_COMMAND": true,
	"SHELLOPTS": true, "BASHOPTS": true,
	"LD_PRELOAD": true, "LD_AUDIT": true, "LD_LIBRARY_PATH": true,
	"DYLD_INSERT_LIBRARIES": true, "DYLD_LIBRARY_PATH": true,
}

// cwdWords are command words that may change the working directory, or run
// text that might. If one appears inside a loop or a function body, the order
// in which relative redirections and directory changes happen is unknown.
var cwdWords = map[string]bool{"cd": true, "pushd": true, "popd": true, "eval": true, "source": true, ".": true}

// Shell analyses a bash command line. It returns an error — and the gate must
// refuse — when the line does not parse, when the program run by a command
// cannot be determined statically ($CMD x, ${X}y, $(echo rm) x, r* x), when a
// redirection target is not static, when scripts nest deeper than
// maxShellDepth, or when a construct would run code the analysis cannot see
// (eval "$x", sh -c "$x", ${x@P}, assigning BASH_ENV or LD_PRELOAD, …).
//
// Shell never panics: an internal failure is reported as an error.
func Shell(command string) (use ShellUse, err error) {
	defer func() {
		if r := recover(); r != nil {
			use, err = ShellUse{}, fmt.Errorf("cannot analyse shell command: internal error: %v", r)
		}
	}()
	return analyzeShell(command)
}

// analyzeShell is Shell without the panic guard; the fuzz test calls it so
// that a panic is found rather than hidden.
func analyzeShell(command string) (ShellUse, error) {
	a := &analyzer{
		cwds:    []string{""},
		allCwds: []string{""},
		seen:    map[string]bool{},
	}
	a.script(command, ctx{})
	for _, d := range a.deferred {
		if a.err != nil {
			break
		}
		if a.cwdUnknown {
			a.failf("cannot determine the directory of relative path %q: the working directory changes in a way the analysis cannot follow", d.p)
			break
		}
		for _, dir := range a.allCwds {
			a.addPath(joinCwd(dir, d.p), d.write, d.read)
		}
	}
	if a.err != nil {
		return ShellUse{}, a.err
	}
	return a.use, nil
}

// stdinKind is what a command's standard input is connected to.
type stdinKind int

const (
	stdinInherited stdinKind = iota // whatever the tool call's shell got
	stdinPipe                       // a pipe or something equally unknown
	stdinHeredoc                    // a here-document or here-string (ctx.hdoc)
	stdinFile                       // a named file
)

// ctx is the context one command is analysed in.
type ctx struct {
	depth int              // nesting of re-parsed scripts
	stdin stdinKind        // standard input of the command
	hdoc  *syntax.Redirect // the here-document when stdin == stdinHeredoc
	xargs bool             // xargs appends words read from its input to the command
	zsh   bool             // the script is run by zsh, whose glob qualifiers run code
	subst string           // text the wrapping program replaces at run time ({} for find, xargs -I)
}

// analyzer accumulates one ShellUse. The first error stops the analysis.
type analyzer struct {
	use        ShellUse
	seen       map[string]bool // "x:"+exe, "r:"+path, "w:"+path
	err        error
	cwds       []string // candidate working directories, relative to the start ("" is the start)
	cwdUnknown bool     // a directory change could not be followed
	lastCd     []string // directories the most recent cd moved to, nil if unknown
	allCwds    []string // every directory that was ever a candidate
	stdinTaint bool     // "exec <…" replaced the shell's own standard input
	later      int      // > 0 while analysing code that runs at an unknown later time
	deferred   []deferredPath
}

// deferredPath is a relative redirection target in a function body, a trap
// action or an alias: it is resolved at the end against every working
// directory the command line may have moved to, since the code may run at
// any point.
type deferredPath struct {
	p           string
	write, read bool
}

func (a *analyzer) failf(format string, args ...any) {
	if a.err == nil {
		a.err = fmt.Errorf(format, args...)
	}
}

func (a *analyzer) add(list *[]string, kind, v string) {
	if !a.seen[kind+v] {
		a.seen[kind+v] = true
		*list = append(*list, v)
	}
}

func (a *analyzer) addExe(name string) { a.add(&a.use.Executables, "x:", name) }

func (a *analyzer) flag() { a.use.PipesIntoInterpreter = true }

var parserPool = sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }}

// script parses src and analyses it in context c. c.depth is the nesting
// level of src itself.
func (a *analyzer) script(src string, c ctx) {
	if a.err != nil {
		return
	}
	if c.depth > maxShellDepth {
		a.failf("cannot analyse shell command: scripts nested more than %d levels deep", maxShellDepth)
		return
	}
	p := parserPool.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader(src), "")
	parserPool.Put(p)
	if err != nil {
		if c.depth > 0 {
			a.failf("cannot parse nested shell script %q: %v", shorten(src), err)
		} else {
			a.failf("cannot parse shell command: %v", err)
		}
		return
	}
	a.prescanCwd(f)
	a.stmts(f.Stmts, c)
}

// prescanCwd makes relative redirection targets unresolvable when something
// that may change directory sits inside a loop or a function body: there the
// textual order is not the execution order.
func (a *analyzer) prescanCwd(f *syntax.File) {
	if a.cwdUnknown {
		return
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		if a.cwdUnknown {
			return false
		}
		switch n.(type) {
		case *syntax.WhileClause, *syntax.ForClause, *syntax.FuncDecl:
			if mentionsCwdChange(n) {
				a.cwdUnknown = true
			}
			return false
		}
		return true
	})
}

func mentionsCwdChange(n syntax.Node) bool {
	found := false
	syntax.Walk(n, func(m syntax.Node) bool {
		if w, ok := m.(*syntax.Word); ok {
			if l, ok := staticWord(w); ok && cwdWords[path.Base(l.s)] {
				found = true
			}
		}
		return !found
	})
	return found
}

func (a *analyzer) stmts(list []*syntax.Stmt, c ctx) {
	for _, s := range list {
		if a.err != nil {
			return
		}
		a.stmt(s, c)
		// "exec <file" (exec without a program) replaces the shell's own
		// standard input for everything that follows, also outside the
		// { … } it may sit in: from then on, inherited input is unknown.
		if isBareExec(s) && redirectsStdin(s.Redirs) {
			a.stdinTaint = true
		}
	}
}

func isBareExec(s *syntax.Stmt) bool {
	call, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) != 1 {
		return false
	}
	l, ok := staticWord(call.Args[0])
	return ok && l.s == "exec"
}

func (a *analyzer) stmt(s *syntax.Stmt, c ctx) {
	if a.err != nil || s == nil {
		return
	}
	if a.stdinTaint && c.stdin == stdinInherited {
		c.stdin = stdinPipe
	}
	c = a.redirects(s.Redirs, c)
	a.command(s.Cmd, c)
}

func (a *analyzer) command(cmd syntax.Command, c ctx) {
	if a.err != nil {
		return
	}
	switch x := cmd.(type) {
	case nil: // a statement that is only redirections: "> file"
	case *syntax.CallExpr:
		a.call(x, c)
	case *syntax.BinaryCmd:
		switch x.Op {
		case syntax.Pipe, syntax.PipeAll:
			a.stmt(x.X, c)
			piped := c
			piped.stdin, piped.hdoc = stdinPipe, nil
			a.stmt(x.Y, piped)
		case syntax.AndStmt:
			a.andThen(x, c)
		default:
			a.stmt(x.X, c)
			a.stmt(x.Y, c)
		}
	case *syntax.Subshell:
		a.stmts(x.Stmts, c)
	case *syntax.Block:
		a.stmts(x.Stmts, c)
	case *syntax.IfClause:
		for cl := x; cl != nil; cl = cl.Else {
			a.stmts(cl.Cond, c)
			a.stmts(cl.Then, c)
		}
	case *syntax.WhileClause:
		a.stmts(x.Cond, c)
		a.stmts(x.Do, c)
	case *syntax.ForClause:
		a.words(x.Loop, c)
		a.stmts(x.Do, c)
	case *syntax.CaseClause:
		a.words(x.Word, c)
		for _, item := range x.Items {
			for _, p := range item.Patterns {
				a.words(p, c)
			}
			a.stmts(item.Stmts, c)
		}
	case *syntax.FuncDecl:
		// The body runs whenever the function is called, with whatever
		// input the caller has: assume the worst.
		body := c
		body.stdin, body.hdoc = stdinPipe, nil
		a.later++
		a.stmt(x.Body, body)
		a.later--
	case *syntax.TimeClause:
		a.addExe("time")
		a.stmt(x.Stmt, c)
	case *syntax.CoprocClause:
		if x.Name != nil {
			a.words(x.Name, c)
		}
		co := c
		co.stdin, co.hdoc = stdinPipe, nil // the shell writes to it at will
		a.stmt(x.Stmt, co)
	case *syntax.DeclClause:
		a.addExe(x.Variant.Value)
		for _, as := range x.Args {
			a.assign(as, c)
		}
	case *syntax.LetClause:
		a.addExe("let")
		for _, e := range x.Exprs {
			a.words(e, c)
		}
	case *syntax.TestClause:
		a.words(x.X, c)
	case *syntax.ArithmCmd:
		a.words(x.X, c)
	case *syntax.TestDecl:
		a.words(x.Description, c)
		a.stmt(x.Body, c)
	default:
		a.failf("cannot analyse shell command: unsupported construct %T", cmd)
	}
}

// andThen handles "x && y". When x is a plain "cd dir", y runs in dir only,
// which is the common "cd sub && make > log" idiom.
func (a *analyzer) andThen(x *syntax.BinaryCmd, c ctx) {
	a.lastCd = nil
	a.stmt(x.X, c)
	if a.lastCd == nil || !isPlainCd(x.X) || a.cwdUnknown {
		a.stmt(x.Y, c)
		return
	}
	saved := a.cwds
	a.cwds = a.lastCd
	a.stmt(x.Y, c)
	a.cwds = union(saved, a.cwds)
}

func isPlainCd(s *syntax.Stmt) bool {
	call, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 || s.Negated || s.Background {
		return false
	}
	l, ok := staticWord(call.Args[0])
	return ok && (l.s == "cd" || l.s == "pushd")
}

// assign analyses NAME=VALUE (also in declare/export/local).
func (a *analyzer) assign(as *syntax.Assign, c ctx) {
	if as.Name != nil && riskyVars[as.Name.Value] && !as.Naked {
		a.failf("cannot vouch for the command: assigning %s makes the shell or the loader run code the command does not show", as.Name.Value)
		return
	}
	if as.Naked && as.Name == nil && as.Value != nil {
		// declare's option words and names, e.g. "-x" or "BASH_ENV=x"
		// written in quotes; a quoted NAME=VALUE is still an assignment.
		if l, ok := staticWord(as.Value); ok {
			if name, _, found := strings.Cut(l.s, "="); found && riskyVars[name] {
				a.failf("cannot vouch for the command: assigning %s makes the shell or the loader run code the command does not show", name)
				return
			}
		}
	}
	a.words(as, c)
}

// words finds the commands hidden in a node that holds words: command and
// process substitutions, and parameter expansions that execute text.
func (a *analyzer) words(n syntax.Node, c ctx) { a.walkWords(n, c, true) }

// walkWords is words; literal text is checked for subscript injection when
// subscripts is true.
//
// Bash evaluates an array subscript found in a variable *name* — in printf -v,
// read, unset, declare, test -v, [[ -v ]], and in arithmetic on a variable
// whose value is such a name — and that evaluation performs command
// substitution: unset 'a[$(rm -rf ~)]' runs rm. Literal text shaped like a
// subscript holding $( or a backtick is therefore refused wherever it
// appears as a word.
func (a *analyzer) walkWords(n syntax.Node, c ctx, subscripts bool) {
	if a.err != nil || isNilNode(n) {
		return
	}
	inner := c
	inner.xargs, inner.subst = false, ""
	syntax.Walk(n, func(m syntax.Node) bool {
		if a.err != nil {
			return false
		}
		switch x := m.(type) {
		case *syntax.CmdSubst:
			// A command substitution inherits the standard input of the
			// command it appears in.
			a.stmts(x.Stmts, inner)
			return false
		case *syntax.ProcSubst:
			ps := inner
			if x.Op == syntax.CmdOut { // >(cmd) reads what the command writes
				ps.stdin, ps.hdoc = stdinPipe, nil
			} else {
				ps.stdin, ps.hdoc = stdinInherited, nil
			}
			a.stmts(x.Stmts, ps)
			return false
		case *syntax.Lit:
			if subscripts && subscriptInjection(x.Value) {
				a.failf("cannot vouch for the command: %q looks like an array subscript with a command substitution, which bash may evaluate", shorten(x.Value))
				return false
			}
		case *syntax.SglQuoted:
			v := x.Value
			if x.Dollar {
				v = ansiC(v)
			}
			if subscripts && subscriptInjection(v) {
				a.failf("cannot vouch for the command: %q looks like an array subscript with a command substitution, which bash may evaluate", shorten(v))
				return false
			}
		case *syntax.ExtGlob:
			if c.zsh {
				a.failf("cannot vouch for the zsh script: %s%s) may be a glob qualifier, which runs code", x.Op, x.Pattern.Value)
				return false
			}
		case *syntax.ParamExp:
			if x.Exp != nil && x.Exp.Op == syntax.OtherParamOps && x.Exp.Word != nil && strings.Contains(x.Exp.Word.Lit(), "P") {
				a.failf("cannot vouch for the command: ${…@P} expands a variable as a prompt, which runs command substitutions")
				return false
			}
		}
		return true
	})
}

// isNilNode catches typed nil pointers, which syntax.Walk would dereference.
func isNilNode(n syntax.Node) bool {
	switch x := n.(type) {
	case nil:
		return true
	case *syntax.Word:
		return x == nil
	case *syntax.Assign:
		return x == nil
	case *syntax.Redirect:
		return x == nil
	case syntax.Loop:
		return x == nil
	case syntax.ArithmExpr:
		return x == nil
	case syntax.TestExpr:
		return x == nil
	}
	return false
}

// redirects records the reads and writes of a statement's redirections and
// returns the context with the statement's standard input.
func (a *analyzer) redirects(rs []*syntax.Redirect, c ctx) ctx {
	for _, r := range rs {
		if a.err != nil {
			return c
		}
		a.words(r.Word, c)
		if r.Hdoc != nil {
			a.walkWords(r.Hdoc, c, false) // a here-document body is data unless a shell reads it
		}
		toStdin := redirFd(r) == "0"
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob,
			syntax.RdrAll, syntax.AppAll, syntax.RdrAllClob, syntax.AppAllClob:
			a.redirPath(r, true, false)
		case syntax.RdrIn:
			a.redirPath(r, false, true)
			if toStdin {
				c.stdin, c.hdoc = stdinFile, nil
				if isProcSubst(r.Word) {
					c.stdin = stdinPipe
				}
			}
		case syntax.RdrInOut:
			a.redirPath(r, true, true)
			if toStdin {
				c.stdin, c.hdoc = stdinFile, nil
			}
		case syntax.DplIn, syntax.DplOut:
			l, ok := staticWord(r.Word)
			if !ok || l.hasGlob() || l.hasBraces() {
				a.failf("cannot determine the target of redirection %s%s", r.Op, wordText(r.Word))
				return c
			}
			if isFdDup(l.s) {
				if r.Op == syntax.DplIn && toStdin && l.s != "0" && l.s != "0-" {
					c.stdin, c.hdoc = stdinPipe, nil // another descriptor: unknown content
				}
				continue
			}
			// ">&file" without a descriptor number means "&>file".
			a.redirPath(r, r.Op == syntax.DplOut, r.Op == syntax.DplIn)
			if r.Op == syntax.DplIn && toStdin {
				c.stdin, c.hdoc = stdinFile, nil
			}
		case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			if toStdin {
				c.stdin, c.hdoc = stdinHeredoc, r
			}
		default:
			a.failf("cannot analyse shell command: unsupported redirection %s", r.Op)
		}
	}
	return c
}

// redirectsStdin reports whether any redirection replaces standard input.
func redirectsStdin(rs []*syntax.Redirect) bool {
	for _, r := range rs {
		switch r.Op {
		case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			if redirFd(r) == "0" {
				return true
			}
		}
	}
	return false
}

// redirFd is the descriptor a redirection applies to, as written.
func redirFd(r *syntax.Redirect) string {
	if r.N != nil {
		return r.N.Value
	}
	switch r.Op {
	case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return "0"
	}
	return "1"
}

func isFdDup(s string) bool {
	return s == "-" || isDigits(s) || (strings.HasSuffix(s, "-") && isDigits(s[:len(s)-1]))
}

// subscriptInjection reports text with a [ followed by a command substitution
// ($( not starting $((, or a backtick).
func subscriptInjection(s string) bool {
	i := strings.IndexByte(s, '[')
	if i < 0 {
		return false
	}
	rest := s[i:]
	if strings.Contains(rest, "`") {
		return true
	}
	for {
		j := strings.Index(rest, "$(")
		if j < 0 {
			return false
		}
		if !strings.HasPrefix(rest[j:], "$((") {
			return true
		}
		rest = rest[j+3:]
	}
}

func isProcSubst(w *syntax.Word) bool {
	if w == nil || len(w.Parts) != 1 {
		return false
	}
	_, ok := w.Parts[0].(*syntax.ProcSubst)
	return ok
}

func hasProcSubst(w *syntax.Word) bool {
	if w == nil {
		return false
	}
	for _, p := range w.Parts {
		if _, ok := p.(*syntax.ProcSubst); ok {
			return true
		}
	}
	return false
}

// redirPath records the target of a file redirection.
func (a *analyzer) redirPath(r *syntax.Redirect, write, read bool) {
	if isProcSubst(r.Word) { // < <(cmd) and > >(cmd) are pipes, not files
		return
	}
	p, ok := pathWord(r.Word)
	if !ok {
		a.failf("cannot determine the file of redirection %s%s", r.Op, wordText(r.Word))
		return
	}
	if p == "" {
		a.failf("cannot determine the file of redirection %s%s: empty name", r.Op, wordText(r.Word))
		return
	}
	if ignoredDevices[p] {
		return
	}
	if a.later > 0 && !isAbsOrHome(p) {
		a.deferred = append(a.deferred, deferredPath{p: p, write: write, read: read})
		return
	}
	for _, full := range a.inCwds(p) {
		a.addPath(full, write, read)
	}
}

func (a *analyzer) addPath(p string, write, read bool) {
	if write {
		a.add(&a.use.Writes, "w:", p)
	}
	if read {
		a.add(&a.use.Reads, "r:", p)
	}
}

// inCwds returns p as seen from every candidate working directory.
func (a *analyzer) inCwds(p string) []string {
	if isAbsOrHome(p) {
		return []string{p}
	}
	if a.cwdUnknown {
		a.failf("cannot determine the directory of relative path %q: the working directory changes in a way the analysis cannot follow", p)
		return nil
	}
	out := make([]string, 0, len(a.cwds))
	for _, d := range a.cwds {
		out = append(out, joinCwd(d, p))
	}
	return out
}

func isAbsOrHome(p string) bool {
	return strings.HasPrefix(p, "/") || p == "~" || strings.HasPrefix(p, "~/")
}

func joinCwd(dir, p string) string {
	if dir == "" || isAbsOrHome(p) {
		return p
	}
	return strings.TrimSuffix(dir, "/") + "/" + p
}

func union(x, y []string) []string {
	out := append([]string(nil), x...)
	for _, v := range y {
		found := false
		for _, w := range out {
			if w == v {
				found = true
				break
			}
		}
		if !found {
			out = append(out, v)
		}
	}
	return out
}

// pathWord returns the file name a word denotes, as ResolvePath expects it:
// "~" and "~/…" stay home-relative, a quoted leading tilde becomes "./~…".
// ok is false for dynamic words, patterns and ~user forms.
func pathWord(w *syntax.Word) (string, bool) {
	l, ok := staticWord(w)
	if !ok || l.hasGlob() || l.hasBraces() {
		return "", false
	}
	home, other := l.tildeForm()
	if other {
		return "", false
	}
	if strings.HasPrefix(l.s, "~") && !home {
		return "./" + l.s, true
	}
	return l.s, true
}

// call analyses a simple command.
func (a *analyzer) call(x *syntax.CallExpr, c ctx) {
	for _, as := range x.Assigns {
		a.assign(as, c)
	}
	if len(x.Args) == 0 {
		return
	}
	// Textual order: the command word, what it runs, then the
	// substitutions in its arguments.
	a.words(x.Args[0], c)
	a.run(x.Args, c)
	prog := ""
	if l, ok := staticWord(x.Args[0]); ok {
		prog = path.Base(l.s)
	}
	var operands []string
	endOfOptions := false
	for _, w := range x.Args[1:] {
		a.words(w, c)
		var op string
		op, endOfOptions = a.operand(w, endOfOptions)
		if op != "" {
			operands = append(operands, op)
		}
	}
	a.classify(prog, operands)
}

// operand records a static argument word (see ShellUse.Operands). It
// returns the word when it is an operand rather than an option, and
// whether "--" has ended the options.
func (a *analyzer) operand(w *syntax.Word, endOfOptions bool) (string, bool) {
	l, ok := staticWord(w)
	if !ok || l.s == "" || len(a.use.Operands) >= maxOperands {
		return "", endOfOptions
	}
	a.add(&a.use.Operands, "o:", l.s)
	if !endOfOptions && strings.HasPrefix(l.s, "-") && l.s != "-" {
		if l.s == "--" {
			return "", true
		}
		if i := strings.IndexByte(l.s, '='); i > 0 && i+1 < len(l.s) {
			a.add(&a.use.Operands, "o:", l.s[i+1:])
		}
		return "", endOfOptions
	}
	return l.s, endOfOptions
}

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

// maxOperands bounds the operands kept from one command line.
const maxOperands = 256

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

// wrapper handles the programs in the wrappers table.
func (a *analyzer) wrapper(name string, spec optSpec, args []*syntax.Word, c ctx) {
	opts, err := parseOpts(name, spec, args)
	if err != nil {
		a.failf("%v", err)
		return
	}
	for _, w := range args[:opts.prog] {
		if n := assignName(w); riskyVars[n] {
			a.failf("cannot vouch for the command: assigning %s makes the shell or the loader run code the command does not show", n)
			return
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
	a.run(prog, c)
}

// cd follows a directory change.
func (a *analyzer) cd(args []*syntax.Word) {
	a.lastCd = nil
	i := 0
	for i < len(args) {
		l, ok := staticWord(args[i])
		if !ok || l.s == "-" || len(l.s) < 2 || l.s[0] != '-' {
			break
		}
		i++
		if l.s == "--" {
			break
		}
	}
	target := "~"
	if i < len(args) {
		p, ok := pathWord(args[i])
		if !ok || p == "-" || strings.HasPrefix(p, "+") || strings.HasPrefix(p, "-") {
			a.cwdUnknown = true // dynamic, cd -, pushd +N
			return
		}
		target = p
	}
	if target == "" {
		return // cd "" stays where it is
	}
	next := make([]string, 0, len(a.cwds))
	for _, d := range a.cwds {
		next = union(next, []string{joinCwd(d, target)})
	}
	a.lastCd = next
	a.cwds = union(a.cwds, next)
	a.allCwds = union(a.allCwds, next)
	if len(a.allCwds) > maxCwds {
		a.cwdUnknown = true
	}
	if len(a.cwds) > maxCwds {
		a.cwdUnknown = true
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

// nested analyses a script run by the current shell or a child shell that
// inherits the current standard input.
func (a *analyzer) nested(src string, c ctx) {
	inner := c
	inner.depth++
	inner.xargs, inner.subst = false, ""
	a.script(src, inner)
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
