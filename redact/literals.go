package redact

// literalIndex finds every detector hint and secret keyword in a text in
// one pass over it. Searching for each of them in turn (some forty
// substrings) read a long command line forty times; here each byte costs a
// table look-up, and a byte that starts a literal a comparison of the
// byte after it. Hand-written rather than a multi-pattern library: the
// literals are few and short, and this is all the matching they need.
type literalIndex struct {
	literals []string
	// byFirst holds, for each first byte, the literals starting with it
	// and their second byte (every literal has at least two).
	byFirst [256][]literalStart
	// pairs has a bit set for each two-byte start of a literal: most
	// places in a text start none, and cost one bit test.
	pairs [1 << 16 / 64]uint64
}

type literalStart struct {
	id     int
	second byte
}

// add returns the id of literal lit, adding it if it is new.
func (x *literalIndex) add(lit string) int {
	for i, l := range x.literals {
		if l == lit {
			return i
		}
	}
	x.literals = append(x.literals, lit)
	id := len(x.literals) - 1
	x.byFirst[lit[0]] = append(x.byFirst[lit[0]], literalStart{id, lit[1]})
	k := uint16(lit[0])<<8 | uint16(lit[1])
	x.pairs[k>>6] |= 1 << (k & 63)
	return id
}

// occurrences are the offsets of each literal in s lower-cased (ASCII
// letters only, as asciiLower), by id: for each literal, the offsets
// strings.Index finds in asciiLower(s) when searching on from the end of
// the previous occurrence (leftmost, not overlapping). nil when no literal
// occurs. s is lowered byte by byte as it is read, not copied: most texts
// hold no literal, and need no lower-case copy at all.
func (x *literalIndex) occurrences(s string) [][]int {
	var occ [][]int
	var next []int // per literal, where its next occurrence may start
	for i := 0; i+1 < len(s); i++ {
		a, b := lowerASCII[s[i]], lowerASCII[s[i+1]]
		if k := uint16(a)<<8 | uint16(b); x.pairs[k>>6]&(1<<(k&63)) == 0 {
			continue
		}
		for _, ls := range x.byFirst[a] {
			if b != ls.second || !hasLowerPrefix(s[i:], x.literals[ls.id]) {
				continue
			}
			if occ == nil {
				occ = make([][]int, len(x.literals))
				next = make([]int, len(x.literals))
			}
			if i >= next[ls.id] {
				occ[ls.id] = append(occ[ls.id], i)
				next[ls.id] = i + len(x.literals[ls.id])
			}
		}
	}
	return occ
}

// lowerASCII maps each byte to itself, A-Z to a-z.
var lowerASCII = func() (t [256]byte) {
	for c := range t {
		t[c] = byte(c)
		if 'A' <= c && c <= 'Z' {
			t[c] = byte(c) + 32
		}
	}
	return t
}()

// hasLowerPrefix is strings.HasPrefix(asciiLower(s), lit).
func hasLowerPrefix(s, lit string) bool {
	if len(s) < len(lit) {
		return false
	}
	for j := 0; j < len(lit); j++ {
		if lowerASCII[s[j]] != lit[j] {
			return false
		}
	}
	return true
}
