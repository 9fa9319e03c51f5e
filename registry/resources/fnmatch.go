package resources

// fnmatch is POSIX fnmatch(3) with no flags, as grep's --include and
// --exclude use it: "*" matches any run of bytes, "/" and a leading "."
// included; "?" one byte; "[…]" a bracket expression ("!" or "^" negates,
// digit ranges); "\" quotes the next byte. ok is false when the answer is
// not certain here — a character class ("[[:alpha:]]"), an equivalence
// class or collating symbol, an unterminated bracket, or a byte outside
// ASCII (whose meaning depends on the locale) — and the caller must not
// count the pattern either way.
func fnmatch(pattern, name string) (match, ok bool) {
	for i := 0; i < len(pattern); i++ {
		if pattern[i] >= 0x80 {
			return false, false
		}
	}
	for i := 0; i < len(name); i++ {
		if name[i] >= 0x80 {
			return false, false
		}
	}
	return fnmatchAt(pattern, name, 0)
}

// maxFnmatchSteps bounds the backtracking of one match ("*a*a*a*…b").
const maxFnmatchSteps = 1 << 16

func fnmatchAt(p, s string, steps int) (bool, bool) {
	for len(p) > 0 {
		if steps++; steps > maxFnmatchSteps {
			return false, false
		}
		switch p[0] {
		case '*':
			for len(p) > 0 && p[0] == '*' {
				p = p[1:]
			}
			if p == "" {
				return true, true
			}
			for k := 0; k <= len(s); k++ {
				m, ok := fnmatchAt(p, s[k:], steps+k)
				if !ok || m {
					return m, ok
				}
			}
			return false, true
		case '?':
			if s == "" {
				return false, true
			}
			p, s = p[1:], s[1:]
		case '[':
			if s == "" {
				return false, true
			}
			m, n, ok := bracket(p, s[0])
			if !ok {
				return false, false
			}
			if !m {
				return false, true
			}
			p, s = p[n:], s[1:]
		case '\\':
			if len(p) < 2 {
				return false, false
			}
			if s == "" || s[0] != p[1] {
				return false, true
			}
			p, s = p[2:], s[1:]
		default:
			if s == "" || s[0] != p[0] {
				return false, true
			}
			p, s = p[1:], s[1:]
		}
	}
	return s == "", true
}

// bracket matches c against the bracket expression at the start of p and
// returns the expression's length.
func bracket(p string, c byte) (match bool, n int, ok bool) {
	i := 1
	negate := false
	if i < len(p) && (p[i] == '!' || p[i] == '^') {
		negate = true
		i++
	}
	first := true
	for i < len(p) {
		ch := p[i]
		if ch == ']' && !first {
			return match != negate, i + 1, true
		}
		first = false
		if ch == '[' && i+1 < len(p) && (p[i+1] == ':' || p[i+1] == '=' || p[i+1] == '.') {
			return false, 0, false
		}
		if ch == '\\' {
			if i+1 >= len(p) {
				return false, 0, false
			}
			i++
			ch = p[i]
		}
		lo, hi := ch, ch
		if i+2 < len(p) && p[i+1] == '-' && p[i+2] != ']' {
			hi = p[i+2]
			if !isDigit(lo) || !isDigit(hi) {
				// Outside the C locale a letter range follows the
				// collation order ([a-z] may hold "B").
				return false, 0, false
			}
			i += 2
		}
		if lo <= c && c <= hi {
			match = true
		}
		i++
	}
	return false, 0, false // unterminated
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
