package resources

import (
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
)

// GlobRef is a file pattern a tool searches — the Glob tool's pattern, the
// Grep tool's glob — anchored at the directory it is searched from, in each
// form a deny entry is matched against (see MatchDenyPath): Rel is
// workspace-relative ("" outside the workspace), Home home-relative without
// "~/" ("" outside the home directory), Abs absolute. A pattern the tool
// reads through names every file it matches, so it is checked against
// deny.paths like a read of each of them.
type GlobRef struct {
	Pattern string `json:"pattern"`
	Rel     string `json:"rel,omitempty"`
	Home    string `json:"home,omitempty"`
	Abs     string `json:"abs"`
}

// globRef anchors pattern rest (slash-separated, possibly with ** and
// braces) at the resolved directory base.
func globRef(pattern string, base PathRef, rest string) GlobRef {
	g := GlobRef{Pattern: pattern, Abs: path.Join(base.Abs, rest)}
	if base.Inside || base.Rel != "" {
		g.Rel = joinGlob(base.Rel, rest)
	}
	if base.Home != "" {
		g.Home = joinGlob(strings.TrimPrefix(strings.TrimPrefix(base.Home, "~"), "/"), rest)
	}
	return g
}

func joinGlob(dir, rest string) string {
	if dir == "" || dir == "." {
		return rest
	}
	return dir + "/" + rest
}

// MatchDenyGlob reports whether a deny pattern refuses the searched
// pattern g: whether g names a path the deny pattern names. It is decided
// on witnesses — paths each pattern is built to match, with every
// wildcard made empty or a plain name — so ".env*", "**/.env", "{.env,x}"
// and ".e[n]v" all meet a deny of ".env", and "secre?s/*" one of
// "secrets/**". A pattern that only lists ("*", "**/*", "src/*") names
// nothing: what a listing or a recursive search reaches below its root
// is the root's question, checked as a read. A pattern that cannot be
// interpreted overlaps everything.
func MatchDenyGlob(deny string, g GlobRef) bool {
	return matchDenyPattern(deny, g, globsOverlap)
}

// matchDenyPattern compares deny with the form of g it is written for.
func matchDenyPattern(deny string, g GlobRef, overlap func(d, g string) bool) bool {
	target := g.Rel
	switch {
	case deny == "~" || strings.HasPrefix(deny, "~/"):
		deny, target = strings.TrimPrefix(strings.TrimPrefix(deny, "~"), "/"), g.Home
		if deny == "" {
			deny = "**"
		}
	case strings.HasPrefix(deny, "/"):
		target = g.Abs
	}
	if target == "" {
		return false
	}
	return overlap(deny, target)
}

// globsOverlap reports whether the searched pattern g names a path the
// deny pattern d names: g spelled out (".env*" → ".env"), or with its
// single-character wildcards read as d's letters in the same place
// (".e[n]v", ".ss?/id_*", "secre?s/*"). A pattern that only lists ("*",
// "**/*", "src/*") spells nothing out.
func globsOverlap(d, g string) bool {
	if tooComplex(g) || !doublestar.ValidatePattern(d) || !doublestar.ValidatePattern(g) {
		return true
	}
	cands := witnesses(g)
	for _, ga := range expandBraces(g, maxWitnesses) {
		for _, da := range expandBraces(d, 8) {
			cands = append(cands, aligned(ga, da, false), aligned(ga, da, true))
		}
	}
	for _, s := range cands {
		if m, _ := doublestar.Match(d, s); m {
			return true
		}
	}
	return false
}

// tooComplex bounds what a searched pattern may ask of the matcher:
// matching alternatives backtracks, so many brace groups or wildcards
// could cost seconds. Beyond these a pattern is not interpreted, and
// overlaps every deny entry (the call is refused).
func tooComplex(p string) bool {
	return len(p) > 1024 || strings.Count(p, "{") > 4 ||
		strings.Count(p, "*")+strings.Count(p, "?")+strings.Count(p, "[") > 64
}

// globsIntersect reports whether the deny (or protected) pattern d and a
// pattern g derived from a call can match one path, on witnesses of each:
// for a write to a whole directory (WriteTouches).
func globsIntersect(d, g string) bool {
	if !doublestar.ValidatePattern(d) || !doublestar.ValidatePattern(g) {
		return true
	}
	if literalPrefixesDiffer(d, g) {
		return false
	}
	return globsIntersectByWitnesses(d, g)
}

