package resources

import "mvdan.cc/sh/v3/syntax"

// The nodes of a plain line, allocated in blocks.
type (
	plainWordNode struct { // a simple word: one unquoted literal
		lit   syntax.Lit
		word  syntax.Word
		parts [1]syntax.WordPart
	}
	plainDbl struct {
		quoted syntax.DblQuoted
		parts  [1]syntax.WordPart
	}
	plainRedirect struct {
		redir syntax.Redirect
		num   syntax.Lit
	}
	plainCommand struct {
		stmt syntax.Stmt
		call syntax.CallExpr
	}
	plainBinary struct {
		stmt syntax.Stmt
		bin  syntax.BinaryCmd
	}
	plainHead struct {
		file syntax.File
		stmt [1]*syntax.Stmt
		one  [1]plainCommand
	}
)

// plainBuilder hands out the nodes of one plain line, in the order the
// line uses them, and knows the line and column of an offset.
type plainBuilder struct {
	src             string
	line, lineStart int
	simple          []plainWordNode
	words           []syntax.Word
	parts           []syntax.WordPart
	lits            []syntax.Lit
	sgls            []syntax.SglQuoted
	dbls            []plainDbl
	redirs          []plainRedirect
	commands        []plainCommand
	binaries        []plainBinary
	args            []*syntax.Word // every command's, one after another
	redirPtrs       []*syntax.Redirect
	nargs, nredirs  int
}

// init readies b for src, whose nodes n counted. b lives on its caller's
// stack: only the blocks it hands out are allocated.
func (b *plainBuilder) init(src string, n *plainCounts, h *plainHead) {
	*b = plainBuilder{src: src, line: 1, commands: h.one[:]}
	b.simple = makeIf[plainWordNode](n.simpleWords)
	b.words, b.parts = makeIf[syntax.Word](n.words), makeIf[syntax.WordPart](n.parts)
	b.lits, b.sgls, b.dbls = makeIf[syntax.Lit](n.lits), makeIf[syntax.SglQuoted](n.sgls), makeIf[plainDbl](n.dbls)
	b.redirs, b.redirPtrs = makeIf[plainRedirect](n.redirs), makeIf[*syntax.Redirect](n.redirs)
	if n.commands > 1 {
		b.commands = make([]plainCommand, n.commands)
	}
	b.binaries = makeIf[plainBinary](n.binaries)
	b.args = make([]*syntax.Word, n.args)
}

// makeIf is make([]T, n), or nil for none: most lines need few kinds of node.
func makeIf[T any](n int) []T {
	if n == 0 {
		return nil
	}
	return make([]T, n)
}

func (b *plainBuilder) pos(off int) syntax.Pos {
	return syntax.NewPos(uint(off), uint(b.line), uint(off-b.lineStart+1))
}

func (b *plainBuilder) lit(start, end int) *syntax.Lit {
	l := &b.lits[0]
	b.lits = b.lits[1:]
	*l = syntax.Lit{ValuePos: b.pos(start), ValueEnd: b.pos(end), Value: b.src[start:end]}
	return l
}

// word builds the word of token t.
func (b *plainBuilder) word(t plainToken) *syntax.Word {
	if t.shape.simple {
		w := &b.simple[0]
		b.simple = b.simple[1:]
		w.lit = syntax.Lit{ValuePos: b.pos(t.start), ValueEnd: b.pos(t.end), Value: b.src[t.start:t.end]}
		w.parts[0] = &w.lit
		w.word.Parts = w.parts[:]
		return &w.word
	}
	w := &b.words[0]
	b.words = b.words[1:]
	w.Parts = b.parts[:t.shape.parts:t.shape.parts]
	b.parts = b.parts[t.shape.parts:]
	src := b.src
	for i, k := t.start, 0; i < t.end; k++ {
		c := src[i]
		if c != '\'' && c != '"' {
			j := i
			for j < t.end && plainWordBytes[src[j]] {
				j++
			}
			w.Parts[k] = b.lit(i, j)
			i = j
			continue
		}
		j := i + 1
		for src[j] != c {
			j++
		}
		w.Parts[k] = b.quoted(c, i, j)
		i = j + 1
	}
	return w
}

// quoted builds the quoted part from offset open to offset closing.
func (b *plainBuilder) quoted(c byte, open, closing int) syntax.WordPart {
	if c == '\'' {
		q := &b.sgls[0]
		b.sgls = b.sgls[1:]
		*q = syntax.SglQuoted{Left: b.pos(open), Right: b.pos(closing), Value: b.src[open+1 : closing]}
		return q
	}
	d := &b.dbls[0]
	b.dbls = b.dbls[1:]
	d.quoted = syntax.DblQuoted{Left: b.pos(open), Right: b.pos(closing)}
	if closing > open+1 { // the parser gives "" no parts
		d.parts[0] = b.lit(open+1, closing)
		d.quoted.Parts = d.parts[:]
	}
	return &d.quoted
}

