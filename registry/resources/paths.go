package resources

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"unicode/utf8"
)

// PathRef is one path a tool call touches, in every form the gate matches
// against.
//
// Abs is the absolute path with every symbolic link in its existing part
// resolved; the missing rest is appended as written. Rel is Abs relative to the
// (equally resolved) workspace, with forward slashes: "." for the workspace
// itself and "" when Abs is outside it. Home is "~" or "~/…" when Abs is
// inside the current user's (resolved) home directory, else "". Inside
// reports whether Abs is the workspace or below it; an escape by "..", by an
// absolute path or through a symbolic link is Inside == false, not an error.
//
// A PathRef made by ResolvePath also remembers the lexical forms of the path
// — relative to the workspace and to the home directory before symbolic links
// are followed — so that MatchDenyPath catches a denied name whichever way it
// is reached.
type PathRef struct {
	Rel    string `json:"rel"`
	Abs    string `json:"abs"`
	Home   string `json:"home,omitempty"`
	Inside bool   `json:"inside"`
	// AnySuffix marks a write of files not named yet: the last "*" of
	// the path (in every form) stands for any suffix a program generates
	// (split's outputs). Deny and protected patterns are matched against
	// every name it can stand for.
	AnySuffix bool `json:"any_suffix,omitempty"`

	lexRel, lexHome, lexAbs string
	// foldWS and foldHome: the workspace's and the home directory's file
	// systems ignore case (macOS by default), so .ENV is .env there.
	foldWS, foldHome bool
	// folds asks the file systems whether they ignore case, for the
	// paths of one call (see caseFold); nil when the answer is not asked.
	folds *caseFold
	// holdsWS and holdsHome: the path (resolved or as spelled) is the
	// workspace or the home directory, or a directory above it, so a
	// write there changes every path below them (WriteTouches).
	holdsWS, holdsHome bool
	// dir: the resolved path is an existing directory, so a write there
	// (rm -r, mv, git clean) changes whatever lies below it at any depth.
	dir bool
}

// maxSymlinks bounds symbolic-link expansion, as the kernel's ELOOP does.
const maxSymlinks = 255

// ResolvePath resolves the path p of a tool call against the workspace, an
// absolute directory. p may be absolute, relative to the workspace, or "~" /
// "~/…" (the home directory of the current user, os.UserHomeDir).
//
// Resolution follows the kernel, component by component: a symbolic link is
// replaced by its target before a following ".." is applied, so
// "link/../x" is not mistaken for "x". Components that do not exist are taken
// literally. The workspace is resolved the same way.
//
// Errors are reserved for input that cannot be used: an empty path, a NUL
// byte, a workspace that is not absolute, "~" when the home directory is
// unknown, a symbolic-link loop, or a file-system error other than "does not
// exist" while resolving.
//
// A call that resolves several paths uses one [pathResolver] instead, so
// that what it learns of the file system is shared within the call.
func ResolvePath(workspace, p string) (PathRef, error) {
	r := newPathResolver(workspace)
	return r.resolve(p)
}

// relTo returns p relative to root as a slash path ("." for root itself) and
// whether p is inside root at all. Both are clean absolute paths.
func relTo(root, p string) (string, bool) {
	if p == root {
		return ".", true
	}
	n := len(root)
	if !strings.HasSuffix(root, string(filepath.Separator)) {
		n++ // and the separator after it
	}
	if len(p) < n || !strings.HasPrefix(p, root) || p[n-1] != filepath.Separator {
		return "", false
	}
	return filepath.ToSlash(p[n:]), true
}

func homeForm(home, p string) string {
	rel, ok := relTo(home, p)
	switch {
	case !ok:
		return ""
	case rel == ".":
		return "~"
	default:
		return "~/" + rel
	}
}

// dirInfo is what the resolution of a workspace or home directory keeps.
type dirInfo struct {
	resolved string // symbolic links resolved
	clean    string // as spelled, cleaned
}

// resolveDir resolves a workspace or home directory for this call, with
// the directory as spelled and cleaned. Nothing of it is kept for the next
// call: the workspace, or a directory above it, may be moved or replaced
// by a link between two calls (by a recipe, by any process the gate does
// not see), and the next call must resolve where the shell will really be.
// Whether its file system ignores case is asked later, by the call's
// caseFold, when a match depends on it.
func (r *pathResolver) resolveDir(dir string) (dirInfo, error) {
	if r.noLinksTo(dir) {
		return dirInfo{resolved: dir, clean: dir}, nil
	}
	resolved, err := r.walk(string(filepath.Separator), dir)
	if err != nil {
		return dirInfo{}, err
	}
	clean := dir
	if len(dir) < 2 || dir[0] != '/' || !plainRelative(dir[1:]) {
		clean = filepath.Clean(dir) // a plain absolute path is clean already
	}
	return dirInfo{resolved: resolved, clean: clean}, nil
}

// dirShortCut lets noLinksTo stand in for the walk (off in the test that
// compares the two).
var dirShortCut = true

