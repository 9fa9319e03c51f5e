package resources

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

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