// redirect builds the redirection of token t, its word to come.
func (b *plainBuilder) redirect(t plainToken) *syntax.Redirect {
	r := &b.redirs[0]
	b.redirs = b.redirs[1:]
	r.redir = syntax.Redirect{OpPos: b.pos(t.start), Op: t.op}
	if t.num >= 0 {
		r.num = syntax.Lit{ValuePos: b.pos(t.num), ValueEnd: b.pos(t.start), Value: b.src[t.num:t.start]}
		r.redir.N = &r.num
	}
	b.redirPtrs[b.nredirs] = &r.redir
	b.nredirs++
	return &r.redir
}

// binary joins x and y by the operator t, as the parser does: a
// statement of its own at x's position.
func (b *plainBuilder) binary(t plainOp, x, y *syntax.Stmt) *syntax.Stmt {
	op := syntax.Pipe
	switch t.kind {
	case plainAnd:
		op = syntax.AndStmt
	case plainOr:
		op = syntax.OrStmt
	}
	n := &b.binaries[0]
	b.binaries = b.binaries[1:]
	n.bin = syntax.BinaryCmd{OpPos: t.pos, Op: op, X: x, Y: y}
	n.stmt = syntax.Stmt{Cmd: &n.bin, Position: x.Position}
	return &n.stmt
}

// plainList is where buildPlain is in the line: the command being read,
// the pipeline it belongs to, the && and || list that pipeline belongs
// to, and the operators waiting for their right operand.
type plainList struct {
	cmd                  *plainCommand
	firstArg, firstRedir int
	redir                *syntax.Redirect // waiting for its word
	pipe, list           *syntax.Stmt
	pipeOp, listOp       plainOp
}

// plainOp is an operator waiting for its right operand: its kind (0,
// plainBad, when none waits) and its position, taken where it is (a
// newline may come before the operand).
type plainOp struct {
	kind int
	pos  syntax.Pos
}

// buildPlain builds the parser's tree of the plain line src, whose nodes
// countPlain counted. As the parser does, a pipeline is a left-leaning
// chain of binary commands, and so is a run of && and || over pipelines,
// each binary command with a statement of its own at the position of its
// first command; a ";" is the position of the statement it ends;
// redirections belong to their command's statement.
func buildPlain(src string, n *plainCounts) *syntax.File {
	h := &plainHead{}
	var b plainBuilder
	b.init(src, n, h)
	stmts := h.stmt[:]
	if n.stmts > 1 {
		stmts = make([]*syntax.Stmt, n.stmts)
	}
	var l plainList
	ns := 0
	var t plainToken
	for i := 0; ; {
		nextPlainToken(src, i, &t)
		i = t.end
		switch t.kind {
		case plainWord:
			b.addWord(&l, t)
			continue
		case plainRedir:
			l.redir = b.redirect(t)
			continue
		}
		b.endCommand(&l)
		if t.kind != plainPipe && l.pipe != nil && l.pipeOp.kind == plainBad {
			l.list, l.pipe = b.join(l.listOp, l.list, l.pipe), nil
			l.listOp.kind = plainBad
		}
		switch t.kind {
		case plainPipe:
			l.pipeOp = plainOp{t.kind, b.pos(t.start)}
		case plainAnd, plainOr:
			l.listOp = plainOp{t.kind, b.pos(t.start)}
		case plainSemi:
			l.list.Semicolon = b.pos(t.start)
			stmts[ns], l.list = l.list, nil
			ns++
		case plainNewl, plainEOF:
			if l.list != nil && l.listOp.kind == plainBad {
				stmts[ns], l.list = l.list, nil
				ns++
			}
			if t.kind == plainEOF {
				h.file.Stmts = stmts
				return &h.file
			}
			b.line, b.lineStart = b.line+1, t.end
		}
	}
}

// addWord adds the word of token t to the command, or to the redirection
// waiting for it.
func (b *plainBuilder) addWord(l *plainList, t plainToken) {
	w := b.word(t)
	if l.redir != nil {
		l.redir.Word, l.redir = w, nil
		return
	}
	if l.cmd == nil {
		l.cmd = &b.commands[0]
		b.commands = b.commands[1:]
		l.firstArg, l.firstRedir = b.nargs, b.nredirs
	}
	b.args[b.nargs] = w
	b.nargs++
}

// endCommand ends the command being read, if any, and adds it to its
// pipeline.
func (b *plainBuilder) endCommand(l *plainList) {
	if l.cmd == nil {
		return
	}
	c := l.cmd
	c.call.Args = b.args[l.firstArg:b.nargs:b.nargs]
	c.stmt = syntax.Stmt{Cmd: &c.call, Position: c.call.Args[0].Pos()}
	if b.nredirs > l.firstRedir {
		c.stmt.Redirs = b.redirPtrs[l.firstRedir:b.nredirs:b.nredirs]
	}
	l.pipe, l.cmd = b.join(l.pipeOp, l.pipe, &c.stmt), nil
	l.pipeOp.kind = plainBad
}

// join is y, or x joined to y by the waiting operator op.
func (b *plainBuilder) join(op plainOp, x, y *syntax.Stmt) *syntax.Stmt {
	if op.kind == plainBad {
		return y
	}
	return b.binary(op, x, y)
}