// globsIntersectByWitnesses is globsIntersect without the prefix test.
// The deny pattern's witnesses are remembered (it is the same on every
// call), the call's are not.
func globsIntersectByWitnesses(d, g string) bool {
	for _, s := range denyWitnesses(d) {
		if m, _ := doublestar.Match(g, s); m {
			return true
		}
	}
	for _, s := range witnesses(g) {
		if m, _ := doublestar.Match(d, s); m {
			return true
		}
	}
	return false
}

// aligned instantiates the brace-free pattern g segment by segment against
// d (aligned from the start, or from the end): ? and classes take d's
// letter at the same place, * takes nothing, ** is dropped.
func aligned(g, d string, fromEnd bool) string {
	gs, ds := strings.Split(g, "/"), strings.Split(d, "/")
	out := make([]string, 0, len(gs))
	for i, seg := range gs {
		k := i
		if fromEnd {
			k = len(ds) - len(gs) + i
		}
		other := ""
		if k >= 0 && k < len(ds) {
			other = ds[k]
		}
		if seg == "**" {
			continue
		}
		out = append(out, alignSegment(seg, other))
	}
	return strings.Join(out, "/")
}

func alignSegment(seg, other string) string {
	var b strings.Builder
	pos := 0 // the place in other, while it is known (before a *)
	at := func() (byte, bool) {
		if pos >= 0 && pos < len(other) && strings.IndexByte("*?[]{}\\", other[pos]) < 0 {
			return other[pos], true
		}
		return 0, false
	}
	literal := strings.Trim(seg, "*?") != "" && !strings.HasPrefix(seg, "[")
	for i := 0; i < len(seg); i++ {
		switch c := seg[i]; c {
		case '*':
			// A segment that says something (".env*", "id_*") may go on
			// as d does; a bare * only lists.
			if literal && pos >= 0 && pos <= len(other) && i == len(seg)-1 {
				b.WriteString(literalSegment(other[pos:], false))
			}
			pos = -1
		case '?':
			if o, ok := at(); ok {
				b.WriteByte(o)
			} else {
				b.WriteByte('x')
			}
		case '[':
			end := strings.IndexByte(seg[i+1:], ']')
			if end < 0 {
				b.WriteByte(c)
				continue
			}
			body := seg[i+1 : i+1+end]
			if o, ok := at(); ok && classHas(body, o) {
				b.WriteByte(o)
			} else {
				b.WriteByte(classMember(body))
			}
			i += end + 1
		case '\\':
			if i+1 < len(seg) {
				i++
				b.WriteByte(seg[i])
			}
		default:
			b.WriteByte(c)
		}
		if pos >= 0 {
			pos++
		}
	}
	return b.String()
}

// classHas reports whether a character class body ("a-z0", "!x") matches c.
func classHas(body string, c byte) bool {
	neg := strings.HasPrefix(body, "!") || strings.HasPrefix(body, "^")
	if neg {
		body = body[1:]
	}
	in := false
	for i := 0; i < len(body); i++ {
		if i+2 < len(body) && body[i+1] == '-' {
			in = in || (c >= body[i] && c <= body[i+2])
			i += 2
			continue
		}
		in = in || body[i] == c
	}
	return in != neg
}

// literalPrefixesDiffer reports whether two patterns begin with literal
// segments that differ at the same place ("src/**" and ".git/hooks/**"):
// each such segment matches exactly its own text and one path segment, so
// no path can match both. Only the leading segments free of pattern
// characters (and of escapes) are compared; past the first other segment
// nothing is concluded.
func literalPrefixesDiffer(a, b string) bool {
	for a != "" && b != "" {
		sa, ra, _ := strings.Cut(a, "/")
		sb, rb, _ := strings.Cut(b, "/")
		if sa == "" || sb == "" || hasGlobMeta(sa) || hasGlobMeta(sb) {
			return false
		}
		if sa != sb {
			return true
		}
		a, b = ra, rb
	}
	return false
}

// maxWitnesses bounds brace expansion (a{b,c}{d,e}… doubles each time).
const maxWitnesses = 64

