package resources

import "mvdan.cc/sh/v3/syntax"

// The tokens of a plain line.
const (
	plainBad   = iota // a byte the parser may read as more than a letter
	plainEOF          // the end of the line
	plainWord         // a word of plain bytes and simple quotes
	plainAnd          // &&
	plainOr           // ||
	plainPipe         // |
	plainSemi         // ;
	plainNewl         // \n
	plainRedir        // >, >>, <, >& or <&, perhaps after a number
)

// plainToken is one token of a plain line: its kind and where it starts
// and ends; for a word its shape, for a redirection its operator and
// where the number before it starts (-1 when there is none; the number
// is src[num:start]).
type plainToken struct {
	kind, start, end int
	shape            plainShape
	op               syntax.RedirOperator
	num              int
}

// plainShape is what a plain word is made of.
type plainShape struct {
	parts, lits, sgls, dbls int
	simple                  bool // one unquoted literal
}

// nextPlainToken reads into t the token at or after offset i of src,
// past spaces and tabs. It fills t rather than returning one: the token
// is read twice for every word of a line, and copying it cost more than
// reading a short word.
func nextPlainToken(src string, i int, t *plainToken) {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	t.kind, t.start, t.end, t.num = plainBad, i, i, -1
	if i == len(src) {
		t.kind = plainEOF
		return
	}
	switch c := src[i]; {
	case plainWordBytes[c]:
		j := i + 1
		for j < len(src) && plainWordBytes[src[j]] {
			j++
		}
		if j == len(src) || plainWordEnd[src[j]] { // one unquoted literal: most words
			if j < len(src) && (src[j] == '>' || src[j] == '<') && isDigits(src[i:j]) {
				plainRedirAt(src, j, t) // the number is the redirection's
				t.num = i
				return
			}
			t.kind, t.end, t.shape = plainWord, j, plainShape{parts: 1, lits: 1, simple: true}
			return
		}
		fallthrough
	case c == '\'' || c == '"':
		end, shape, ok := scanPlainWord(src, i)
		if ok {
			t.kind, t.end, t.shape = plainWord, end, shape
		}
	case c == '\n':
		t.kind, t.end = plainNewl, i+1
	case c == ';':
		t.kind, t.end = plainSemi, i+1
	case c == '&':
		if i+1 < len(src) && src[i+1] == '&' {
			t.kind, t.end = plainAnd, i+2
		}
	case c == '|':
		t.kind, t.end = plainPipe, i+1
		if i+1 < len(src) && src[i+1] == '|' {
			t.kind, t.end = plainOr, i+2
		}
	case c == '>' || c == '<':
		plainRedirAt(src, i, t)
	}
}

// plainRedirAt is the redirection operator at offset i: >, >>, <, >& or
// <&. Any other (>|, <<, <<<, <>, a process substitution) is plainBad.
func plainRedirAt(src string, i int, t *plainToken) {
	t.kind, t.start, t.end, t.num = plainRedir, i, i+1, -1
	var next byte
	if i+1 < len(src) {
		next = src[i+1]
	}
	switch {
	case src[i] == '>' && next == '>':
		t.op, t.end = syntax.AppOut, i+2
	case src[i] == '>' && next == '&':
		t.op, t.end = syntax.DplOut, i+2
	case src[i] == '<' && next == '&':
		t.op, t.end = syntax.DplIn, i+2
	case next == '>' || next == '<' || next == '|' || next == '(':
		t.kind = plainBad
	case src[i] == '>':
		t.op = syntax.RdrOut
	default:
		t.op = syntax.RdrIn
	}
}

// scanPlainWord reads the word at offset i: runs of plainWordBytes,
// single-quoted text and double-quoted text without a backslash, a $ or
// a backquote, none of it holding a newline, a control byte or a
// non-ASCII byte. It must end where a word ends for the parser (a blank,
// a newline, ;, &, |, > or <, or the end of the line).
func scanPlainWord(src string, i int) (end int, s plainShape, ok bool) {
	start, unquoted := i, true
	for i < len(src) {
		c := src[i]
		switch {
		case plainWordBytes[c]:
			j := i
			for j < len(src) && plainWordBytes[src[j]] {
				j++
			}
			s.parts++
			s.lits++
			i = j
		case c == '\'' || c == '"':
			inside := &quotedBytes[0]
			if c == '"' {
				inside = &quotedBytes[1]
			}
			j := i + 1
			for j < len(src) && src[j] != c && inside[src[j]] {
				j++
			}
			if j == len(src) || src[j] != c {
				return i, s, false
			}
			s.parts++
			if c == '\'' {
				s.sgls++
			} else {
				s.dbls++
				if j > i+1 {
					s.lits++
				}
			}
			unquoted = false
			i = j + 1
		default:
			if !plainWordEnd[c] {
				return i, s, false
			}
			return finishPlainWord(src, start, i, s, unquoted)
		}
	}
	return finishPlainWord(src, start, i, s, unquoted)
}

func finishPlainWord(src string, start, end int, s plainShape, unquoted bool) (int, plainShape, bool) {
	s.simple = unquoted && s.parts == 1
	return end, s, true
}

// plainWordEnd are the bytes that end a word for the parser and start a
// token a plain line may hold.
var plainWordEnd = newByteSet(" \t\n;&|<>")

// quotedBytes are the bytes single quotes ([false]) and double quotes
// ([true]) may hold in a plain word: printable ASCII, spaces and tabs;
// double quotes not a backslash, a $ or a backquote, which escape or
// expand there.
var quotedBytes = func() (s [2]byteSet) {
	for c := ' '; c <= '~'; c++ {
		s[0][c], s[1][c] = true, true
	}
	s[0]['\t'], s[1]['\t'] = true, true
	s[1]['\\'], s[1]['$'], s[1]['`'] = false, false, false
	return s
}()

// plainWordBytes are the bytes of an unquoted run in a plain word: none
// of them starts a quote, an expansion, a comment, a redirection, an
// operator, a group or an extended glob in bash (those need a quote, $,
// #, <, >, |, &, ;, (, ), {, }, [, ], !, a backslash or a newline, none of
// which is here). "=" is taken outside a command's first word only
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
// Only its leading unquoted run is looked at, which is what the parser
// looks at.
func plainCommandName(w string) bool {
	i := 0
	for i < len(w) && plainWordBytes[w[i]] {
		if w[i] == '=' {
			return false
		}
		i++
	}
	return !plainReserved(w[:i])
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
