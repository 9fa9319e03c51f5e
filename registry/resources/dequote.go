package resources

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxDequoted bounds the text dequotedWords builds for one line (a
// variable doubled on every assignment would otherwise grow without end).
const maxDequoted = 128 << 10

// maxDequotedVar bounds what one variable's value contributes.
const maxDequotedVar = 4 << 10

// dequotedWords is the text of f's words that the shell would pass with
// their quoting removed, where that differs from how they are written:
// "gh""p_x", $'\x67hp_x', gh\p_x and x=ghp_; echo ${x}rest all pass
// ghp_…, which the secret scan of the written line cannot see. A
// parameter expansion is replaced by the static value the line gave the
// variable before, if any, else by nothing (so the parts around it are
// joined, as they would be when it is empty); any other expansion joins
// its neighbours likewise. One word per line. It over-approximates, as
// the secret scan does: it is only ever scanned, never judged.
func dequotedWords(f *syntax.File) string {
	return dequote(f, false, '\n')
}

// DequotedLine is every word of the shell line src with its quoting
// removed, as dequotedWords makes them, separated by spaces: what a human
// is shown of a line whose credential only its dequoted words reveal (the
// written line shows it in pieces no detector masks). "" when src does
// not parse.
//
// A word that still holds quoting once dequoted (the script of bash -c,
// sh -c, eval) is shown dequoted in turn, a few levels deep: this is
// for showing, so taking any word for a script over-approximates safely.
func DequotedLine(src string) string { return dequotedLine(src, 0) }

func dequotedLine(src string, depth int) string {
	f, err := parseBash(src)
	if err != nil {
		return ""
	}
	words := strings.Split(strings.TrimSpace(dequote(f, true, '\n')), "\n")
	for i, w := range words {
		if depth < 3 && !wordsAsWritten(w) {
			if inner := dequotedLine(w, depth+1); inner != "" {
				words[i] = inner
			}
		}
	}
	return strings.Join(words, " ")
}

// dequote writes f's words, each followed by sep: all of them, or only
// those not passed as written.
func dequote(f *syntax.File, all bool, sep byte) string {
	d := dequoter{vars: map[string]string{}}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Assign:
			if n.Name != nil && n.Value != nil && !n.Append {
				d.vars[n.Name.Value] = d.capped(d.word(n.Value))
			}
		case *syntax.Word:
			if (!all && written(n)) || d.b.Len() > maxDequoted {
				return true
			}
			d.b.WriteString(d.word(n))
			d.b.WriteByte(sep)
		}
		return true
	})
	return d.b.String()
}

type dequoter struct {
	vars map[string]string
	b    strings.Builder
}

func (d *dequoter) capped(s string) string {
	if len(s) > maxDequotedVar {
		return s[:maxDequotedVar]
	}
	return s
}

// written: w is one plain literal without escapes, passed as written.
func written(w *syntax.Word) bool {
	if len(w.Parts) != 1 {
		return false
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	return ok && strings.IndexByte(l.Value, '\\') < 0
}

// word is w with its quoting removed and its expansions replaced.
func (d *dequoter) word(w *syntax.Word) string {
	if written(w) {
		// One literal without a backslash is its own value (most words):
		// no copy.
		return w.Parts[0].(*syntax.Lit).Value
	}
	var s strings.Builder
	for _, part := range w.Parts {
		if s.Len() > maxDequotedVar*4 {
			break
		}
		switch p := part.(type) {
		case *syntax.Lit:
			var l lit
			addUnquoted(&l, p.Value)
			s.WriteString(l.s)
		case *syntax.SglQuoted:
			if p.Dollar {
				s.WriteString(ansiC(p.Value))
			} else {
				s.WriteString(p.Value)
			}
		case *syntax.DblQuoted:
			for _, dp := range p.Parts {
				switch q := dp.(type) {
				case *syntax.Lit:
					s.WriteString(unescapeDouble(q.Value, true))
				case *syntax.ParamExp:
					s.WriteString(d.param(q))
				}
			}
		case *syntax.ParamExp:
			s.WriteString(d.param(p))
		}
	}
	return s.String()
}

// param is the static value of a plain $NAME or ${NAME}, "" otherwise.
func (d *dequoter) param(p *syntax.ParamExp) string {
	if p.Param == nil || p.Index != nil || p.Exp != nil || p.Repl != nil || p.Slice != nil || p.Length || p.Width || p.Excl {
		return ""
	}
	return d.vars[p.Param.Value]
}
