package resources

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Bash assigns variables in more places than NAME=VALUE and the builtins
// that take a name (read, mapfile, printf -v, getopts, unset): ${NAME:=word}
// and ${NAME=word} assign when NAME is unset, which CDPATH, BASH_ENV and
// most of riskyVars usually are (": ${CDPATH:=/}; cd etc" moves to /etc);
// a {NAME}>file redirection assigns NAME the descriptor it opens, so that
// "exec {PATH}>/dev/null" makes ls the program 10/ls; coproc NAME assigns
// NAME and NAME_PID; wait -p NAME the id of the job it waited for. Each is
// an assignment like the others: a risky name is refused, and the name no
// longer holds a number the gate knows.

// expansionAssign checks ${NAME:=word} and ${NAME=word}. A name this line
// set to a number is set, so the expansion leaves it as it is; any other
// name keeps a value the gate does not know.
func (a *analyzer) expansionAssign(pe *syntax.ParamExp) {
	if pe.Exp == nil || pe.Param == nil {
		return
	}
	if pe.Exp.Op == syntax.AssignUnset || pe.Exp.Op == syntax.AssignUnsetOrNull {
		a.checkAssignName(pe.Param.Value)
	}
}

// fdVarRedirect checks the {NAME} of a redirection such as {fd}>file: bash
// assigns NAME (and evaluates a subscript in it, as in read).
func (a *analyzer) fdVarRedirect(r *syntax.Redirect) {
	if r.N == nil || !strings.HasPrefix(r.N.Value, "{") {
		return
	}
	name := strings.TrimSuffix(strings.TrimPrefix(r.N.Value, "{"), "}")
	a.nameWord("{"+name+"}", &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: name}}})
}

// coprocName checks the NAME of coproc NAME …, which bash assigns with
// the coprocess's descriptors, and NAME_PID with its process id.
func (a *analyzer) coprocName(w *syntax.Word) {
	l, ok := staticWord(w)
	if !ok || !validName(l.s) {
		a.failf("the gate cannot tell what this runs: coproc %s names a variable that is not plain", wordText(w))
		return
	}
	a.checkAssignName(l.s)
	a.checkAssignName(l.s + "_PID")
	a.forgetNumber(l.s)
	a.forgetNumber(l.s + "_PID")
}

// waitArgs checks wait -p NAME (bash 5.1), which assigns NAME. A word
// that is not static may be -p itself, so a plain name after one is
// checked as assigned too; job ids and "$pid" are not names.
func (a *analyzer) waitArgs(args []*syntax.Word) {
	dynamic := false
	for i := 0; i < len(args); i++ {
		l, ok := staticWord(args[i])
		switch {
		case !ok:
			dynamic = true
		case l.s == "--":
			return
		case len(l.s) > 1 && l.s[0] == '-' && l.s[len(l.s)-1] == 'p' && i+1 < len(args):
			i++
			a.nameWord("wait -p", args[i])
		case dynamic && validName(l.s):
			a.nameWord("wait", args[i])
		}
	}
}

// forgetNumber records that name may no longer hold a number. Forgetting
// one the line had set to a number is counted: a loop whose body does it
// is analysed once more (see loop), since its next round sees the change.
func (a *analyzer) forgetNumber(name string) {
	if a.numeric[name] {
		delete(a.numeric, name)
		a.numberLost++
	}
}

// loop analyses a loop: once, and when that made a variable the line had
// set to a number hold something else (read i, i=$(cat f)) once more from
// where the first pass ended, without what runs only once (the init of a
// C-style for): the condition and the body of the next round see the
// value the last round left. "for ((i=0; i<3; i++)); do read i; done"
// evaluates what read put in i, which can be a[$(id)].
func (a *analyzer) loop(once, rounds func()) {
	a.loops++
	lost := a.numberLost
	if once != nil {
		once()
	}
	rounds()
	if a.numberLost != lost && a.err == nil {
		rounds()
	}
	a.loops--
}

// arithValue reports a value that is the result of an arithmetic
// expansion ($((n + 1)), "$((n + 1))"): a number, whatever the
// expression (which is checked where it is walked).
func arithValue(w *syntax.Word) bool {
	if w == nil || len(w.Parts) != 1 {
		return false
	}
	switch p := w.Parts[0].(type) {
	case *syntax.ArithmExp:
		return true
	case *syntax.DblQuoted:
		if len(p.Parts) == 1 {
			_, ok := p.Parts[0].(*syntax.ArithmExp)
			return ok
		}
	}
	return false
}

// forClause analyses for NAME in …, select NAME in … and for ((…)): the
// init of a C-style loop runs once, its condition and step every round.
func (a *analyzer) forClause(x *syntax.ForClause, c ctx) {
	switch l := x.Loop.(type) {
	case *syntax.CStyleLoop:
		a.loop(func() { a.arith(l.Init, c) }, func() {
			a.arith(l.Cond, c)
			a.arith(l.Post, c)
			a.words(x.Loop, c)
			a.stmts(x.Do, c)
		})
	case *syntax.WordIter:
		a.loop(nil, func() {
			a.checkAssignName(l.Name.Value)
			a.forgetNumber(l.Name.Value)
			a.words(x.Loop, c)
			a.stmts(x.Do, c)
		})
	default:
		a.failf("cannot analyse shell command: unsupported loop %T", x.Loop)
	}
}

// lineNumber reports a variable this line has set to a number, as far as
// code that runs in the line's order sees it: a trap's action runs when
// the signal comes, after whatever the rest of the line put in it
// ("i=0; trap '((i))' EXIT; read i" evaluates what read got).
func (a *analyzer) lineNumber(name string) bool { return a.later == 0 && a.numeric[name] }
