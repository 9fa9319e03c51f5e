package resources

import "mvdan.cc/sh/v3/syntax"

// parsePlain is the parse of a line that is a list of simple commands of
// plain words: bytes from plainWordBytes separated by spaces or tabs, no
// assignment, a first word that bash does not read as a keyword or a
// declaration, the commands joined by "&&", "||", ";" and newlines. For
// such a line it builds the tree mvdan.cc/sh's parser builds, node for
// node and position for position, in a handful of allocations instead of
// its batches of 32 literals and 32 words (about 2.5 KB a parse, and 2.2
// MB for a 64 KiB line of "&&" commands); any other line reports false
// and takes the parser. TestPlainParseMatchesParser and FuzzPlainParse
// hold the two equal.
func parsePlain(src string) (*syntax.File, bool) {
	if len(src) > maxPlainLine {
		return nil, false
	}
	n, ok := countPlain(src)
	if !ok {
		return nil, false
	}
	return buildPlain(src, n), true
}

// maxPlainLine bounds the lines parsePlain takes. Positions saturate as
// the parser's do (a column past 16,383 and a line past 262,143 are 0),
// which TestPlainParseLongLines holds up to this size.
const maxPlainLine = 1 << 20

// The tokens of a plain line.
const (
	plainBad  = iota // a byte the parser may read as more than a letter
	plainEOF         // the end of the line
	plainWord        // a run of plainWordBytes
	plainAnd         // &&
	plainOr          // ||
	plainSemi        // ;
	plainNewl        // \n
)

// nextPlainToken is the token at or after offset i of src, past spaces
// and tabs: its kind, and where it starts and ends.
func nextPlainToken(src string, i int) (kind, start, end int) {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	if i == len(src) {
		return plainEOF, i, i
	}
	start = i
	switch c := src[i]; {
	case plainWordBytes[c]:
		for i < len(src) && plainWordBytes[src[i]] {
			i++
		}
		return plainWord, start, i
	case c == '\n':
		return plainNewl, start, i + 1
	case c == ';':
		return plainSemi, start, i + 1
	case c == '&' && i+1 < len(src) && src[i+1] == '&':
		return plainAnd, start, i + 2
	case c == '|' && i+1 < len(src) && src[i+1] == '|':
		return plainOr, start, i + 2
	}
	return plainBad, start, i
}

// plainCounts are the nodes of a plain line, counted before it is built.
type plainCounts struct {
	words, commands, ops, stmts int
}

// countPlain reports whether src is a plain line, and its nodes. It is
// the grammar: a command starts after the start of the line, a newline,
// a ";" or an operator; an operator may be followed by newlines but must
// be followed by a command; a ";" must follow a command; a line holds at
// least one command.
func countPlain(src string) (n plainCounts, ok bool) {
	const (
		atStart   = iota // where a statement may start, or the line end
		inCommand        // after a command's word
		afterOp          // after && or ||: a command must follow
	)
	state := atStart
	for i := 0; ; {
		kind, start, end := nextPlainToken(src, i)
		i = end
		switch {
		case kind == plainEOF:
			if state == inCommand {
				n.stmts++
			}
			return n, state != afterOp && n.commands > 0
		case kind == plainWord && state == inCommand:
			n.words++
		case kind == plainWord:
			if !plainCommandName(src[start:end]) {
				return n, false
			}
			n.words++
			n.commands++
			state = inCommand
		case kind == plainNewl && state != inCommand:
			// blank lines, and a newline after an operator, are skipped
		case state != inCommand:
			return n, false // an operator, ";", the end or a bad byte where a command must be
		case kind == plainAnd || kind == plainOr:
			n.ops++
			state = afterOp
		case kind == plainSemi || kind == plainNewl:
			n.stmts++
			state = atStart
		default:
			return n, false
		}
	}
}

