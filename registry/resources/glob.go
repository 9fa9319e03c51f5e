package resources

import (
	"path"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
)

// MatchGlob reports whether the workspace-relative slash path rel (as in
// PathRef.Rel) matches the workspace-relative glob pattern, with doublestar
// semantics: * and ? stay within one segment, ** spans any number of
// segments, "dir/**" matches dir itself and everything below it, and "**"
// matches everything. "." (the workspace itself) is matched only by "**" and
// ".". A "." segment in the pattern is ignored ("./src/**" is "src/**").
//
// MatchGlob is for granting: an empty rel (a path outside the workspace), an
// invalid pattern or a pattern with a ".." segment matches nothing.
func MatchGlob(pattern, rel string) bool {
	m, valid := matchRel(pattern, rel)
	return valid && m
}

// matchRel matches a workspace-relative pattern; valid is false when the
// pattern cannot be interpreted.
func matchRel(pattern, rel string) (match, valid bool) {
	pat, ok := cleanGlob(pattern)
	if !ok {
		return false, false
	}
	if rel == "" {
		return false, true
	}
	if rel == "." {
		return pat == "**" || pat == ".", true
	}
	// cleanGlob validated pat: matching need not validate it again on
	// every mismatch.
	return doublestar.MatchUnvalidated(pat, rel), true
}

// cleanGlob drops "." segments, duplicate and trailing slashes. A pattern with
// a ".." segment, or one doublestar cannot parse, is not valid.
func cleanGlob(pattern string) (string, bool) {
	cleanCache.RLock()
	c, ok := cleanCache.m[pattern]
	cleanCache.RUnlock()
	if ok {
		return c.p, c.ok
	}
	p, valid := cleanGlobUncached(pattern)
	cleanCache.Lock()
	if cleanCache.m == nil {
		cleanCache.m = map[string]cleaned{}
	}
	if len(cleanCache.m) < maxCleanCache {
		cleanCache.m[pattern] = cleaned{p, valid}
	}
	cleanCache.Unlock()
	return p, valid
}

// cleanCache remembers cleanGlob's answers: a lease's globs are matched on
// every call, and cleaning them costs more than matching. It stops growing
// at maxCleanCache entries. What it holds depends on the pattern's text
// alone, never on the file system.
var cleanCache struct {
	sync.RWMutex
	m map[string]cleaned
}

const maxCleanCache = 4096

type cleaned struct {
	p  string
	ok bool
}

func cleanGlobUncached(pattern string) (string, bool) {
	if pattern == "" {
		return "", false
	}
	for _, seg := range strings.Split(pattern, "/") {
		if seg == ".." {
			return "", false
		}
	}
	p := path.Clean(pattern)
	if !doublestar.ValidatePattern(p) {
		return "", false
	}
	return p, true
}

// MatchDenyPath reports whether a deny pattern refuses the path ref.
//
//   - A pattern starting "~/" (or "~" itself) is home-relative: "~/.ssh/**"
//     is matched against ref.Home with the "~/" removed, so it catches
//     ~/.ssh/id_rsa however the tool call spelled it.
//   - A pattern starting "/" (refused by the schemas, accepted here for
//     safety) is matched against ref.Abs.
//   - Any other pattern is workspace-relative and is matched against ref.Rel.
//
// Every form is tried both after and before symbolic links are resolved, so
// a deny of "secrets/**" catches "link-to-secrets/key" (resolved form) as well
// as "secrets/key" when secrets is itself a link elsewhere (lexical form).
//
// MatchDenyPath fails closed: a pattern that cannot be interpreted (a ".."
// segment, a syntax error) matches every path.
func MatchDenyPath(pattern string, ref PathRef) bool {
	d := compileDeny(pattern)
	return d.matchAll(&ref)
}

// matchAll is MatchDenyPath for this pattern.
func (d *denyPattern) matchAll(ref *PathRef) bool { return d.matchFolding(ref, nil) }

