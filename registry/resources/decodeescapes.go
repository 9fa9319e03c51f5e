package resources

import "strings"

// escapeMode is which of bash's three backslash-escape dialects a text is
// read in. They differ in the octal escapes, in \' \" \? and in \c; the
// rest (\a \b \e \E \f \n \r \t \v \\ \xHH \uHHHH \UHHHHHHHH) is common.
type escapeMode int

const (
	// escapeEcho is echo -e (and echo under xpg_echo, dash's and zsh's
	// echo): \0NNN is octal with up to three digits after the 0, \1 to
	// \7 are not escapes, \' \" \? keep their backslash, \c ends all
	// output.
	escapeEcho escapeMode = iota
	// escapePercentB is an argument of printf's %b: \0NNN as echo, and
	// \NNN (one to three digits) too; \' \" \? keep their backslash;
	// \c ends all output.
	escapePercentB
	// escapeFormat is printf's format: \NNN is one to three octal
	// digits (so \0147 is \014 then 7); \' \" \? are the character;
	// \c is not an escape.
	escapeFormat
)

// decodeEscapes is what bash prints for s read in mode m, and whether a
// \c stopped the output there. It is for the secret scan: what a
// credential written as escapes (\x67hp_…) becomes when the program runs.
// The code points of \u and \U are written as bash writes them in a
// UTF-8 locale.
func decodeEscapes(s string, m escapeMode) (out string, stopped bool) {
	if strings.IndexByte(s, '\\') < 0 {
		return s, false
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			i++
			continue
		}
		n, stop := escapeAt(&b, s[i+1:], m)
		if stop {
			return b.String(), true
		}
		i += 1 + n
	}
	return b.String(), false
}

// simpleEscapes are the one-letter escapes every dialect knows.
var simpleEscapes = [256]byte{'a': '\a', 'b': '\b', 'e': 0x1b, 'E': 0x1b, 'f': '\f', 'n': '\n',
	'r': '\r', 't': '\t', 'v': '\v', '\\': '\\'}

// escapeAt writes what the escape at the start of rest (the text after a
// backslash, never empty) stands for, and says how many bytes of rest it
// used; stop is a \c that ends all output.
func escapeAt(b *strings.Builder, rest string, m escapeMode) (n int, stop bool) {
	c := rest[0]
	if v := simpleEscapes[c]; v != 0 {
		b.WriteByte(v)
		return 1, false
	}
	switch {
	case c >= '0' && c <= '7':
		return octalEscape(b, rest, m), false
	case c == 'x':
		v, digits := hexDigits(rest[1:], 2)
		if digits == 0 {
			b.WriteByte('\\') // not an escape: \x is printed as it is
			return 0, false
		}
		b.WriteByte(byte(v))
		return 1 + digits, false
	case c == 'u' || c == 'U':
		max := 4
		if c == 'U' {
			max = 8
		}
		v, digits := hexDigits(rest[1:], max)
		if digits == 0 {
			b.WriteByte('\\')
			return 0, false
		}
		writeCodePoint(b, v)
		return 1 + digits, false
	case c == '\'' || c == '"' || c == '?':
		if m == escapeFormat {
			b.WriteByte(c)
			return 1, false
		}
		b.WriteByte('\\')
		return 0, false
	case c == 'c' && m != escapeFormat:
		return 1, true
	}
	b.WriteByte('\\') // any other backslash is printed, and what follows it
	return 0, false
}

// octalEscape writes the octal escape at the start of rest (its first
// byte an octal digit) as mode m reads it, and says how many bytes it
// used.
func octalEscape(b *strings.Builder, rest string, m escapeMode) int {
	first := rest[0]
	more := 2 // digits after the first
	switch m {
	case escapeEcho:
		if first != '0' {
			b.WriteByte('\\') // \1 … \7 are not escapes for echo
			return 0
		}
		more = 3
	case escapePercentB:
		if first == '0' {
			more = 3
		}
	}
	v := int(first - '0')
	n := 1
	for n < len(rest) && more > 0 && rest[n] >= '0' && rest[n] <= '7' {
		v = v*8 + int(rest[n]-'0')
		n++
		more--
	}
	b.WriteByte(byte(v & 0xff))
	return n
}

// hexDigits reads up to max hex digits at the start of s.
func hexDigits(s string, max int) (v uint32, n int) {
	for n < len(s) && n < max {
		d, ok := hexValue(s[n])
		if !ok {
			break
		}
		v = v*16 + uint32(d)
		n++
	}
	return v, n
}

func hexValue(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// writeCodePoint writes v the way bash's u32toutf8 does in a UTF-8
// locale: as UTF-8, with the old five- and six-byte forms for values past
// U+1FFFFF, and surrogates encoded like any other value.
func writeCodePoint(b *strings.Builder, v uint32) {
	switch {
	case v < 0x80:
		b.WriteByte(byte(v))
	case v < 0x800:
		b.WriteByte(byte(v>>6) | 0xc0)
		b.WriteByte(byte(v&0x3f) | 0x80)
	case v < 0x10000:
		b.WriteByte(byte(v>>12) | 0xe0)
		b.WriteByte(byte((v>>6)&0x3f) | 0x80)
		b.WriteByte(byte(v&0x3f) | 0x80)
	case v < 0x200000:
		b.WriteByte(byte(v>>18) | 0xf0)
		b.WriteByte(byte((v>>12)&0x3f) | 0x80)
		b.WriteByte(byte((v>>6)&0x3f) | 0x80)
		b.WriteByte(byte(v&0x3f) | 0x80)
	case v < 0x4000000:
		b.WriteByte(byte(v>>24) | 0xf8)
		b.WriteByte(byte((v>>18)&0x3f) | 0x80)
		b.WriteByte(byte((v>>12)&0x3f) | 0x80)
		b.WriteByte(byte((v>>6)&0x3f) | 0x80)
		b.WriteByte(byte(v&0x3f) | 0x80)
	case v < 0x80000000:
		b.WriteByte(byte(v>>30) | 0xfc)
		b.WriteByte(byte((v>>24)&0x3f) | 0x80)
		b.WriteByte(byte((v>>18)&0x3f) | 0x80)
		b.WriteByte(byte((v>>12)&0x3f) | 0x80)
		b.WriteByte(byte((v>>6)&0x3f) | 0x80)
		b.WriteByte(byte(v&0x3f) | 0x80)
	}
}

// echoOutput is what echo prints for its arguments args (the program
// name left out), escapes read as echo -e reads them whether -e is given
// or not: dash's and zsh's echo and bash's under xpg_echo read them
// without it, and for a secret scan reading too much costs nothing. The
// leading options bash's echo takes (-n, -e, -E and their combinations)
// are left out.
func echoOutput(args []string) string {
	i := 0
	for i < len(args) && isEchoOption(args[i]) {
		i++
	}
	out, _ := decodeEscapes(strings.Join(args[i:], " "), escapeEcho)
	return out
}

// isEchoOption: bash's echo takes an argument for options when it is a
// dash and nothing but n, e and E.
func isEchoOption(s string) bool {
	if len(s) < 2 || s[0] != '-' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; c != 'n' && c != 'e' && c != 'E' {
			return false
		}
	}
	return true
}
