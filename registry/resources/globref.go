package resources

import (
	"path"
	"strings"

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
// and ".e[n]v" all meet a deny of ".env", and "**/*" meets every deny.
// A ** that merely descends through a denied directory ("**/*.go" and
// "secrets/**") is not a match here: what a recursive search reads below
// its root is the root's question, checked as a read. A pattern that
// cannot be interpreted overlaps everything.
func MatchDenyGlob(deny string, g GlobRef) bool {
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
	return globsOverlap(deny, target)
}

func globsOverlap(a, b string) bool {
	if !doublestar.ValidatePattern(a) || !doublestar.ValidatePattern(b) {
		return true
	}
	for _, s := range witnesses(a) {
		if m, _ := doublestar.Match(b, s); m {
			return true
		}
	}
	for _, s := range witnesses(b) {
		if m, _ := doublestar.Match(a, s); m {
			return true
		}
	}
	return false
}

// maxWitnesses bounds brace expansion (a{b,c}{d,e}… doubles each time).
const maxWitnesses = 64

// witnesses are paths pattern matches: each brace alternative, with every
// wildcard once as little as it can match and once as a plain name "x".
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
func WriteTouches(pattern string, ref PathRef) bool {
	if MatchDenyPath(pattern, ref) {
		return true
	}
	for _, form := range []PathRef{ref, {Rel: ref.lexRel, Home: ref.lexHome, Abs: ref.lexAbs}} {
		if form.Abs == "" {
			continue
		}
		below := GlobRef{Pattern: form.Abs + "/**", Abs: escapeGlob(form.Abs) + "/**"}
		if form.Rel != "" && form.Rel != "." {
			below.Rel = escapeGlob(form.Rel) + "/**"
		}
		if h := strings.TrimPrefix(strings.TrimPrefix(form.Home, "~"), "/"); form.Home != "" && h != "" {
			below.Home = escapeGlob(h) + "/**"
		}
		if MatchDenyGlob(pattern, below) {
			return true
		}
	}
	return false
}

// escapeGlob quotes the pattern characters of a literal path.
func escapeGlob(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if strings.IndexByte(`*?[]{}\`, p[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(p[i])
	}
	return b.String()
}
