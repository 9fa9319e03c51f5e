package redact

import (
	"sort"
	"strings"
)

// asciiLower lower-cases ASCII letters only, so that byte offsets in the
// result are offsets in s (strings.ToLower may change lengths).
func asciiLower(s string) string {
	upper := false
	for i := 0; i < len(s) && !upper; i++ {
		upper = 'A' <= s[i] && s[i] <= 'Z'
	}
	if !upper {
		return s // nothing to change: no copy
	}
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// keyStart is where the keys around one keyword occurrence begin, and how
// far a match from there may reach (the end of the next line: a value sits
// on the key's line, a flag's value at most one line break later).
type keyStart struct {
	dotted, plain, limit int
}

// plausible is a cheap test that a keyword detector's regexp could match
// at `at`: the key must name a secret and be followed by what the form
// needs. Most keyword hits in prose ("tests pass", "the key point") fail
// here, which keeps a 1 MB prompt to milliseconds rather than a regexp
// call per keyword.
func (v *vocabulary) plausible(form keyForm, s string, at int, k keyStart) bool {
	dots := form == keyDotted
	i := at
	for i < k.limit && (s[i] == '-' && form == keyFlag) {
		i++
	}
	start := i
	for i < k.limit && isKeyChar(s[i], dots) {
		i++
	}
	key := s[start:i]
	if i >= k.limit || key == "" {
		return false
	}
	switch form {
	case keyDotted:
		return v.isSecretKey(key) && assignedAt(s, i, k.limit)
	case keyFlag:
		return v.isSecretKey(key) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n')
	default:
		return valueRunNear(s, i, k.limit)
	}
}

// assignedAt reports whether, past quotes and blanks, s at i assigns a
// value (`=` or `:`), as a dotted key does in a config file.
func assignedAt(s string, i, limit int) bool {
	for i < limit && (s[i] == '"' || s[i] == '\'' || s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i < limit && (s[i] == '=' || s[i] == ':')
}

// valueRunNear reports whether a run of 16 or more value characters starts
// within a few bytes after a plain key ends at i (separators, or a short
// word like "is"). A key followed by a letter, a digit or a line end is a
// longer word or has no value.
func valueRunNear(s string, i, limit int) bool {
	c := s[i]
	if c == '\n' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
		return false
	}
	end := min(i+12, limit)
	for j := i + 1; j < end; j++ {
		n := 0
		for j+n < limit && n < 16 && (isKeyChar(s[j+n], false) || s[j+n] == '+' || s[j+n] == '/') {
			n++
		}
		if n == 16 {
			return true
		}
	}
	return false
}

func isKeyChar(c byte, dots bool) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || (dots && c == '.')
}

// keywordKeys walks back from every occurrence of a secret keyword (occ,
// by literal id, for the ids of the keywords in order) to the start of the
// key around it. nls are the newline offsets (searched, so that one long
// line does not make this quadratic).
func keywordKeys(occ [][]int, ids []int, lower string, nls []int) []keyStart {
	var out []keyStart
	if occ == nil {
		return nil
	}
	for _, id := range ids {
		for _, pos := range occ[id] {
			ks := keyStart{dotted: pos, plain: pos, limit: len(lower)}
			for ks.plain > 0 && pos-ks.plain < 256 && isKeyChar(lower[ks.plain-1], false) {
				ks.plain--
			}
			for ks.dotted > 0 && pos-ks.dotted < 256 && isKeyChar(lower[ks.dotted-1], true) {
				ks.dotted--
			}
			if k := sort.SearchInts(nls, pos); k+1 < len(nls) {
				ks.limit = nls[k+1]
			}
			out = append(out, ks)
		}
	}
	return out
}

// hintWindows are the merged stretches of text around each occurrence of
// the hints ids (occ, by literal id): from the start of its line (at most
// 256 bytes back) to the end of its line.
func hintWindows(occ [][]int, ids []int, lower string, nls []int) [][2]int {
	var ws [][2]int
	for _, id := range ids {
		for _, pos := range occ[id] {
			k := sort.SearchInts(nls, pos)
			start, end := 0, len(lower)
			if k > 0 {
				start = nls[k-1] + 1
			}
			if pos-start > 256 {
				start = pos - 256
			}
			if k < len(nls) {
				end = nls[k]
			}
			ws = append(ws, [2]int{start, end})
		}
	}
	if len(ws) == 0 {
		return nil
	}
	sort.Slice(ws, func(i, j int) bool { return ws[i][0] < ws[j][0] })
	merged := ws[:1]
	for _, w := range ws[1:] {
		last := &merged[len(merged)-1]
		if w[0] <= last[1] {
			if w[1] > last[1] {
				last[1] = w[1]
			}
			continue
		}
		merged = append(merged, w)
	}
	return merged
}

// scanRuns finds long base64-looking runs anywhere ([A-Za-z0-9+_-]{40,}
// plus padding) with digits, both cases and near-random entropy. Pure hex
// is left alone: commit and content hashes are everywhere in commands and
// are not secrets. A hand-written scan, because a regexp with no literal to
// anchor on costs a full automaton pass per megabyte.
func scanRuns(s string, r runRule) [][2]int {
	var out [][2]int
	for i := 0; i < len(s); {
		if !isRunByte[s[i]] {
			i++
			continue
		}
		j := i
		for j < len(s) && isRunByte[s[j]] {
			j++
		}
		if j-i >= r.MinLength {
			end := j
			for k := 0; k < 2 && end < len(s) && s[end] == '='; k++ {
				end++
			}
			v := s[i:end]
			if hasClasses(v, true, true, true) && entropy(v) >= r.MinEntropy {
				out = append(out, [2]int{i, end})
			}
		}
		i = j
	}
	return out
}

