package resources

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// pathResolver resolves the paths of one tool call (see ResolvePath). It
// works out the workspace and the home directory once, on the call's first
// path (a call that names none makes no system call for them), and
// remembers what each path component it examined is, so that a line
// naming src/a.go, src/b.go and src/c.go looks at src once.
//
// What it remembers is the file system as this one call found it: a
// resolver is made for a call and dropped with it, never shared between
// calls, so a symbolic link planted or swapped between two calls — in the
// workspace, above it, or in place of it — is seen by the second.
type pathResolver struct {
	workspace string // as given
	started   bool   // the workspace and home directory are worked out
	wsErr     error  // the workspace cannot be used
	ws        string // the workspace, resolved
	cleanWS   string // the workspace as spelled, cleaned
	folds     *caseFold
	fold      caseFold // what folds points to, kept here to save its allocation

	home       string // os.UserHomeDir, "" with homeErr
	homeErr    error
	homeRes    string // home, resolved; "" with homeResErr
	homeResErr error
	cleanHome  string

	// seen is what lstat found for each absolute path examined: a list
	// while it is short (most calls examine a handful), then a map.
	seen    []seenEntry
	entries map[string]pathEntry
}

type seenEntry struct {
	path string
	e    pathEntry
}

// pathEntry is what one lstat found: nothing (missing), a file or
// directory, or a symbolic link and its target; err is any other failure.
type pathEntry struct {
	missing bool
	link    bool
	dir     bool
	target  string
	err     error
}

// newPathResolver starts the resolution of one call's paths against the
// workspace.
func newPathResolver(workspace string) pathResolver {
	return pathResolver{workspace: workspace}
}

// start works out the workspace and the home directory. An unusable
// workspace is reported by resolve, after the path itself is checked, so
// that the errors keep their order.
func (r *pathResolver) start() {
	r.started = true
	workspace := r.workspace
	if workspace == "" || !filepath.IsAbs(workspace) || strings.IndexByte(workspace, 0) >= 0 {
		r.wsErr = fmt.Errorf("workspace %q is not an absolute path", workspace)
		return
	}
	r.home, r.homeErr = os.UserHomeDir()
	if r.homeErr == nil && !filepath.IsAbs(r.home) {
		r.homeErr = fmt.Errorf("home directory %q is not absolute", r.home)
	}
	ws, err := r.resolveDir(workspace)
	if err != nil {
		r.wsErr = fmt.Errorf("cannot resolve workspace %q: %w", workspace, err)
		return
	}
	r.ws, r.cleanWS = ws.resolved, ws.clean
	r.fold.wsDir = r.ws
	r.folds = &r.fold
	if r.homeErr == nil {
		home, err := r.resolveDir(r.home)
		r.homeRes, r.cleanHome, r.homeResErr = home.resolved, home.clean, err
		if err != nil {
			r.cleanHome = filepath.Clean(r.home)
		} else {
			r.folds.homeDir = r.homeRes
		}
	}
}

