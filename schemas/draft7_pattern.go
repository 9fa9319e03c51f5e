package schemas

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// pattern is a compiled `pattern` (or `patternProperties` key): Go regexp
// syntax (RE2), an unanchored search, as SPEC §4.4 says.
//
// Most patterns in the contract are a run of character classes with
// counts, such as ^[0-9a-f]{64}$ or a UUID. Those are matched by a small
// greedy matcher instead of the regexp engine, which is several times
// slower on them. The matcher is used only where greedy matching is exact
// (see fastForm); anything else goes to regexp, optionally behind a
// substring every match must contain.
type pattern struct {
	src  string
	text string // src fit for a message: control characters escaped

	// The fast form.
	fast        bool
	anchorStart bool
	anchorEnd   bool
	atoms       []atom

	// The general form.
	re       *regexp.Regexp
	required string // a literal every match contains; "" if none is known
}

// atom is one character class repeated min..max times (max < 0: no bound).
type atom struct {
	ascii     [2]uint64 // membership of runes below 128
	ranges    []rune    // sorted lo, hi pairs, for runes from 128 up
	asciiOnly bool      // no member from 128 up: bytes decide alone
	min, max  int
}

func (a *atom) has(r rune) bool {
	if r < 128 {
		return a.ascii[r>>6]&(1<<(uint(r)&63)) != 0
	}
	for i := 0; i+1 < len(a.ranges); i += 2 {
		if r < a.ranges[i] {
			return false
		}
		if r <= a.ranges[i+1] {
			return true
		}
	}
	return false
}

func newAtom(ranges []rune, min, max int) atom {
	a := atom{min: min, max: max}
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		for r := lo; r <= hi && r < 128; r++ {
			a.ascii[r>>6] |= 1 << (uint(r) & 63)
		}
		if hi >= 128 {
			a.ranges = append(a.ranges, max32(lo, 128), hi)
		}
	}
	a.asciiOnly = len(a.ranges) == 0
	return a
}

// hasByte: for an asciiOnly atom, whether the byte c starts a member. A
// byte from 0x80 up starts a rune from 128 up or an invalid one (U+FFFD);
// neither is a member.
func (a *atom) hasByte(c byte) bool {
	return c < 128 && a.ascii[c>>6]&(1<<(c&63)) != 0
}

func max32(a, b rune) rune {
	if a > b {
		return a
	}
	return b
}

// disjoint reports whether no rune is in both classes. Ranges are checked
// in full, so this is exact.
func disjoint(a, b *atom) bool {
	if a.ascii[0]&b.ascii[0] != 0 || a.ascii[1]&b.ascii[1] != 0 {
		return false
	}
	for i := 0; i+1 < len(a.ranges); i += 2 {
		for j := 0; j+1 < len(b.ranges); j += 2 {
			if a.ranges[i] <= b.ranges[j+1] && b.ranges[j] <= a.ranges[i+1] {
				return false
			}
		}
	}
	return true
}

// patternCache shares compiled patterns between shapes (many schemas
// repeat the same identifier and hash patterns). Guarded by compileMu.
var patternCache = map[string]*pattern{}

func compilePattern(src string) (*pattern, error) {
	if p, ok := patternCache[src]; ok {
		return p, nil
	}
	// regexp.Compile parses with syntax.Perl; so does this, so that a
	// pattern the fast form accepts is one regexp would accept too.
	tree, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nil, err
	}
	p := &pattern{src: src, text: printablePattern(src)}
	if !p.fastForm(tree) {
		p.fast, p.atoms = false, nil
		if p.re, err = regexp.Compile(src); err != nil {
			return nil, err
		}
		p.required = requiredLiteral(tree)
	}
	patternCache[src] = p
	return p, nil
}

// fastForm accepts a concatenation of single-rune classes with counts,
// optionally anchored by ^ and $, where a class with a variable count is
// disjoint from every class that can follow it directly. Then the number
// of runes each class takes is forced, and a greedy left-to-right scan
// decides the match exactly.
func (p *pattern) fastForm(tree *syntax.Regexp) bool {
	subs := []*syntax.Regexp{tree}
	if tree.Op == syntax.OpConcat {
		subs = tree.Sub
	}
	for i, s := range subs {
		switch s.Op {
		case syntax.OpBeginText:
			if i != 0 {
				return false
			}
			p.anchorStart = true
		case syntax.OpEndText:
			if i != len(subs)-1 {
				return false
			}
			p.anchorEnd = true
		case syntax.OpLiteral:
			if s.Flags&syntax.FoldCase != 0 {
				return false
			}
			for _, r := range s.Rune {
				p.atoms = append(p.atoms, newAtom([]rune{r, r}, 1, 1))
			}
		case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
			ranges, ok := singleRune(s.Sub[0])
			if !ok {
				return false
			}
			lo, hi := 0, -1
			switch s.Op {
			case syntax.OpPlus:
				lo = 1
			case syntax.OpQuest:
				hi = 1
			case syntax.OpRepeat:
				lo, hi = s.Min, s.Max
			}
			p.atoms = append(p.atoms, newAtom(ranges, lo, hi))
		default:
			ranges, ok := singleRune(s)
			if !ok {
				return false
			}
			p.atoms = append(p.atoms, newAtom(ranges, 1, 1))
		}
	}
	if len(p.atoms) == 0 {
		return false
	}
	for i := range p.atoms {
		if p.atoms[i].min == p.atoms[i].max {
			continue
		}
		for j := i + 1; j < len(p.atoms); j++ {
			if !disjoint(&p.atoms[i], &p.atoms[j]) {
				return false
			}
			if p.atoms[j].min > 0 {
				break
			}
		}
	}
	p.fast = true
	return true
}

