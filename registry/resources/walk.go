package resources

import (
	"path"
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

// maxOperands bounds the operands kept from one command line.
const maxOperands = 256
