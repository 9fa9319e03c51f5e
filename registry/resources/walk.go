package resources

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

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
		case syntax.AndStmt, syntax.OrStmt:
			a.list(x, c)
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
		a.loop(nil, func() {
			a.stmts(x.Cond, c)
			a.stmts(x.Do, c)
		})
	case *syntax.ForClause:
		a.forClause(x, c)
	case *syntax.CaseClause:
		a.words(x.Word, c)
		for _, item := range x.Items {
			for _, p := range item.Patterns {
				a.words(p, c)
			}
			a.stmts(item.Stmts, c)
		}
	case *syntax.FuncDecl:
		name := "(anonymous)"
		if x.Name != nil {
			name = x.Name.Value
		}
		a.failf("refused: defining the function %s renames a program for the rest of the line, which the gate does not model", name)
	case *syntax.TimeClause:
		a.stmt(x.Stmt, c) // time judges nothing: the timed command is what runs
	case *syntax.CoprocClause:
		if x.Name != nil {
			a.words(x.Name, c)
			a.coprocName(x.Name)
		}
		co := c
		co.stdin, co.hdoc = stdinPipe, nil // the shell writes to it at will
		a.stmt(x.Stmt, co)
	case *syntax.DeclClause:
		a.decl(x, c)
	case *syntax.LetClause:
		for _, e := range x.Exprs {
			a.arith(e, c)
			a.words(e, c)
		}
	case *syntax.TestClause:
		a.testExpr(x.X, c)
		a.words(x.X, c)
		a.testMentions(x.X, c)
	case *syntax.ArithmCmd:
		a.arith(x.X, c)
		a.words(x.X, c)
	case *syntax.TestDecl:
		a.words(x.Description, c)
		a.stmt(x.Body, c)
	default:
		a.failf("cannot analyse shell command: unsupported construct %T", cmd)
	}
}

// decl analyses declare, local, export, readonly, typeset and nameref:
// -n (name references) and -i (arithmetic on every assignment) are
// refused, -A marks associative arrays, whose subscripts are strings.
func (a *analyzer) decl(x *syntax.DeclClause, c ctx) {
	if x.Variant.Value == "nameref" {
		a.failf("the gate cannot tell what this runs: nameref makes a name stand for another variable")
		return
	}
	assoc := false
	for _, as := range x.Args {
		if as.Naked && as.Name == nil && as.Value != nil {
			if l, ok := staticWord(as.Value); ok && (strings.HasPrefix(l.s, "-") || strings.HasPrefix(l.s, "+")) {
				a.declFlags(x.Variant.Value, l.s)
				assoc = assoc || (l.s[0] == '-' && strings.Contains(l.s, "A"))
				continue
			}
		}
		if assoc && as.Name != nil {
			if a.assoc == nil {
				a.assoc = map[string]bool{}
			}
			a.assoc[as.Name.Value] = true
		}
		a.assign(as, c)
	}
}

// list handles a chain of && and ||, which the parser nests to the left
// (a && b || c is (a && b) || c), iteratively: a line of thousands of
// commands must not cost a recursion per command.
func (a *analyzer) list(x *syntax.BinaryCmd, c ctx) {
	var short [16]*syntax.BinaryCmd // most chains are short: no allocation for them
	chain := short[:0]
	if n := chainLen(x); n > len(short) {
		chain = make([]*syntax.BinaryCmd, 0, n) // a long line's chain is made once, not grown
	}
	for cur := x; cur != nil; cur = chainNext(cur) {
		chain = append(chain, cur)
	}
	first := chain[len(chain)-1] // its X is the line's first statement
	if first.Op == syntax.AndStmt {
		a.andThen(first, c)
	} else {
		a.stmt(first.X, c)
		a.stmt(first.Y, c)
	}
	for i := len(chain) - 2; i >= 0 && a.err == nil; i-- {
		a.lastCd = nil // the left operand is a list, never a plain cd
		a.stmt(chain[i].Y, c)
	}
}

// chainNext is the && or || list that is the left operand of x, or nil
// when its left operand is anything else.
func chainNext(x *syntax.BinaryCmd) *syntax.BinaryCmd {
	inner, ok := x.X.Cmd.(*syntax.BinaryCmd)
	if !ok || (inner.Op != syntax.AndStmt && inner.Op != syntax.OrStmt) || x.X.Negated ||
		x.X.Background || x.X.Coprocess || len(x.X.Redirs) > 0 {
		return nil
	}
	return inner
}

// chainLen is the number of lists list walks from x.
func chainLen(x *syntax.BinaryCmd) int {
	n := 0
	for cur := x; cur != nil; cur = chainNext(cur) {
		n++
	}
	return n
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

// call analyses a simple command.
func (a *analyzer) call(x *syntax.CallExpr, c ctx) {
	for _, as := range x.Assigns {
		wasNumber := as.Name != nil && a.numeric[as.Name.Value]
		a.assign(as, c)
		if len(x.Args) > 0 && as.Name != nil && !wasNumber {
			// n=5 cmd: n is 5 for cmd only, and what it was after.
			delete(a.numeric, as.Name.Value)
		}
	}
	if len(x.Args) == 0 {
		return
	}
	// Textual order: the command word, what it runs, then the
	// substitutions in its arguments.
	a.words(x.Args[0], c)
	a.run(x.Args, c)
	for _, w := range x.Args[1:] {
		a.words(w, c)
		a.mention(w, c)
	}
}

// maxOperands bounds the operands kept from one command line.
const maxOperands = 256