// witnesses are paths pattern matches: each brace alternative, with every
// wildcard once as little as it can match and once as a plain name "x".
// denyWitnesses is witnesses for a deny or protected pattern, remembered.
func denyWitnesses(pattern string) []string {
	witnessCache.RLock()
	w, ok := witnessCache.m[pattern]
	witnessCache.RUnlock()
	if ok {
		return w
	}
	// Clipped, so that a caller's append copies rather than writing into
	// the slice the cache shares.
	w = slices.Clip(witnesses(pattern))
	size := len(pattern)
	for _, x := range w {
		size += len(x)
	}
	witnessCache.Lock()
	if witnessCache.m == nil {
		witnessCache.m = map[string][]string{}
	}
	if witnessCache.bytes+size <= maxWitnessCacheBytes {
		witnessCache.m[pattern] = w
		witnessCache.bytes += size
	}
	witnessCache.Unlock()
	return w
}

// witnessCache remembers deny and protected patterns' witnesses, which
// depend on the pattern's text alone and are needed on every call that
// writes. It stops growing once it holds maxWitnessCacheBytes of text.
var witnessCache struct {
	sync.RWMutex
	m     map[string][]string
	bytes int
}

const maxWitnessCacheBytes = 1 << 20

func witnesses(pattern string) []string {
	var out []string
	for _, alt := range expandBraces(pattern, maxWitnesses) {
		for _, short := range []bool{true, false} {
			s := instantiate(alt, short)
			if m, _ := doublestar.Match(pattern, s); m && !contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// instantiate replaces the wildcards of a brace-free pattern: ** segments
// are dropped (short) or become "x", * becomes "" (short, unless that
// empties the segment) or "x", ? becomes "x", a class its first member.
func instantiate(p string, short bool) string {
	var segs []string
	for _, seg := range strings.Split(p, "/") {
		if seg == "**" {
			if !short {
				segs = append(segs, "x")
			}
			continue
		}
		s := literalSegment(seg, short)
		if s == "" {
			s = literalSegment(seg, false)
		}
		segs = append(segs, s)
	}
	return strings.Join(segs, "/")
}

func literalSegment(seg string, short bool) string {
	var b strings.Builder
	for i := 0; i < len(seg); i++ {
		switch c := seg[i]; c {
		case '\\':
			if i+1 < len(seg) {
				i++
				b.WriteByte(seg[i])
			}
		case '*':
			if !short {
				b.WriteByte('x')
			}
		case '?':
			b.WriteByte('x')
		case '[':
			end := strings.IndexByte(seg[i+1:], ']')
			if end < 0 {
				b.WriteByte(c)
				continue
			}
			b.WriteByte(classMember(seg[i+1 : i+1+end]))
			i += end + 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// classMember is a byte the character class body matches.
func classMember(body string) byte {
	if strings.HasPrefix(body, "!") || strings.HasPrefix(body, "^") {
		for _, c := range []byte("x_a0Z.") {
			if !strings.ContainsRune(body[1:], rune(c)) {
				return c
			}
		}
		return '~'
	}
	if body == "" {
		return 'x'
	}
	return body[0]
}

// expandBraces expands {a,b} alternatives (nested ones too), at most max
// results; past that the remaining braces are kept and only the first
// alternative of each is taken.
func expandBraces(p string, max int) []string {
	open := strings.IndexByte(p, '{')
	if open < 0 {
		return []string{p}
	}
	depth, close := 0, -1
	var commas []int
	for i := open; i < len(p) && close < 0; i++ {
		switch p[i] {
		case '\\':
			i++
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				close = i
			}
		case ',':
			if depth == 1 {
				commas = append(commas, i)
			}
		}
	}
	if close < 0 {
		return []string{p}
	}
	var alts []string
	start := open + 1
	for _, c := range append(commas, close) {
		alts = append(alts, p[start:c])
		start = c + 1
	}
	var out []string
	for _, a := range alts {
		for _, e := range expandBraces(p[:open]+a+p[close+1:], max) {
			if len(out) >= max {
				return out
			}
			out = append(out, e)
		}
	}
	return out
}

// WriteTouches reports whether a write to ref changes a path pattern
// matches: ref itself, or — when ref is a directory being replaced, moved
// or removed — anything below it ("rm -r .git" touches .git/hooks/**).
// Like MatchDenyPath it tries every form of ref, resolved and lexical.
//
// A write to the directory every path of pattern's kind lies below — the
// home directory for "~/…", the workspace for a relative pattern, "/" for
// an absolute one — or to a directory above it touches every such
// pattern ("rm -rf ~" touches ~/.ssh/**, "rm -rf ." .git/hooks/**).
func WriteTouches(pattern string, ref PathRef) bool {
	d := compileDeny(pattern)
	return d.writeTouches(&ref, nil)
}

// writeTouches is WriteTouches for this pattern, with the folded forms of
// ref kept in f (nil: made here), as in matchFolding.
func (d *denyPattern) writeTouches(ref *PathRef, f *refFold) bool {
	if d.cannotTouch(ref, nil) {
		return false
	}
	return d.writeTouchesAll(ref, f)
}

// writeTouchesAll is writeTouches without the short cut of cannotTouch.
func (d *denyPattern) writeTouchesAll(ref *PathRef, f *refFold) bool {
	if d.matchFolding(ref, f) || holdsPatternRoot(d.raw, *ref) {
		return true
	}
	for i, form := range [...]PathRef{*ref, {Rel: ref.lexRel, Home: ref.lexHome, Abs: ref.lexAbs}} {
		if form.Abs == "" || i == 1 && form.Rel == ref.Rel && form.Home == ref.Home && form.Abs == ref.Abs {
			continue // no form, or the lexical form is the resolved one
		}
		below, dir := belowPattern(d.raw), belowDir(d.raw, form)
		if dir == "" {
			continue
		}
		// Most protected patterns begin with a name no written path
		// begins with (.git/hooks/** against src/a.go): decided without
		// quoting the path into a pattern.
		if !hasGlobMeta(dir) && d.belowValid && literalPrefixesDiffer(below, dir) {
			continue
		}
		if globsIntersect(below, escapeGlob(dir)+"/**") {
			return true
		}
		// An existing directory holds files at every depth: removed or
		// moved, each of them is written ("rm -rf src" against **/.env).
		if ref.dir && matchesBelow(below, dir) {
			return true
		}
	}
	// Where the file system ignores case, SRC is src: try again with
	// both sides folded (a wider match only ever refuses more), asking
	// the file systems only when folding everything would touch (as in
	// denyPattern.matchFolding).
	if !ref.mayFold() || !d.foldMatters(ref, f) {
		return false
	}
	if f == nil {
		f = new(refFold)
	}
	low := d.lower()
	if !low.writeTouches(f.wideRef(ref), nil) {
		return false
	}
	ws, home := ref.folding()
	return (ws || home) && low.writeTouches(f.foldedRef(ref, ws, home), nil)
}

// holdsPatternRoot reports whether ref is, or is above, the directory
// every path pattern can match lies below.
func holdsPatternRoot(pattern string, ref PathRef) bool {
	switch {
	case pattern == "~" || strings.HasPrefix(pattern, "~/"):
		return ref.holdsHome || ref.Home == "~" || ref.lexHome == "~"
	case strings.HasPrefix(pattern, "/"):
		return ref.Abs == "/" || ref.lexAbs == "/"
	}
	return ref.holdsWS || ref.Rel == "." || ref.lexRel == "."
}

// belowPattern and belowDir are matchDenyPattern's choice for a write
// to the directory form: the pattern as matched (home-relative without
// "~/", absolute, or workspace-relative; it depends on the pattern alone,
// so that its validity is compiled with it) and the form of the directory
// it is matched against, "" when the directory has no such form (outside
// the home directory, or the workspace itself).
func belowPattern(pattern string) string {
	if pattern == "~" || strings.HasPrefix(pattern, "~/") {
		if d := strings.TrimPrefix(strings.TrimPrefix(pattern, "~"), "/"); d != "" {
			return d
		}
		return "**"
	}
	return pattern
}

func belowDir(pattern string, form PathRef) string {
	switch {
	case pattern == "~" || strings.HasPrefix(pattern, "~/"):
		if form.Home == "" {
			return ""
		}
		return strings.TrimPrefix(strings.TrimPrefix(form.Home, "~"), "/")
	case strings.HasPrefix(pattern, "/"):
		return form.Abs
	case form.Rel == ".":
		return ""
	}
	return form.Rel
}

// escapeGlob quotes the pattern characters of a literal path.
func escapeGlob(p string) string {
	if !hasGlobMeta(p) {
		return p
	}
	var b strings.Builder
	b.Grow(len(p) + 8)
	for i := 0; i < len(p); i++ {
		if strings.IndexByte(`*?[]{}\`, p[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(p[i])
	}
	return b.String()
}
