package resources

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// lit is the statically known value of one shell word. For every byte of s,
// quoted records whether it came from a quoted or escaped context; unquoted
// bytes are the ones bash would still subject to brace, tilde and pathname
// expansion.
type lit struct {
	s      string
	quoted []bool
}

func (l *lit) add(s string, quoted bool) {
	bits := unquotedBits[:]
	if quoted {
		bits = quotedBits[:]
	}
	if l.s == "" && len(s) <= len(bits) {
		// The first part of a word, the only one of most: share the
		// read-only bits (the capacity ends at len(s), so an append
		// copies them).
		l.s, l.quoted = s, bits[:len(s):len(s)]
		return
	}
	l.s += s
	for len(s) > len(bits) {
		l.quoted = append(l.quoted, bits...)
		s = s[len(bits):]
	}
	l.quoted = append(l.quoted, bits[:len(s)]...)
}

// unquotedBits and quotedBits are never written: lit.quoted slices of them
// are read, and copied by append.
var unquotedBits, quotedBits = [256]bool{}, func() (b [256]bool) {
	for i := range b {
		b[i] = true
	}
	return b
}()

// staticWord returns the value bash would give w, provided that value does not
// depend on run-time state. ok is false when any part of the word is an
// expansion: $param, ${…}, $(…), `…`, $((…)), <(…), an extended glob such as
// @(…), or a $"…" locale string (a message catalogue could translate it into
// anything).
//
// Quote removal is done here: 'x' and "x" are literal, \x is x outside
// quotes, $'…' is decoded as ANSI-C quoting. Brace, tilde and pathname
// expansion are not performed; the caller decides what to do with the
// unquoted metacharacters (see hasGlob, hasBraces, tildeUser).
func staticWord(w *syntax.Word) (l lit, ok bool) {
	if w == nil {
		return l, false
	}
	if len(w.Parts) == 1 {
		// Most words are one plain literal: its value is itself, all of
		// it unquoted (what staticParts gives, without its calls).
		if p, ok := w.Parts[0].(*syntax.Lit); ok && len(p.Value) <= len(unquotedBits) && strings.IndexByte(p.Value, '\\') < 0 {
			return lit{s: p.Value, quoted: unquotedBits[:len(p.Value):len(p.Value)]}, true
		}
	}
	return staticParts(w)
}

// staticParts is staticWord part by part.
func staticParts(w *syntax.Word) (l lit, ok bool) {
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			addUnquoted(&l, p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				l.add(ansiC(p.Value), true)
			} else {
				l.add(p.Value, true)
			}
		case *syntax.DblQuoted:
			if p.Dollar {
				return l, false
			}
			for _, dp := range p.Parts {
				dl, isLit := dp.(*syntax.Lit)
				if !isLit {
					return l, false
				}
				l.add(unescapeDouble(dl.Value, true), true)
			}
		default:
			return l, false
		}
	}
	return l, true
}

