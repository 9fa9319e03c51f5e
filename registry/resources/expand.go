package resources

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// assign analyses NAME=VALUE (also in declare/export/local).
func (a *analyzer) assign(as *syntax.Assign, c ctx) {
	name := ""
	var value lit
	static := true
	switch {
	case as.Name != nil && !as.Naked:
		name = as.Name.Value
		if as.Value != nil {
			value, static = staticWord(as.Value)
		}
	case as.Name != nil && as.Naked:
		name = as.Name.Value // export NAME, declare NAME: no value
	case as.Value != nil:
		// declare's option words and names written in quotes, e.g.
		// "-x" or "BASH_ENV=x": a quoted NAME=VALUE is still an assignment.
		l, ok := staticWord(as.Value)
		if !ok {
			a.failf("the gate cannot tell what this runs: %s assigns a variable whose name is not static", wordText(as.Value))
			return
		}
		if strings.HasPrefix(l.s, "-") || strings.HasPrefix(l.s, "+") {
			return // an option word, checked by the caller
		}
		n, v, _ := strings.Cut(l.s, "=")
		name, value = strings.TrimSuffix(n, "+"), lit{s: v, quoted: l.quoted[len(l.s)-len(v):]}
		if b, _, found := strings.Cut(name, "["); found {
			name = b
		}
	}
	if name != "" {
		a.checkAssignName(name)
		a.checkLocale(name, value, static)
	}
	if as.Index != nil {
		a.arith(as.Index, c)
	}
	// The value is expanded before it is assigned: n=$((n + 1)) reads
	// the n of before, and leaves a number.
	a.words(as, c)
	switch {
	case name == "" || as.Naked:
	case as.Append && !a.numeric[name]:
		// n+=1 joins 1 to a value the gate does not know: still unknown.
	case as.Index != nil || as.Array != nil:
		a.forgetNumber(name) // an element or an array: $name is its first
	case as.Value != nil && arithValue(as.Value):
		a.setNumeric(name)
	case as.Value != nil:
		a.noteAssign(name, value, static)
	}
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
	if w, ok := n.(*syntax.Word); ok && len(w.Parts) == 1 {
		if l, ok := w.Parts[0].(*syntax.Lit); ok && strings.IndexByte(l.Value, '[') < 0 {
			return // plain text: nothing runs, no subscript to evaluate
		}
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
				if strings.Contains(v, `\'`) {
					// dash has no $'…': for it the \' ends the quotes, so
					// the two shells disagree on where the line's words are.
					a.failf("refused: $'…' with an escaped quote is read differently by bash and sh")
					return false
				}
				v = ansiC(v)
			}
			if subscripts && subscriptInjection(v) {
				a.failf("cannot vouch for the command: %q looks like an array subscript with a command substitution, which bash may evaluate", shorten(v))
				return false
			}
		case *syntax.ExtGlob:
			// In zsh (the shell of macOS clients) *(e:cmd:) is a glob
			// qualifier that runs cmd; bash without extglob reads it
			// differently again.
			a.failf("refused: %s%s) is an extended glob or, in zsh, a glob qualifier that runs code", x.Op, x.Pattern.Value)
			return false
		case *syntax.ArithmExp:
			a.arith(x.X, inner)
		case *syntax.ParamExp:
			a.paramExp(x, inner)
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