// singleRune returns the class of a regexp matching exactly one rune.
func singleRune(s *syntax.Regexp) ([]rune, bool) {
	switch s.Op {
	case syntax.OpLiteral:
		if len(s.Rune) == 1 && s.Flags&syntax.FoldCase == 0 {
			return []rune{s.Rune[0], s.Rune[0]}, true
		}
	case syntax.OpCharClass:
		return s.Rune, len(s.Rune) > 0
	case syntax.OpAnyCharNotNL:
		return []rune{0, '\n' - 1, '\n' + 1, utf8.MaxRune}, true
	case syntax.OpAnyChar:
		return []rune{0, utf8.MaxRune}, true
	}
	return nil, false
}

// requiredLiteral finds a literal that every match contains: the longest
// literal directly inside a top-level concatenation. One holding U+FFFD is
// skipped, since the regexp engine reads each invalid byte as U+FFFD and a
// substring test would not.
func requiredLiteral(tree *syntax.Regexp) string {
	subs := []*syntax.Regexp{tree}
	if tree.Op == syntax.OpConcat {
		subs = tree.Sub
	}
	best := ""
	for _, s := range subs {
		if s.Op != syntax.OpLiteral || s.Flags&syntax.FoldCase != 0 {
			continue
		}
		lit := string(s.Rune)
		if !strings.ContainsRune(lit, utf8.RuneError) && len(lit) > len(best) {
			best = lit
		}
	}
	return best
}

func (p *pattern) match(s string) bool {
	if !p.fast {
		if p.required != "" && !strings.Contains(s, p.required) {
			return false
		}
		return p.re.MatchString(s)
	}
	if p.anchorStart {
		return p.matchAt(s, 0)
	}
	first := &p.atoms[0]
	if len(p.atoms) == 1 && first.min == 1 && !p.anchorEnd {
		// "Contains a rune of this class": one scan.
		for i := 0; i < len(s); {
			r, w := rune(s[i]), 1
			if r >= utf8.RuneSelf {
				r, w = utf8.DecodeRuneInString(s[i:])
			}
			if first.has(r) {
				return true
			}
			i += w
		}
		return false
	}
	for pos := 0; ; {
		if p.matchAt(s, pos) {
			return true
		}
		if pos >= len(s) {
			return false
		}
		_, w := utf8.DecodeRuneInString(s[pos:])
		pos += w
	}
}

// matchAt runs the atoms greedily from byte offset pos. Runes are decoded
// as the regexp engine decodes them: an invalid byte is U+FFFD, width 1.
func (p *pattern) matchAt(s string, pos int) bool {
	for i := range p.atoms {
		a := &p.atoms[i]
		n := 0
		if a.asciiOnly {
			limit := len(s)
			if a.max >= 0 && pos+a.max < limit {
				limit = pos + a.max
			}
			start := pos
			for pos < limit && a.hasByte(s[pos]) {
				pos++
			}
			if pos-start < a.min {
				return false
			}
			continue
		}
		for a.max < 0 || n < a.max {
			if pos >= len(s) {
				break
			}
			r, w := rune(s[pos]), 1
			if r >= utf8.RuneSelf {
				r, w = utf8.DecodeRuneInString(s[pos:])
			}
			if !a.has(r) {
				break
			}
			pos += w
			n++
		}
		if n < a.min {
			return false
		}
	}
	return !p.anchorEnd || pos == len(s)
}

// printablePattern writes the characters a terminal would not show as
// RE2 escapes (\x{1f}), so the text is still the same pattern.
func printablePattern(src string) string {
	clean := true
	for _, r := range src {
		clean = clean && unicode.IsGraphic(r)
	}
	if clean {
		return src
	}
	var b strings.Builder
	for _, r := range src {
		if unicode.IsGraphic(r) {
			b.WriteRune(r)
		} else {
			fmt.Fprintf(&b, `\x{%x}`, r)
		}
	}
	return b.String()
}
