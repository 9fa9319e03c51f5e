package resources

import "mvdan.cc/sh/v3/syntax"

// parsePlain is the parse of a line that is one simple command of plain
// words: bytes from plainWordBytes separated by spaces or tabs, no
// assignment, and a first word that bash does not read as a keyword or a
// declaration. For such a line it builds the tree mvdan.cc/sh's parser
// builds, node for node and position for position, in three allocations
// instead of its batches of 32 literals and 32 words (about 2.5 KB a
// parse); any other line reports false and takes the parser.
// TestPlainParseMatchesParser and FuzzPlainParse hold the two equal.
func parsePlain(src string) (*syntax.File, bool) {
	if len(src) > maxPlainLine {
		return nil, false
	}
	words, first, firstEnd := 0, -1, -1
	for i := 0; i < len(src); {
		c := src[i]
		if c == ' ' || c == '\t' {
			i++
			continue
		}
		start := i
		for i < len(src) && plainWordBytes[src[i]] {
			i++
		}
		if i == start || (i < len(src) && src[i] != ' ' && src[i] != '\t') {
			return nil, false // a byte the parser may read as more than a letter
		}
		if words == 0 {
			first, firstEnd = start, i
		}
		words++
	}
	if words == 0 || !plainCommandName(src[first:firstEnd]) {
		return nil, false
	}
	// One block for the file, the statement and the call; one for every
	// word with its literal; one for the arguments.
	type wordNode struct {
		lit   syntax.Lit
		word  syntax.Word
		parts [1]syntax.WordPart
	}
	type head struct {
		file  syntax.File
		stmt  syntax.Stmt
		call  syntax.CallExpr
		stmts [1]*syntax.Stmt
	}
	h := &head{}
	nodes := make([]wordNode, words)
	args := make([]*syntax.Word, words)
	n := 0
	for i := 0; i < len(src); {
		if src[i] == ' ' || src[i] == '\t' {
			i++
			continue
		}
		start := i
		for i < len(src) && src[i] != ' ' && src[i] != '\t' {
			i++
		}
		w := &nodes[n]
		w.lit = syntax.Lit{ValuePos: linePos(start), ValueEnd: linePos(i), Value: src[start:i]}
		w.parts[0] = &w.lit
		w.word.Parts = w.parts[:]
		args[n] = &w.word
		n++
	}
	h.call.Args = args
	h.stmt = syntax.Stmt{Cmd: &h.call, Position: args[0].Parts[0].Pos()}
	h.stmts[0] = &h.stmt
	h.file.Stmts = h.stmts[:]
	return &h.file, true
}

// maxPlainLine bounds the lines parsePlain takes: far below the column
// where the parser's positions stop counting, and longer lines are not
// the ordinary ones.
const maxPlainLine = 1024

// linePos is the position of byte offset off on the first line.
func linePos(off int) syntax.Pos { return syntax.NewPos(uint(off), 1, uint(off)+1) }

// plainWordBytes are the bytes a plain word is made of: none of them
// starts a quote, an expansion, a comment, a redirection, an operator, a
// group or an extended glob in bash (those need a quote, $, #, <, >, |,
// &, ;, (, ), {, }, [, ], !, a backslash or a newline, none of which is
// here). "=" is taken outside the first word only (plainCommandName), so
// that no word is an assignment.
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

// plainCommandName reports whether the first word of a plain line is read
// by the parser as a command name: not an assignment and not a word bash
// reads as a keyword or a declaration at the start of a command.
func plainCommandName(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] == '=' {
			return false
		}
	}
	return !plainReserved[w]
}

// plainReserved are the first words the parser gives a node of their own
// (a clause, a declaration, a test, a time or coproc prefix) or refuses
// where a command starts; "else" and "in" are listed as well, to be sure.
var plainReserved = map[string]bool{
	"if": true, "then": true, "elif": true, "else": true, "fi": true, "while": true, "until": true,
	"for": true, "in": true, "do": true, "done": true, "case": true, "esac": true, "select": true,
	"function": true, "time": true, "coproc": true, "let": true, "declare": true, "local": true,
	"export": true, "readonly": true, "typeset": true, "nameref": true, "{": true, "}": true,
	"!": true, "[[": true, "]]": true, "@test": true,
}
