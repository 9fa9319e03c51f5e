package resources

import (
	"strconv"
	"strings"
)

// trProgram is one tr of the line with literal sets: what it does to any
// text, for the secret scan (tr 'A-Za-z' 'N-ZA-Mn-za-m' is rot13, tr -d
// joins a credential written with separators).
type trProgram struct {
	complement, del, squeeze, truncate bool
	set1, set2                         []byte
}

// newTrProgram reads tr's arguments as GNU tr does; ok is false when
// they are not options and one or two sets it can read.
func newTrProgram(args []string) (trProgram, bool) {
	var t trProgram
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			i++
			break
		}
		if !t.option(a) {
			break
		}
	}
	sets := args[i:]
	if len(sets) == 0 || len(sets) > 2 {
		return t, false
	}
	var ok bool
	if t.set1, ok = trSet(sets[0]); !ok {
		return t, false
	}
	if len(sets) == 2 {
		if t.set2, ok = trSet(sets[1]); !ok {
			return t, false
		}
	}
	if t.complement {
		t.set1 = complementSet(t.set1)
	}
	needs2 := !t.del && !t.squeeze || t.del && t.squeeze
	if needs2 && len(t.set2) == 0 {
		return t, false
	}
	return t, true
}

// option reads one option word of tr, false when a is not one.
func (t *trProgram) option(a string) bool {
	switch a {
	case "--complement":
		t.complement = true
	case "--delete":
		t.del = true
	case "--squeeze-repeats":
		t.squeeze = true
	case "--truncate-set1":
		t.truncate = true
	default:
		if len(a) < 2 || a[0] != '-' || a[1] == '-' {
			return false
		}
		for _, c := range a[1:] {
			switch c {
			case 'c', 'C':
				t.complement = true
			case 'd':
				t.del = true
			case 's':
				t.squeeze = true
			case 't':
				t.truncate = true
			default:
				return false
			}
		}
	}
	return true
}

// apply is what the tr prints for text.
func (t trProgram) apply(text string) string {
	var in1 [256]bool
	for _, c := range t.set1 {
		in1[c] = true
	}
	var b strings.Builder
	b.Grow(len(text))
	switch {
	case t.del:
		for i := 0; i < len(text); i++ {
			if !in1[text[i]] {
				b.WriteByte(text[i])
			}
		}
	case len(t.set2) > 0:
		m := t.mapping()
		for i := 0; i < len(text); i++ {
			b.WriteByte(m[text[i]])
		}
	default:
		b.WriteString(text)
	}
	if !t.squeeze {
		return b.String()
	}
	squeezed := t.set1
	if len(t.set2) > 0 {
		squeezed = t.set2
	}
	return squeeze(b.String(), squeezed)
}

// mapping is the translation of set1 to set2, set2 extended with its last
// byte to set1's length (or set1 cut to set2's, with -t).
func (t trProgram) mapping() [256]byte {
	var m [256]byte
	for i := range m {
		m[i] = byte(i)
	}
	set1 := t.set1
	if t.truncate && len(set1) > len(t.set2) {
		set1 = set1[:len(t.set2)]
	}
	for i, c := range set1 {
		m[c] = t.set2[min(i, len(t.set2)-1)]
	}
	return m
}

func squeeze(s string, set []byte) string {
	var in [256]bool
	for _, c := range set {
		in[c] = true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if i > 0 && s[i] == s[i-1] && in[s[i]] {
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func complementSet(set []byte) []byte {
	var in [256]bool
	for _, c := range set {
		in[c] = true
	}
	var out []byte
	for c := 0; c < 256; c++ {
		if !in[c] {
			out = append(out, byte(c))
		}
	}
	return out
}

// trClasses are the character classes of tr's sets.
var trClasses = map[string]func(c byte) bool{
	"alnum": func(c byte) bool { return isAlnum(c) },
	"alpha": func(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' },
	"blank": func(c byte) bool { return c == ' ' || c == '\t' },
	"cntrl": func(c byte) bool { return c < 0x20 || c == 0x7f },
	"digit": func(c byte) bool { return c >= '0' && c <= '9' },
	"graph": func(c byte) bool { return c > 0x20 && c < 0x7f },
	"lower": func(c byte) bool { return c >= 'a' && c <= 'z' },
	"print": func(c byte) bool { return c >= 0x20 && c < 0x7f },
	"punct": func(c byte) bool { return c > 0x20 && c < 0x7f && !isAlnum(c) },
	"space": func(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' },
	"upper": func(c byte) bool { return c >= 'A' && c <= 'Z' },
	"xdigit": func(c byte) bool {
		_, ok := hexValue(c)
		return ok
	},
}

// trSet expands one set of tr: escapes, ranges, [:class:], [=c=] and
// [c*n] (a [c*] without a count is taken as one c: it fills set2 to
// set1's length, which extending set2 with its last byte may not match,
// but a scan that reads a little wrong is still a scan).
func trSet(s string) ([]byte, bool) {
	var out []byte
	for i := 0; i < len(s); {
		if s[i] == '[' {
			if n, ok := trBracket(s[i:], &out); ok {
				i += n
				continue
			}
		}
		c, n := trChar(s[i:])
		i += n
		if i+1 < len(s) && s[i] == '-' {
			hi, m := trChar(s[i+1:])
			if hi < c {
				return nil, false
			}
			for x := int(c); x <= int(hi); x++ {
				out = append(out, byte(x))
			}
			i += 1 + m
			continue
		}
		out = append(out, c)
	}
	return out, len(out) <= 1<<12
}

// trChar is the byte at the start of s, an escape read, and its length.
func trChar(s string) (byte, int) {
	if s[0] != '\\' || len(s) == 1 {
		return s[0], 1
	}
	if v := simpleEscapes[s[1]]; v != 0 && s[1] != 'e' && s[1] != 'E' {
		return v, 2
	}
	if s[1] >= '0' && s[1] <= '7' {
		v, n := 0, 1
		for n < len(s) && n <= 3 && s[n] >= '0' && s[n] <= '7' {
			v = v*8 + int(s[n]-'0')
			n++
		}
		return byte(v), n
	}
	return s[1], 2
}

// trBracket expands a [:class:], [=c=] or [c*n] at the start of s.
func trBracket(s string, out *[]byte) (int, bool) {
	if strings.HasPrefix(s, "[:") {
		end := strings.Index(s, ":]")
		if end < 0 {
			return 0, false
		}
		in, ok := trClasses[s[2:end]]
		if !ok {
			return 0, false
		}
		for c := 0; c < 256; c++ {
			if in(byte(c)) {
				*out = append(*out, byte(c))
			}
		}
		return end + 2, true
	}
	if len(s) >= 5 && s[1] == '=' && s[3] == '=' && s[4] == ']' {
		*out = append(*out, s[2])
		return 5, true
	}
	if len(s) < 2 {
		return 0, false
	}
	c, n := trChar(s[1:])
	rest := s[1+n:]
	if !strings.HasPrefix(rest, "*") {
		return 0, false
	}
	end := strings.IndexByte(rest, ']')
	if end < 0 {
		return 0, false
	}
	count := 1
	if digits := rest[1:end]; digits != "" {
		base := 10
		if digits[0] == '0' {
			base = 8
		}
		v, err := strconv.ParseUint(digits, base, 12)
		if err != nil {
			return 0, false
		}
		count = max(int(v), 1)
	}
	for range count {
		*out = append(*out, c)
	}
	return 1 + n + end + 1, true
}