// resolve is ResolvePath for one path of the call.
func (r *pathResolver) resolve(p string) (PathRef, error) {
	switch {
	case p == "":
		return PathRef{}, errors.New("empty path")
	case strings.IndexByte(p, 0) >= 0:
		return PathRef{}, errors.New("path contains a NUL byte")
	}
	if !r.started {
		r.start()
	}
	switch {
	case r.wsErr != nil:
		return PathRef{}, r.wsErr
	}
	var raw, abs string
	var err error
	relative := false
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		if r.homeErr != nil {
			return PathRef{}, fmt.Errorf("cannot resolve %q: %v", p, r.homeErr)
		}
		raw = r.home + "/" + p[1:]
		if r.homeResErr == nil {
			abs, err = r.walk(r.homeRes, strings.TrimPrefix(p[1:], "/"))
		} else {
			err = r.homeResErr
		}
	case filepath.IsAbs(p):
		raw = p
		abs, err = r.walk(string(filepath.Separator), raw)
	default:
		// Resolution is left to right, so resolving the workspace first
		// and the relative rest from there is the same walk, minus the
		// system calls for the workspace's own components.
		relative = true
		abs, err = r.walk(r.ws, p)
	}
	if err != nil {
		// shorten: a path the kernel finds too long is long, and the
		// message need not repeat all of it.
		return PathRef{}, fmt.Errorf("cannot resolve %q: %w", shorten(p), err)
	}
	ref := PathRef{Abs: abs, folds: r.folds}
	if rel, ok := relTo(r.ws, abs); ok {
		ref.Rel, ref.Inside = rel, true
	}
	var lexAbs string
	switch {
	case relative && plainRelative(p) && isJoin(abs, r.cleanWS, p):
		lexAbs = abs // no link on the way: the spelled form is the resolved one
	case relative && plainRelative(p):
		lexAbs = joinComponent(r.cleanWS, p) // Clean would change nothing after the workspace
	case relative:
		lexAbs = filepath.Clean(r.workspace + "/" + p)
	default:
		lexAbs = filepath.Clean(raw)
	}
	ref.lexAbs = lexAbs
	if rel, ok := relTo(r.cleanWS, lexAbs); ok {
		ref.lexRel = rel
	}
	if r.homeErr == nil {
		if r.homeResErr == nil {
			ref.Home = homeForm(r.homeRes, abs)
		}
		ref.lexHome = homeForm(r.cleanHome, lexAbs)
		ref.holdsHome = r.homeResErr == nil && holds(abs, r.homeRes) || holds(lexAbs, r.cleanHome)
	}
	ref.holdsWS = holds(abs, r.ws) || holds(lexAbs, r.cleanWS)
	// The walk looked at abs's last component (unless abs is "/" or was
	// reached by ".." alone): whether it is a directory costs nothing more.
	if e, ok := r.entry(abs); ok {
		ref.dir = e.dir
	} else if abs == string(filepath.Separator) || abs == r.ws {
		ref.dir = true
	} else {
		ref.dir = r.lstat(abs).dir
	}
	return ref, nil
}

// resolve returns the absolute path raw designates, resolving symbolic links
// component by component. raw must be absolute; it need not be clean.
func resolve(raw string) (string, error) {
	var r pathResolver
	return r.walk(string(filepath.Separator), raw)
}

// walk continues a resolution: base is an already resolved absolute
// directory and rest the components still to walk (an absolute rest
// restarts from the root). The components are taken off rest one at a
// time; a symbolic link puts its target in front of what is left.
func (r *pathResolver) walk(base, rest string) (string, error) {
	rest = filepath.ToSlash(rest)
	resolved := base
	// While an absolute rest is walked component by component with no
	// link, "." or ".." met, resolved is its first n bytes, and the next
	// path is a longer prefix of it rather than a new string.
	src, n := "", -1
	switch {
	case filepath.IsAbs(rest) || strings.HasPrefix(rest, "/"):
		resolved = string(filepath.Separator)
		if filepath.Separator == '/' {
			src, n, rest = rest, 1, rest[1:]
		}
	case filepath.Separator == '/' && rest != "" && base == "/":
		src, n = base+rest, 1
	case filepath.Separator == '/' && rest != "" && base != "" && base[len(base)-1] != '/':
		// base + "/" + rest is built once, and each path walked is a
		// prefix of it, as for an absolute rest: what joinComponent
		// would build component by component.
		src, n = base+"/"+rest, len(base)
	}
	links := 0
	// missing is a path found not to exist: nothing below it exists
	// either, and the kernel would say so without being asked again.
	missing := ""
	for rest != "" {
		comp := rest
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			comp, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		switch comp {
		case "", ".":
			n = -1
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			n = -1
			continue
		}
		var next string
		if n >= 0 {
			if n > 1 {
				n++ // the slash before comp; "/" ends in its own
			}
			n += len(comp)
			next = src[:n]
		} else {
			next = joinComponent(resolved, comp)
		}
		var e pathEntry
		if missing != "" && len(next) > len(missing) && next[len(missing)] == '/' && strings.HasPrefix(next, missing) {
			e = r.below(next)
		} else {
			e = r.lstat(next)
		}
		switch {
		case e.err != nil:
			return "", e.err
		case !e.link: // a file, a directory, or nothing yet (taken literally)
			if e.missing {
				missing = next
			}
			resolved = next
			continue
		}
		if strings.HasPrefix(next, "/proc/") {
			return "", errProcView
		}
		n = -1
		links++
		if links > maxSymlinks {
			return "", errors.New("too many levels of symbolic links")
		}
		if filepath.IsAbs(e.target) {
			resolved = string(filepath.Separator)
		}
		if rest == "" {
			rest = filepath.ToSlash(e.target)
		} else {
			rest = filepath.ToSlash(e.target) + "/" + rest
		}
	}
	return resolved, nil
}

