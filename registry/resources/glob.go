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
	m, err := doublestar.Match(pat, rel)
	if err != nil {
		return false, false
	}
	return m, true
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
	if matchDeny(pattern, ref) {
		return true
	}
	if ref.AnySuffix {
		for _, g := range ref.suffixGlobs() {
			if matchDenyPattern(pattern, g, globsIntersect) {
				return true
			}
		}
	}
	// Where the file system ignores case, .ENV is .env: match again with
	// both sides folded (a wider match only ever refuses more).
	if ref.foldWS || ref.foldHome {
		low := PathRef{Rel: strings.ToLower(ref.Rel), lexRel: strings.ToLower(ref.lexRel), AnySuffix: ref.AnySuffix}
		if ref.foldHome {
			low.Home, low.lexHome = strings.ToLower(ref.Home), strings.ToLower(ref.lexHome)
		}
		if ref.foldWS && ref.foldHome {
			low.Abs, low.lexAbs = strings.ToLower(ref.Abs), strings.ToLower(ref.lexAbs)
		}
		if !ref.foldWS {
			low.Rel, low.lexRel = "", ""
		}
		return MatchDenyPath(strings.ToLower(pattern), low)
	}
	return false
}

// matchDeny is MatchDenyPath without case folding.
func matchDeny(pattern string, ref PathRef) bool {
	switch {
	case pattern == "~" || strings.HasPrefix(pattern, "~/"):
		sub := strings.TrimPrefix(strings.TrimPrefix(pattern, "~"), "/")
		if sub == "" {
			sub = "."
		}
		pat, ok := cleanGlob(sub)
		if !ok {
			return true
		}
		for _, h := range []string{ref.Home, ref.lexHome} {
			if h == "" {
				continue
			}
			rel := "."
			if h != "~" {
				rel = strings.TrimPrefix(h, "~/")
			}
			if matchCleaned(pat, rel) {
				return true
			}
		}
		return false
	case strings.HasPrefix(pattern, "/"):
		pat, ok := cleanGlob(pattern)
		if !ok {
			return true
		}
		for _, abs := range []string{ref.Abs, ref.lexAbs} {
			if abs == "" {
				continue
			}
			if m, _ := doublestar.Match(pat, abs); m {
				return true
			}
		}
		return false
	default:
		pat, ok := cleanGlob(pattern)
		if !ok {
			return true
		}
		return matchCleaned(pat, ref.Rel) || matchCleaned(pat, ref.lexRel)
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
	m, err := doublestar.Match(pat, rel)
	return err == nil && m
}
