package resources

import "mvdan.cc/sh/v3/syntax"

// parsePlain is the parse of a plain line: simple commands of plain words
// (plainWordBytes, and single- or double-quoted text that neither escapes
// nor expands), each perhaps with redirections to or from a word (>, >>,
// <, >&, <&, after a number or not), joined by pipes, "&&", "||", ";" and
// newlines; no assignment, and no first word that bash reads as a keyword
// or a declaration. For such a line it builds the tree mvdan.cc/sh's
// parser builds, node for node and position for position, in a handful
// of allocations instead of the parser's batches of 32 literals and 32
// words and its node per quote and per redirection (about 2.5 KB for a
// one-word line, 2.2 MB for a 64 KiB line of "&&" commands); any other
// line reports false and takes the parser. TestPlainParseMatchesParser
// and FuzzPlainParse hold the two equal.
func parsePlain(src string) (*syntax.File, bool) {
	if len(src) > maxPlainLine {
		return nil, false
	}
	n, ok := countPlain(src)
	if !ok {
		return nil, false
	}
	return buildPlain(src, &n), true
}

// maxPlainLine bounds the lines parsePlain takes. Positions saturate as
// the parser's do (a column past 16,383 and a line past 262,143 are 0),
// which TestPlainParseLongLines holds up to this size.
const maxPlainLine = 1 << 20

// plainCounts are the nodes of a plain line, counted before it is built.
type plainCounts struct {
	simpleWords, words, parts, lits, sgls, dbls int // simple words, and the others with their parts
	args, redirs, commands, binaries, stmts     int
}

func (n *plainCounts) addWord(s plainShape) {
	if s.simple {
		n.simpleWords++
		return
	}
	n.words++
	n.parts += s.parts
	n.lits += s.lits
	n.sgls += s.sgls
	n.dbls += s.dbls
}

// The places of countPlain's grammar.
const (
	plainAtStart    = iota // where a statement may start, or the line end
	plainInCommand         // after a command's word or redirection
	plainAfterOp           // after &&, || or |: a command must follow, newlines may come first
	plainAfterRedir        // after a redirection operator: its word must follow
)

// countPlain reports whether src is a plain line, and its nodes. It is
// the grammar: a command starts with a word (not a redirection) at the
// start of the line, after a newline, a ";" or an operator; an operator
// may be followed by newlines but must be followed by a command; a ";"
// must follow a command; a redirection operator is followed by its word
// on the same line; a line holds at least one command.
func countPlain(src string) (n plainCounts, ok bool) {
	place := plainAtStart
	var t plainToken
	for i := 0; ; {
		nextPlainToken(src, i, &t)
		i = t.end
		switch {
		case t.kind == plainEOF:
			if place == plainInCommand {
				n.stmts++
			}
			return n, (place == plainInCommand || place == plainAtStart) && n.commands > 0
		case t.kind == plainWord && place == plainInCommand:
			n.args++
			n.addWord(t.shape)
		case t.kind == plainWord && place == plainAfterRedir:
			n.addWord(t.shape)
			place = plainInCommand
		case t.kind == plainWord:
			if !plainCommandName(src[t.start:t.end]) {
				return n, false
			}
			n.args++
			n.commands++
			n.addWord(t.shape)
			place = plainInCommand
		case t.kind == plainNewl && (place == plainAtStart || place == plainAfterOp):
			// blank lines, and a newline after an operator, are skipped
		case place != plainInCommand:
			return n, false // not a word where a command or a redirection's word must be
		case t.kind == plainRedir:
			n.redirs++
			place = plainAfterRedir
		case t.kind == plainAnd || t.kind == plainOr || t.kind == plainPipe:
			n.binaries++
			place = plainAfterOp
		case t.kind == plainSemi || t.kind == plainNewl:
			n.stmts++
			place = plainAtStart
		default:
			return n, false
		}
	}
}