// addUnquoted appends an unquoted literal, removing backslash escapes: \c is a
// quoted c, and a backslash-newline pair disappears.
func addUnquoted(l *lit, v string) {
	start := 0
	for i := 0; i < len(v); i++ {
		if v[i] != '\\' {
			// Jump to the next backslash (most words have none).
			j := strings.IndexByte(v[i:], '\\')
			if j < 0 {
				break
			}
			i += j
		}
		l.add(v[start:i], false)
		if i+1 >= len(v) { // a trailing lone backslash stays
			l.add(`\`, true)
			start = len(v)
			break
		}
		if v[i+1] != '\n' {
			l.add(v[i+1:i+2], true)
		}
		i++
		start = i + 1
	}
	if start < len(v) {
		l.add(v[start:], false)
	}
}

// unescapeDouble removes the backslashes that are escapes inside double quotes
// (before $ ` \ newline and, when dquote is true, "). Here-document bodies use
// dquote=false: a backslash before " is kept there.
func unescapeDouble(v string, dquote bool) string {
	if !strings.Contains(v, `\`) {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '\\' && i+1 < len(v) {
			switch n := v[i+1]; {
			case n == '$' || n == '`' || n == '\\' || (n == '"' && dquote):
				b.WriteByte(n)
				i++
				continue
			case n == '\n':
				i++
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// ansiC decodes the body of a $'…' string the way bash does: \a \b \e \E \f
// \n \r \t \v \\ \' \" \?, \NNN (octal), \xHH, \uHHHH, \UHHHHHHHH and \cX.
// Unknown escapes keep their backslash. Bash ends the string at a NUL byte, and
// so does this function.
func ansiC(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c != '\\' || i+1 >= len(v) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := v[i]; e {
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'e', 'E':
			b.WriteByte(27)
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '\\', '\'', '"', '?':
			b.WriteByte(e)
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(v) && j < i+3 && v[j] >= '0' && v[j] <= '7' {
				j++
			}
			n, _ := strconv.ParseUint(v[i:j], 8, 32)
			b.WriteByte(byte(n)) // bash keeps the low eight bits
			i = j - 1
		case 'x', 'u', 'U':
			maxDigits := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			j := i + 1
			for j < len(v) && j < i+1+maxDigits && isHex(v[j]) {
				j++
			}
			if j == i+1 { // no digits: the escape stays as written
				b.WriteByte('\\')
				b.WriteByte(e)
				continue
			}
			n, _ := strconv.ParseUint(v[i+1:j], 16, 32)
			if e == 'x' {
				b.WriteByte(byte(n))
			} else if r := rune(n); utf8.ValidRune(r) {
				b.WriteRune(r)
			} else {
				b.WriteRune(utf8.RuneError)
			}
			i = j - 1
		case 'c':
			if i+1 < len(v) {
				i++
				b.WriteByte(v[i] & 0x1f)
			} else {
				b.WriteString(`\c`)
			}
		default:
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	s, _, _ := strings.Cut(b.String(), "\x00")
	return s
}

func isHex(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

// hasGlob reports an unquoted pathname-expansion metacharacter: * or ?, or a
// [ that a later ] could close.
func (l lit) hasGlob() bool {
	for i := 0; i < len(l.s); i++ {
		if l.quoted[i] {
			continue
		}
		switch l.s[i] {
		case '*', '?':
			return true
		case '[':
			if strings.IndexByte(l.s[i+1:], ']') >= 0 {
				return true
			}
		}
	}
	return false
}

// hasBraces reports a possible brace expansion: an unquoted { followed by an
// unquoted , or .. and then an unquoted }. It errs towards true.
func (l lit) hasBraces() bool {
	open := -1
	sep := false
	for i := 0; i < len(l.s); i++ {
		if l.quoted[i] {
			continue
		}
		switch l.s[i] {
		case '{':
			if open < 0 {
				open, sep = i, false
			}
		case ',':
			sep = sep || open >= 0
		case '.':
			if open >= 0 && i+1 < len(l.s) && l.s[i+1] == '.' && !l.quoted[i+1] {
				sep = true
			}
		case '}':
			if open >= 0 && sep {
				return true
			}
		}
	}
	return false
}

// tildeForm classifies a leading unquoted tilde: none (no tilde expansion),
// home ("~" or "~/…", the current user's home) or other ("~user", "~+", "~-",
// whose value depends on run-time state).
func (l lit) tildeForm() (home, other bool) {
	if len(l.s) == 0 || l.s[0] != '~' || l.quoted[0] {
		return false, false
	}
	prefix, _, _ := strings.Cut(l.s, "/")
	if prefix == "~" {
		return true, false
	}
	return false, true
}

// wordText prints a word for an error message, shortened.
func wordText(w *syntax.Word) string {
	if w == nil {
		return ""
	}
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, w); err != nil {
		return "?"
	}
	return shorten(b.String())
}

func wordsText(ws []*syntax.Word) string {
	parts := make([]string, 0, len(ws))
	for _, w := range ws {
		parts = append(parts, wordText(w))
	}
	return shorten(strings.Join(parts, " "))
}

func shorten(s string) string {
	const max = 80
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