// The nodes of a plain line, allocated in blocks.
type (
	plainWordNode struct {
		lit   syntax.Lit
		word  syntax.Word
		parts [1]syntax.WordPart
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

// buildPlain builds the parser's tree of the plain line src, whose nodes
// countPlain counted. As the parser does, a run of && and || is one
// statement whose command is a left-leaning chain of binary commands,
// each with a statement of its own at the position of its first command;
// a ";" is the position of the statement it ends.
func buildPlain(src string, n plainCounts) *syntax.File {
	h := &plainHead{}
	words := make([]plainWordNode, n.words)
	args := make([]*syntax.Word, n.words)
	commands := h.one[:]
	if n.commands > 1 {
		commands = make([]plainCommand, n.commands)
	}
	var binaries []plainBinary
	if n.ops > 0 {
		binaries = make([]plainBinary, n.ops)
	}
	stmts := h.stmt[:]
	if n.stmts > 1 {
		stmts = make([]*syntax.Stmt, n.stmts)
	}
	line, lineStart := 1, 0
	pos := func(off int) syntax.Pos { return syntax.NewPos(uint(off), uint(line), uint(off-lineStart+1)) }
	var (
		cur       *syntax.Stmt // the statement being built
		cmd       *plainCommand
		firstArg  int
		op        syntax.BinCmdOperator
		opPos     syntax.Pos
		opPending bool
	)
	nw, nc, nb, ns := 0, 0, 0, 0
	for i := 0; ; {
		kind, start, end := nextPlainToken(src, i)
		i = end
		if kind == plainWord {
			if cmd == nil {
				cmd, firstArg = &commands[nc], nw
				nc++
			}
			w := &words[nw]
			w.lit = syntax.Lit{ValuePos: pos(start), ValueEnd: pos(end), Value: src[start:end]}
			w.parts[0] = &w.lit
			w.word.Parts = w.parts[:]
			args[nw] = &w.word
			nw++
			continue
		}
		if cmd != nil { // the command ends here
			cmd.call.Args = args[firstArg:nw:nw]
			cmd.stmt = syntax.Stmt{Cmd: &cmd.call, Position: args[firstArg].Parts[0].Pos()}
			if opPending {
				b := &binaries[nb]
				nb++
				b.bin = syntax.BinaryCmd{OpPos: opPos, Op: op, X: cur, Y: &cmd.stmt}
				b.stmt = syntax.Stmt{Cmd: &b.bin, Position: cur.Position}
				cur, opPending = &b.stmt, false
			} else {
				cur = &cmd.stmt
			}
			cmd = nil
		}
		switch kind {
		case plainAnd, plainOr:
			op, opPos, opPending = syntax.AndStmt, pos(start), true
			if kind == plainOr {
				op = syntax.OrStmt
			}
		case plainSemi:
			cur.Semicolon = pos(start)
			stmts[ns], cur = cur, nil
			ns++
		case plainNewl, plainEOF:
			if cur != nil && !opPending {
				stmts[ns], cur = cur, nil
				ns++
			}
			if kind == plainEOF {
				h.file.Stmts = stmts
				return &h.file
			}
			line, lineStart = line+1, end
		}
	}
}

// plainWordBytes are the bytes a plain word is made of: none of them
// starts a quote, an expansion, a comment, a redirection, an operator, a
// group or an extended glob in bash (those need a quote, $, #, <, >, |,
// &, ;, (, ), {, }, [, ], !, a backslash or a newline, none of which is
// here). "=" is taken outside a command's first word only
// (plainCommandName), so that no word is an assignment.
var plainWordBytes = func() (s byteSet) {
	for c := 'a'; c <= 'z'; c++ {
		s[c] = true
	}
	for c := 'A'; c <= 'Z'; c++ {
		s[c] = true
	}
	for c := '0'; c <= '9'; c++ {
		s[c] = true
	}
	for _, c := range []byte("_-./,:+@%^~*?=") {
		s[c] = true
	}
	return s
}()

// plainCommandName reports whether the first word of a plain command is
// read by the parser as a command name: not an assignment and not a word
// bash reads as a keyword or a declaration at the start of a command.
func plainCommandName(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] == '=' {
			return false
		}
	}
	return !plainReserved(w)
}

// plainReserved reports the first words the parser gives a node of their
// own (a clause, a declaration, a test, a time or coproc prefix) or
// refuses where a command starts; "else" and "in" are listed as well, to
// be sure. A switch, not a map: it is asked once a command, and hashing
// the word cost more than the rest of the command's parse.
func plainReserved(w string) bool {
	switch w {
	case "if", "then", "elif", "else", "fi", "while", "until", "for", "in", "do", "done", "case", "esac",
		"select", "function", "time", "coproc", "let", "declare", "local", "export", "readonly", "typeset",
		"nameref", "{", "}", "!", "[[", "]]", "@test":
		return true
	}
	return false
}