// errProcView: a link below /proc (/proc/self, /proc/PID/cwd, root, fd/N,
// exe) names what a process has open or where it is, now: for the gate's
// own process when the gate reads it, and for any process something the
// line can change before it runs. It is reached in spellings the shell
// analysis does not rewrite (/proc//self/cwd, ~/../../proc/self,
// /dev/fd/3, a link to /proc), so the walk refuses it wherever it is met.
var errProcView = errors.New("it goes through a view of a process in /proc, which names something else for the shell when it runs than for the gate now")

// joinComponent is filepath.Join for a clean directory and one plain
// component, without the Clean.
func joinComponent(dir, comp string) string {
	if filepath.Separator != '/' {
		return filepath.Join(dir, comp)
	}
	if strings.HasSuffix(dir, "/") {
		return dir + comp
	}
	return dir + "/" + comp
}

// lstat is lstat(2) (and readlink(2) for a link) of an absolute path, asked
// of the file system once per call.
func (r *pathResolver) lstat(p string) pathEntry {
	if e, ok := r.entry(p); ok {
		return e
	}
	var e pathEntry
	isLink, isDir, missing, err := lstatEntry(p)
	e.dir = isDir
	switch {
	case missing:
		e.missing = true
	case err != nil:
		e.err = err
	case isLink:
		e.link = true
		e.target, e.err = os.Readlink(p)
	}
	r.remember(p, e)
	return e
}

// below is what lies at p, below a path found missing: nothing, unless
// the call already looked at p (the answers of one call stay one).
func (r *pathResolver) below(p string) pathEntry {
	if e, ok := r.entry(p); ok {
		return e
	}
	e := pathEntry{missing: true}
	r.remember(p, e)
	return e
}

// entry is what lstat found for p earlier in the call, if it was asked.
func (r *pathResolver) entry(p string) (pathEntry, bool) {
	if r.entries != nil {
		e, ok := r.entries[p]
		return e, ok
	}
	for i := range r.seen {
		if r.seen[i].path == p {
			return r.seen[i].e, true
		}
	}
	return pathEntry{}, false
}

func (r *pathResolver) remember(p string, e pathEntry) {
	if r.entries == nil && len(r.seen) < smallList {
		if r.seen == nil {
			r.seen = make([]seenEntry, 0, 8)
		}
		r.seen = append(r.seen, seenEntry{p, e})
		return
	}
	if r.entries == nil {
		r.entries = make(map[string]pathEntry, 2*smallList)
		for _, s := range r.seen {
			r.entries[s.path] = s.e
		}
		r.seen = nil
	}
	r.entries[p] = e
}

// plainRelative reports whether the relative path p is clean already: no
// empty, "." or ".." component, no leading or trailing slash.
func plainRelative(p string) bool {
	if p == "" || p[0] == '/' || p[len(p)-1] == '/' || filepath.Separator != '/' {
		return false
	}
	for rest := p; rest != ""; {
		comp := rest
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			comp, rest = rest[:i], rest[i+1:]
			if rest == "" {
				return false
			}
		} else {
			rest = ""
		}
		if comp == "" || comp == "." || comp == ".." {
			return false
		}
	}
	return true
}

// isJoin reports whether s is dir + "/" + p, without building that string.
func isJoin(s, dir, p string) bool {
	if dir == "/" {
		return len(s) == 1+len(p) && s[0] == '/' && s[1:] == p
	}
	return len(s) == len(dir)+1+len(p) && strings.HasPrefix(s, dir) && s[len(dir)] == '/' && strings.HasSuffix(s, p)
}

// holds reports whether the directory dir is p or a directory above it.
func holds(dir, p string) bool {
	_, ok := relTo(dir, p)
	return ok
}