// matchFolding is matchAll with the folded forms of ref kept in f (nil:
// made here), so that the patterns of one list fold the path once.
func (d *denyPattern) matchFolding(ref *PathRef, f *refFold) bool {
	if d.match(ref) {
		return true
	}
	if ref.AnySuffix {
		for _, g := range ref.suffixGlobs() {
			if matchDenyPattern(d.raw, g, globsIntersect) {
				return true
			}
		}
	}
	// Where the file system ignores case, .ENV is .env: match again with
	// both sides folded (a wider match only ever refuses more).
	if !ref.mayFold() || !d.foldMatters(ref, f) {
		return false
	}
	if f == nil {
		f = new(refFold)
	}
	low := d.lower()
	// Matching fewer forms matches less: if the path does not match with
	// all its forms folded, no answer of the file systems can make it
	// match, and they need not be asked.
	if !ref.AnySuffix {
		// A folded path neither folds again nor stands for suffixes, so
		// matchAll is match, which reads the forms of the pattern's kind
		// alone: only they are lowered.
		if !low.match(f.kindRef(ref, d.kind, true, true)) {
			return false
		}
		ws, home := ref.folding()
		return (ws || home) && low.match(f.kindRef(ref, d.kind, ws, home))
	}
	if !low.matchAll(f.wideRef(ref)) {
		return false
	}
	ws, home := ref.folding()
	if !ws && !home {
		return false
	}
	return low.matchAll(f.foldedRef(ref, ws, home))
}

// foldMatters reports whether lower-casing could change the match: the
// pattern, or a form of ref matched against a pattern of its kind, has a
// letter ToLower changes. Otherwise the folded match is the one that
// failed already. f (nil: none) keeps the answer for ref's forms.
func (d *denyPattern) foldMatters(ref *PathRef, f *refFold) bool {
	if d.upper {
		return true
	}
	if f == nil {
		return formsChange(ref, d.kind)
	}
	return f.formsChange(ref, d.kind)
}

// formsChange reports whether ToLower changes a form of ref that a
// pattern of kind is matched against.
func formsChange(ref *PathRef, kind byte) bool {
	switch kind {
	case '~':
		return lowerChanges(ref.Home) || lowerChanges(ref.lexHome)
	case '/':
		return lowerChanges(ref.Abs) || lowerChanges(ref.lexAbs)
	}
	return lowerChanges(ref.Rel) || lowerChanges(ref.lexRel)
}

// foldedRef is ref with the forms on a file system that ignores case
// (the workspace's when ws, the home directory's when home) lowered, and
// the others left out.
func foldedRef(ref PathRef, ws, home bool) PathRef {
	low := PathRef{Rel: strings.ToLower(ref.Rel), lexRel: strings.ToLower(ref.lexRel), AnySuffix: ref.AnySuffix, holdsWS: ref.holdsWS, holdsHome: ref.holdsHome, dir: ref.dir}
	if home {
		low.Home, low.lexHome = strings.ToLower(ref.Home), strings.ToLower(ref.lexHome)
	}
	if ws && home {
		low.Abs, low.lexAbs = strings.ToLower(ref.Abs), strings.ToLower(ref.lexAbs)
	}
	if !ws {
		low.Rel, low.lexRel = "", ""
	}
	return low
}

// denyPattern is one deny entry cleaned for matching: home-relative ("~/…",
// without the "~/"), absolute, or workspace-relative. A pattern that cannot
// be interpreted (valid false) matches everything.
type denyPattern struct {
	raw   string
	kind  byte // '~', '/' or 'r'
	clean string
	valid bool
	// shape says how clean matches without the glob engine: 'l' a
	// literal name, 'd' a literal directory and all below it ("x/**",
	// dir the literal part), 'g' anything else.
	shape byte
	dir   string
	upper bool // strings.ToLower changes raw
	// first is the pattern's first name, literal and lower-cased, or ""
	// (firstSegment): what cannotTouch compares.
	first string
	// low is the pattern lower-cased, compiled, when upper (nil: it is
	// this one, or a pattern lowered already).
	low *denyPattern
	// belowValid: the pattern as a write below a directory is matched
	// against it (belowPattern) is one doublestar accepts.
	belowValid bool
}

// lower is compileDeny(strings.ToLower(d.raw)), compiled once.
func (d *denyPattern) lower() *denyPattern {
	switch {
	case d.low != nil:
		return d.low
	case !d.upper:
		return d // ToLower changes nothing
	}
	low := compileDeny(strings.ToLower(d.raw))
	return &low
}