// isRunByte holds the bytes of a run: A-Z, a-z, 0-9, '+', '_' and '-'.
var isRunByte = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '_' || c == '-'
	}
	return t
}()

type span struct {
	start, end int
	kind       string
	prio       int // index of the detector: lower is more specific
}

// scanner holds what the detectors of one text share: its ASCII
// lower-case form, its newline offsets and the starts of its secret-ish
// keys, each computed only when a detector needs it.
type scanner struct {
	v      *vocabulary
	s      string
	lower  string
	occ    [][]int // where each hint and keyword occurs, by literal id; nil: none does
	nls    []int
	nlDone bool
	keys   []keyStart
	keysOK bool
	spans  []span
}

func (sc *scanner) newlines() []int {
	if !sc.nlDone {
		for i := 0; i < len(sc.s); i++ {
			if sc.s[i] == '\n' {
				sc.nls = append(sc.nls, i)
			}
		}
		sc.nlDone = true
	}
	return sc.nls
}

// add records match m of detector d found at offset off, if its checks
// accept it (they read the text the offsets are relative to).
func (sc *scanner) add(prio int, d *detector, m []int, off int) {
	s := sc.s
	if !sc.v.accept(d, m, s[off:]) {
		return
	}
	a, b := m[2*d.Group], m[2*d.Group+1]
	if a < 0 || a == b {
		return
	}
	a, b = a+off, b+off
	// A quoted value is redacted inside its quotes.
	if b-a >= 2 && (s[a] == '"' || s[a] == '\'') && s[b-1] == s[a] {
		a, b = a+1, b-1
		if a == b {
			return
		}
	}
	sc.spans = append(sc.spans, span{a, b, d.Kind, prio})
}

// keyword runs a keyword detector at the start of every plausible key.
func (sc *scanner) keyword(prio int, d *detector) {
	s := sc.s
	if !sc.keysOK {
		sc.keys, sc.keysOK = keywordKeys(sc.occ, sc.v.keywordIDs, sc.lower, sc.newlines()), true
	}
	tried := map[int]bool{}
	for _, k := range sc.keys {
		at := k.plain
		switch d.keyword {
		case keyDotted:
			at = k.dotted
		case keyFlag:
			// The key's own walk took in its dashes; a flag stands at
			// the start or after a blank.
			if at < len(s) && s[at] != '-' || at > 0 && s[at-1] != ' ' && s[at-1] != '\t' && s[at-1] != '\n' {
				continue
			}
		}
		if tried[at] {
			continue
		}
		tried[at] = true
		if !sc.v.plausible(d.keyword, s, at, k) {
			continue
		}
		if m := d.re.get().FindStringSubmatchIndex(s[at:k.limit]); m != nil {
			sc.add(prio, d, m, at)
		}
	}
}

// hinted runs a detector with hints, only where a hint appears.
func (sc *scanner) hinted(prio int, d *detector) {
	if !sc.occursAny(d.hintIDs) {
		return
	}
	if d.Multiline {
		for _, m := range d.re.get().FindAllStringSubmatchIndex(sc.s, -1) {
			sc.add(prio, d, m, 0)
		}
		return
	}
	// Only the lines that hold a hint are searched: these regexps begin
	// with \b, which defeats the engine's own literal scan.
	for _, w := range hintWindows(sc.occ, d.hintIDs, sc.lower, sc.newlines()) {
		for _, m := range d.re.get().FindAllStringSubmatchIndex(sc.s[w[0]:w[1]], -1) {
			sc.add(prio, d, m, w[0])
		}
	}
}

// occursAny reports whether any of the literals ids occurs in the text.
func (sc *scanner) occursAny(ids []int) bool {
	if sc.occ == nil {
		return false
	}
	for _, id := range ids {
		if len(sc.occ[id]) > 0 {
			return true
		}
	}
	return false
}

// findSpans runs every detector and merges overlapping spans.
func findSpans(s string) []span {
	v := rules()
	sc := &scanner{v: v, s: s}
	sc.occ = v.literals.occurrences(s)
	if sc.occ != nil {
		sc.lower = asciiLower(s) // for the detectors, which run only now
	}
	// Every detector starts where a literal occurs: a keyword detector at
	// the keys around a keyword, any other where one of its hints is
	// (one without hints never runs). With no literal in the text, none
	// can match, and only the runs are left to find.
	for prio := range v.detectors {
		if sc.occ == nil {
			break
		}
		d := &v.detectors[prio]
		if d.keyword != notKeyword {
			sc.keyword(prio, d)
		} else {
			sc.hinted(prio, d)
		}
	}
	for _, r := range scanRuns(s, v.runs) {
		sc.spans = append(sc.spans, span{r[0], r[1], v.runs.Kind, len(v.detectors)})
	}
	return merge(sc.spans)
}

// merge sorts spans and joins the overlapping ones; overlapping finds name
// the most specific kind.
func merge(spans []span) []span {
	if len(spans) == 0 {
		return nil
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	merged := spans[:1]
	for _, sp := range spans[1:] {
		last := &merged[len(merged)-1]
		if sp.start <= last.end {
			if sp.end > last.end {
				last.end = sp.end
			}
			if sp.prio < last.prio {
				last.kind, last.prio = sp.kind, sp.prio
			}
			continue
		}
		merged = append(merged, sp)
	}
	return merged
}