// noLinksTo is the walk of a clean absolute directory of at least three
// components (below that the walk makes no more system calls than the open
// and close) that dirWithoutLinks finds reached through no link, without
// its lstats: each component is remembered as the directory the walk would
// have found, and dir is its own resolution. The call's first look at
// them decides, as with the walk: a component the call has seen already
// is left to the walk, which answers from what was seen.
func (r *pathResolver) noLinksTo(dir string) bool {
	if !dirShortCut || !mayOpenWithoutLinks() || len(dir) < 2 || dir[0] != '/' || strings.Count(dir, "/") < 3 || !plainRelative(dir[1:]) {
		return false
	}
	if len(r.seen) > 0 || r.entries != nil {
		for i := 1; ; i++ {
			j := strings.IndexByte(dir[i:], '/')
			if j < 0 {
				if _, seen := r.entry(dir); seen {
					return false
				}
				break
			}
			i += j
			if _, seen := r.entry(dir[:i]); seen {
				return false
			}
		}
	}
	if !dirWithoutLinks(dir) {
		return false
	}
	for i := 1; ; i++ {
		j := strings.IndexByte(dir[i:], '/')
		if j < 0 {
			r.remember(dir, pathEntry{dir: true})
			return true
		}
		i += j
		r.remember(dir[:i], pathEntry{dir: true})
	}
}

// isMissing reports the errors that mean "nothing is there": the path, or one
// of its parents, does not exist or is not a directory.
func isMissing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// caseFold is whether the workspace's and the home directory's file
// systems ignore case, asked of the file system at most once per call and
// only when the answer could change a decision: a pattern and a path that
// lower-casing could make match (see denyPattern.matchAll). Nothing of it
// outlives the call's resolver, like everything else the call learns.
type caseFold struct {
	once     sync.Once
	wsDir    string // the resolved workspace
	homeDir  string // the resolved home directory, "" when it is not known
	ws, home bool
}

func (c *caseFold) answer() (ws, home bool) {
	c.once.Do(func() {
		c.ws = caseInsensitive(c.wsDir)
		c.home = c.homeDir != "" && caseInsensitive(c.homeDir)
	})
	return c.ws, c.home
}

// mayFold reports whether a file system of the path may ignore case:
// known to, or not asked yet.
func (r *PathRef) mayFold() bool { return r.foldWS || r.foldHome || r.folds != nil }

// folding is whether the workspace's and the home directory's file
// systems ignore case, asking them if that is not known yet.
func (r *PathRef) folding() (ws, home bool) {
	ws, home = r.foldWS, r.foldHome
	if r.folds != nil {
		fws, fhome := r.folds.answer()
		ws, home = ws || fws, home || fhome
	}
	return ws, home
}

// lowerChanges reports whether strings.ToLower would change s.
func lowerChanges(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			return true
		}
		if c >= utf8.RuneSelf {
			return strings.ToLower(s) != s
		}
	}
	return false
}

// caseInsensitive reports whether the file system holding dir finds a name
// whatever its case: the last component with a letter in it is looked up
// with its case flipped, and must be the same file. Asked on every call
// (a directory replaced between calls may be on another file system, or
// made case-insensitive): the flipped name is looked up first, and the
// directory itself only when that name exists.
func caseInsensitive(dir string) bool {
	for d := dir; d != filepath.Dir(d); d = filepath.Dir(d) {
		base := filepath.Base(d)
		flipped := flipCase(base)
		if flipped == base {
			continue
		}
		return sameFile(filepath.Join(filepath.Dir(d), flipped), d)
	}
	return false
}

func flipCase(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case 'a' <= c && c <= 'z':
			b[i] = c - 32
		case 'A' <= c && c <= 'Z':
			b[i] = c + 32
		}
	}
	return string(b)
}

// Under reports whether the path is dir or lies below it (dir absolute and
// clean), as the kernel resolves it or as it was spelled.
func (r PathRef) Under(dir string) bool {
	if r.AnySuffix && (strings.HasPrefix(dir, beforeStar(r.Abs)) || strings.HasPrefix(dir, beforeStar(r.lexAbs))) {
		return true // a generated suffix may complete dir's name
	}
	return pathUnder(r.Abs, dir) || pathUnder(r.lexAbs, dir)
}

// beforeStar is p up to its last "*" (all of p without one).
func beforeStar(p string) string {
	if i := strings.LastIndexByte(p, '*'); i >= 0 {
		return p[:i]
	}
	return p
}

// starGlob is the pattern of an AnySuffix path: the path quoted, its last
// "*" a wildcard.
func starGlob(p string) string {
	i := strings.LastIndexByte(p, '*')
	if i < 0 {
		return escapeGlob(p)
	}
	return escapeGlob(p[:i]) + "*" + escapeGlob(p[i+1:])
}

// suffixGlobs are the forms of an AnySuffix path (resolved and lexical)
// as patterns, for matching deny and protected patterns against every
// name the path stands for.
func (r PathRef) suffixGlobs() []GlobRef {
	var out []GlobRef
	for _, f := range []PathRef{r, {Rel: r.lexRel, Home: r.lexHome, Abs: r.lexAbs}} {
		if f.Abs == "" && f.Rel == "" && f.Home == "" {
			continue
		}
		g := GlobRef{Pattern: f.Abs}
		if f.Abs != "" {
			g.Abs = starGlob(f.Abs)
		}
		if f.Rel != "" && f.Rel != "." {
			g.Rel = starGlob(f.Rel)
		}
		if h := strings.TrimPrefix(strings.TrimPrefix(f.Home, "~"), "/"); f.Home != "" && h != "" {
			g.Home = starGlob(h)
		}
		out = append(out, g)
	}
	return out
}

// IsDir reports whether the path was an existing directory when it was
// resolved (or walked).
func (r PathRef) IsDir() bool { return r.dir }

func pathUnder(p, dir string) bool {
	if p == "" || dir == "" {
		return false
	}
	return p == dir || dir == "/" || slashBelow(p, dir)
}

// slashBelow is strings.HasPrefix(p, dir+"/") without building dir+"/",
// which for a dir past 32 bytes is an allocation on every check.
func slashBelow(p, dir string) bool {
	return len(p) > len(dir) && p[len(dir)] == '/' && p[:len(dir)] == dir
}