func compileDeny(pattern string) denyPattern {
	denyCache.RLock()
	d, ok := denyCache.m[pattern]
	denyCache.RUnlock()
	if ok {
		return d
	}
	d = compileDenyUncached(pattern)
	denyCache.Lock()
	if denyCache.m == nil {
		denyCache.m = map[string]denyPattern{}
	}
	if len(denyCache.m) < maxCleanCache {
		denyCache.m[pattern] = d
	}
	denyCache.Unlock()
	return d
}

// denyCache remembers compiled deny patterns, which depend on the
// pattern's text alone: a lease's deny list is matched on every call.
var denyCache struct {
	sync.RWMutex
	m map[string]denyPattern
}

func compileDenyUncached(pattern string) denyPattern {
	d := compileDenyOne(pattern)
	if d.upper {
		low := compileDenyOne(strings.ToLower(pattern))
		d.low = &low
	}
	return d
}

// compileDenyOne is compileDenyUncached without the lower-cased form.
func compileDenyOne(pattern string) denyPattern {
	d := denyPattern{raw: pattern, kind: 'r', upper: lowerChanges(pattern)}
	d.belowValid = doublestar.ValidatePattern(belowPattern(pattern))
	sub := pattern
	switch {
	case pattern == "~" || strings.HasPrefix(pattern, "~/"):
		d.kind = '~'
		sub = strings.TrimPrefix(strings.TrimPrefix(pattern, "~"), "/")
		if sub == "" {
			sub = "."
		}
	case strings.HasPrefix(pattern, "/"):
		d.kind = '/'
	}
	d.clean, d.valid = cleanGlob(sub)
	d.first = firstSegment(d.clean, d.kind)
	d.shape = 'g'
	switch {
	case !hasGlobMeta(d.clean):
		d.shape = 'l'
	case strings.HasSuffix(d.clean, "/**") && !hasGlobMeta(d.clean[:len(d.clean)-3]):
		d.shape, d.dir = 'd', d.clean[:len(d.clean)-3]
	}
	return d
}

// globMeta are the characters doublestar gives a meaning.
const globMeta = `*?[]{}\`

// isGlobMeta holds the bytes of globMeta, so that hasGlobMeta is one table
// look-up a byte (strings.ContainsAny builds its set on every call).
var isGlobMeta = func() (t [256]bool) {
	for i := 0; i < len(globMeta); i++ {
		t[globMeta[i]] = true
	}
	return t
}()

// hasGlobMeta is strings.ContainsAny(s, globMeta): globMeta is ASCII, so a
// byte of s is one of its characters exactly when it is one of its bytes.
func hasGlobMeta(s string) bool {
	for i := 0; i < len(s); i++ {
		if isGlobMeta[s[i]] {
			return true
		}
	}
	return false
}

// matches is matchCleaned for this pattern, by its shape.
func (d *denyPattern) matches(rel string) bool {
	switch {
	case rel == "":
		return false
	case d.shape == 'l':
		return rel == d.clean
	case d.shape == 'd':
		return rel == d.dir || strings.HasPrefix(rel, d.dir) && len(rel) > len(d.dir) && rel[len(d.dir)] == '/'
	}
	return matchCleaned(d.clean, rel)
}

// match is matchDeny: every form of ref, without case folding.
func (d *denyPattern) match(ref *PathRef) bool {
	if !d.valid {
		return true
	}
	switch d.kind {
	case '~':
		for i, h := range []string{ref.Home, ref.lexHome} {
			if h == "" || i == 1 && h == ref.Home {
				continue
			}
			rel := "."
			if h != "~" {
				rel = strings.TrimPrefix(h, "~/")
			}
			if d.matches(rel) {
				return true
			}
		}
		return false
	case '/':
		for _, abs := range []string{ref.Abs, ref.lexAbs} {
			if abs == "" {
				continue
			}
			if doublestar.MatchUnvalidated(d.clean, abs) {
				return true
			}
		}
		return false
	default:
		return d.matches(ref.Rel) || ref.lexRel != ref.Rel && d.matches(ref.lexRel)
	}
}

// matchCleaned is MatchGlob for a pattern cleanGlob has accepted.
func matchCleaned(pat, rel string) bool {
	switch rel {
	case "":
		return false
	case ".":
		return pat == "**" || pat == "."
	}
	return doublestar.MatchUnvalidated(pat, rel)
}
