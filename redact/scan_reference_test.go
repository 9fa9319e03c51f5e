package redact

import (
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
)

// findSpansReference is findSpans as it was before the one-pass literal
// index: each hint and keyword searched for in turn, every text copied to
// lower case.
func findSpansReference(s string) []span {
	v := rules()
	lower := []byte(s)
	for i, c := range lower {
		if c >= 'A' && c <= 'Z' {
			lower[i] = c + 32
		}
	}
	sc := &scanner{v: v, s: s, lower: string(lower)}
	for prio := range v.detectors {
		d := &v.detectors[prio]
		if d.keyword == notKeyword {
			if !containsAny(sc.lower, d.Hints) {
				continue
			}
			if d.Multiline {
				for _, m := range d.re.get().FindAllStringSubmatchIndex(sc.s, -1) {
					sc.add(prio, d, m, 0)
				}
				continue
			}
			for _, w := range hintWindowsReference(sc.lower, d.Hints, sc.newlines()) {
				for _, m := range d.re.get().FindAllStringSubmatchIndex(sc.s[w[0]:w[1]], -1) {
					sc.add(prio, d, m, w[0])
				}
			}
			continue
		}
		keys := keywordKeysReference(v.keywords, sc.lower, sc.newlines())
		tried := map[int]bool{}
		for _, k := range keys {
			at := k.plain
			switch d.keyword {
			case keyDotted:
				at = k.dotted
			case keyFlag:
				if at < len(s) && s[at] != '-' || at > 0 && s[at-1] != ' ' && s[at-1] != '\t' && s[at-1] != '\n' {
					continue
				}
			}
			if tried[at] {
				continue
			}
			tried[at] = true
			if !v.plausible(d.keyword, s, at, k) {
				continue
			}
			if m := d.re.get().FindStringSubmatchIndex(s[at:k.limit]); m != nil {
				sc.add(prio, d, m, at)
			}
		}
	}
	for _, r := range scanRuns(s, v.runs) {
		sc.spans = append(sc.spans, span{r[0], r[1], v.runs.Kind, len(v.detectors)})
	}
	return merge(sc.spans)
}

// keywordKeysReference is keywordKeys as it was, one search per keyword: it finds every occurrence of a secret keyword and walks back to
// the start of the key around it. nls are the newline offsets (searched,
// so that one long line does not make this quadratic).
func keywordKeysReference(keywords []string, lower string, nls []int) []keyStart {
	var out []keyStart
	for _, kw := range keywords {
		for from := 0; ; {
			i := strings.Index(lower[from:], kw)
			if i < 0 {
				break
			}
			pos := from + i
			from = pos + len(kw)
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

// hintWindowsReference is hintWindows as it was, one search per hint: the merged stretches of text around each hint: from the
// start of its line (at most 256 bytes back) to the end of its line.
func hintWindowsReference(lower string, hints []string, nls []int) [][2]int {
	var ws [][2]int
	for _, h := range hints {
		for from := 0; ; {
			i := strings.Index(lower[from:], h)
			if i < 0 {
				break
			}
			pos := from + i
			from = pos + len(h)
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

// referenceTexts are the planted secrets, every detector's fixtures, and
// random texts made of hints, keywords, secret fragments, separators and
// upper-case letters (so that lines, keys and overlaps meet).
func referenceTexts() []string {
	var out []string
	for i := range planted {
		out = append(out, plantedText(i))
	}
	v := rules()
	var bits []string
	for _, d := range v.detectors {
		for _, ex := range d.Finds {
			out = append(out, ex.Text)
			bits = append(bits, ex.Secret)
		}
		out = append(out, d.Ignores...)
		bits = append(bits, d.Hints...)
	}
	bits = append(bits, v.keywords...)
	bits = append(bits, " ", "\n", "=", ": ", "--", "_", "-", "'", `"`, "x", "AKIA", "SECRET", "Bearer ", "sk-sk-",
		"xoxox", "://", "@", "aaaaaaaaaaaaaaaaaaaaaaaaaaaa", "Zm9vOmJhcmJhemJhcg==", "0123456789abcdef")
	out = append(out, ordinaryCommands...)
	r := rand.New(rand.NewPCG(5, 6))
	for range 4000 {
		var b strings.Builder
		for range 1 + r.IntN(12) {
			bit := bits[r.IntN(len(bits))]
			if r.IntN(5) == 0 {
				bit = strings.ToUpper(bit)
			}
			b.WriteString(bit)
		}
		out = append(out, b.String())
	}
	return out
}

// TestFindSpansMatchesReference: the one-pass index finds exactly the
// spans the per-literal searches found.
func TestFindSpansMatchesReference(t *testing.T) {
	for _, s := range referenceTexts() {
		if got, want := findSpans(s), findSpansReference(s); !slices.Equal(got, want) {
			t.Fatalf("%q: %+v, the reference finds %+v", s, got, want)
		}
	}
}

// TestLiteralOccurrencesMatchIndex: the index finds, for every literal,
// the offsets repeated strings.Index calls find.
func TestLiteralOccurrencesMatchIndex(t *testing.T) {
	v := rules()
	for _, s := range referenceTexts() {
		lower := asciiLower(s)
		occ := v.literals.occurrences(s)
		for id, lit := range v.literals.literals {
			var want []int
			for from := 0; ; {
				i := strings.Index(lower[from:], lit)
				if i < 0 {
					break
				}
				want = append(want, from+i)
				from += i + len(lit)
			}
			var got []int
			if occ != nil {
				got = occ[id]
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%q in %q: %v, strings.Index finds %v", lit, s, got, want)
			}
		}
	}
}

func FuzzFindSpansMatchesReference(f *testing.F) {
	for _, s := range referenceTexts()[:200] {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := findSpans(s), findSpansReference(s); !slices.Equal(got, want) {
			t.Fatalf("%q: %+v, the reference finds %+v", s, got, want)
		}
	})
}

// scanRunsReference is scanRuns as it was, a closure per byte.
func scanRunsReference(s string, r runRule) [][2]int {
	var out [][2]int
	in := func(c byte) bool {
		return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '_' || c == '-'
	}
	for i := 0; i < len(s); {
		if !in(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && in(s[j]) {
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

// TestScanRunsMatchesReference: the run scan by table finds the runs the
// per-byte test found, on the reference texts and on every byte.
func TestScanRunsMatchesReference(t *testing.T) {
	texts := referenceTexts()
	run := "aB3cD6eF9gH2iJ5kL8mN1oP4qR7sT0uV3wX6yZ9aB3cD6eF9"
	for c := 0; c < 256; c++ {
		texts = append(texts, run+string(rune(c))+run, run[:20]+string([]byte{byte(c)})+run[20:])
	}
	v := rules()
	for _, s := range texts {
		if got, want := scanRuns(s, v.runs), scanRunsReference(s, v.runs); !slices.Equal(got, want) {
			t.Fatalf("%q: %v, the reference finds %v", s, got, want)
		}
	}
}
