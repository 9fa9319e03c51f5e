package redact

import "strings"

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

// occurrences are the offsets of each literal in lower, by id: for each
// literal, the offsets strings.Index finds when searching on from the end
// of the previous occurrence (leftmost, not overlapping). nil when no
// literal occurs.
func (x *literalIndex) occurrences(lower string) [][]int {
	var occ [][]int
	var next []int // per literal, where its next occurrence may start
	for i := 0; i+1 < len(lower); i++ {
		if k := uint16(lower[i])<<8 | uint16(lower[i+1]); x.pairs[k>>6]&(1<<(k&63)) == 0 {
			continue
		}
		for _, ls := range x.byFirst[lower[i]] {
			if lower[i+1] != ls.second || !strings.HasPrefix(lower[i:], x.literals[ls.id]) {
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
