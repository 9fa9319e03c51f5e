package resources

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// TreeRef is a tree read (see TreeRead) with its root resolved.
type TreeRef struct {
	Program string     `json:"program"`
	Spelled string     `json:"spelled"` // the root as the call names it
	Root    PathRef    `json:"root"`
	Filter  TreeFilter `json:"filter,omitzero"`
	// Follow: the program reads through symbolic links below the root
	// (grep -R, find -exec cat, zip -r …), so every link is checked and
	// no directory is left unlisted.
	Follow bool `json:"follow,omitempty"`

	workspace string
}

func newTreeRef(t TreeRead, root PathRef, workspace string) TreeRef {
	return TreeRef{Program: t.Program, Spelled: t.Root, Root: root, Filter: t.Filter, Follow: t.Follow, workspace: workspace}
}

// MaxTreeEntries bounds the entries one call's tree reads may visit: a
// tree larger than this cannot be checked, and is held for a human.
const MaxTreeEntries = 20000

// TreeResult is what the walk of a call's tree reads found.
//
// Denied is set when an existing entry below a root (or a symbolic
// link's target inside it) matches a deny entry: the program would read
// it. Targets are the targets of symbolic links met below a root that
// resolve outside it: the caller checks each as a read (outside the
// workspace is an escape). Hold says why a tree could not be checked
// (larger than MaxTreeEntries, a directory that cannot be read): the call
// is held for a human, never allowed.
type TreeResult struct {
	Denied  *TreeFinding
	Targets []PathRef
	Hold    string
}

// TreeFinding is one denied entry below a tree read's root.
type TreeFinding struct {
	Tree    TreeRef
	Entry   PathRef // the entry, or the target of Link
	Link    string  // the symbolic link below the root it was reached through, if any
	Pattern string  // the deny entry it matches
}

// CheckTrees walks the trees that trees read against the deny entries
// deny (those that guard what an agent reads; the caller leaves out the
// ones that only guard writes). Directories below which no deny entry can
// match are not entered (matchesBelow), so a deny list of names in a few
// places walks little; an entry the program provably leaves out (its
// Filter) is not counted. A root that is not an existing directory is an
// ordinary read and is not walked.
func CheckTrees(trees []TreeRef, deny []string) TreeResult {
	w := treeWalk{deny: CompileDenyPaths(deny), budget: MaxTreeEntries, visited: map[string]bool{}}
	for _, t := range trees {
		if !t.Root.Inside {
			// A root outside the workspace is refused as a read that
			// escapes it: nothing below it is listed (a mount there may
			// not answer).
			continue
		}
		w.resolver = newPathResolver(t.workspace)
		if st, err := os.Stat(t.Root.Abs); err != nil || !st.IsDir() {
			continue
		}
		root := t.Root
		root.dir = true
		if w.dir(t, root, "", t.Filter) {
			break
		}
	}
	return w.res
}

type treeWalk struct {
	deny     DenyPaths
	budget   int
	visited  map[string]bool
	resolver pathResolver
	res      TreeResult
}

// dir walks the directory ref (rel below the tree's root) with filter f;
// true means stop: a finding or a hold.
func (w *treeWalk) dir(t TreeRef, ref PathRef, rel string, f TreeFilter) bool {
	if w.visited[ref.Abs] {
		return false
	}
	w.visited[ref.Abs] = true
	// Below a directory where no deny entry can match, only a link the
	// program follows could lead to a denied file.
	descend := w.denyBelow(ref)
	if !descend && !t.Follow {
		return false
	}
	entries, err := os.ReadDir(ref.Abs)
	if err != nil {
		if isMissing(err) {
			return false // gone since: nothing is read there
		}
		w.res.Hold = fmt.Sprintf("the gate cannot tell what %s reads: %s cannot be listed (%v)", t.Program, displayRef(ref), errText(err))
		return true
	}
	for _, e := range entries {
		if w.budget--; w.budget < 0 {
			w.res.Hold = fmt.Sprintf("the gate cannot tell what %s reads: %s holds more than %d entries to check", t.Program, displayRef(t.Root), MaxTreeEntries)
			return true
		}
		name := e.Name()
		child := ref.child(name)
		crel := name
		if rel != "" {
			crel = rel + "/" + name
		}
		if e.Type()&fs.ModeSymlink != 0 {
			if !t.Follow {
				continue // stored or skipped as a link, not read through
			}
			if f.skips(name, false) && f.skips(name, true) {
				continue
			}
			if w.link(t, child) {
				return true
			}
			continue
		}
		isDir := e.IsDir()
		child.dir = isDir
		if f.skips(name, isDir) {
			continue
		}
		if !descend && !isDir {
			continue // no deny entry names anything here
		}
		if pat, ok := w.deny.Match(child); descend && ok {
			w.res.Denied = &TreeFinding{Tree: t, Entry: child, Pattern: pat}
			return true
		}
		if isDir {
			if w.dir(t, child, crel, f) {
				return true
			}
		}
	}
	return false
}

// link checks the symbolic link ref met below t's root: its name against
// the deny list, and its target — inside the root against the deny list
// too, outside it as a read the caller checks (Targets). A directory it
// leads to is walked as well, without the program's filter (grep -R, cp
// -L, cat through find follow links).
func (w *treeWalk) link(t TreeRef, ref PathRef) bool {
	if pat, ok := w.deny.Match(ref); ok {
		w.res.Denied = &TreeFinding{Tree: t, Entry: ref, Pattern: pat}
		return true
	}
	target, err := w.resolver.resolve(ref.Abs)
	if err != nil {
		w.res.Hold = fmt.Sprintf("the gate cannot tell what %s reads: the link %s cannot be followed (%v)", t.Program, displayRef(ref), err)
		return true
	}
	if pat, ok := w.deny.Match(target); ok {
		w.res.Denied = &TreeFinding{Tree: t, Entry: target, Link: displayRef(ref), Pattern: pat}
		return true
	}
	if !pathUnder(target.Abs, t.Root.Abs) && !hasRef(w.res.Targets, target) {
		if len(w.res.Targets) >= maxTreeTargets {
			w.res.Hold = fmt.Sprintf("the gate cannot tell what %s reads: more than %d links below %s lead out of it", t.Program, maxTreeTargets, displayRef(t.Root))
			return true
		}
		w.res.Targets = append(w.res.Targets, target)
	}
	if !target.Inside {
		return false // refused as an escape (Targets); not listed
	}
	if st, err := os.Stat(target.Abs); err == nil && st.IsDir() {
		target.dir = true
		return w.dir(t, target, "", TreeFilter{})
	}
	return false
}

// maxTreeTargets bounds the link targets outside a root one call reports.
const maxTreeTargets = 256

// child is the entry name of the directory r, in each of r's forms.
func (r PathRef) child(name string) PathRef {
	c := PathRef{Inside: r.Inside, foldWS: r.foldWS, foldHome: r.foldHome, folds: r.folds}
	c.Abs = joinForm(r.Abs, name, "")
	c.lexAbs = joinForm(r.lexAbs, name, "")
	c.Rel = joinForm(r.Rel, name, ".")
	c.lexRel = joinForm(r.lexRel, name, ".")
	c.Home = joinForm(r.Home, name, "~")
	c.lexHome = joinForm(r.lexHome, name, "~")
	return c
}

// joinForm is one form of a path with name appended: "" stays "" (no
// such form), and top (".", "~") is the directory itself.
func joinForm(form, name, top string) string {
	switch {
	case form == "":
		return ""
	case top != "" && form == top && top == ".":
		return name
	case strings.HasSuffix(form, "/"):
		return form + name
	}
	return form + "/" + name
}

// denyBelow reports whether some deny entry can match a path strictly
// below the directory ref, in any of its forms (and folded where the file
// system ignores case).
func (w *treeWalk) denyBelow(ref PathRef) bool {
	for i := range w.deny.patterns {
		p := &w.deny.patterns[i]
		if denyBelowOne(p, &ref) {
			return true
		}
		if ref.mayFold() {
			// Folded as widely as can be: a wider prune only walks more.
			folded := foldedRef(ref, true, true)
			if denyBelowOne(p.lower(), &folded) {
				return true
			}
		}
	}
	return false
}

// denyBelowOne is the prune's question for one pattern; a test swaps it
// for a wrong one to show the property test catches a wrong prune.
var denyBelowOne = (*denyPattern).below

// below reports whether the pattern can match a path strictly below the
// directory ref, in the form the pattern's kind is matched against.
func (d *denyPattern) below(ref *PathRef) bool {
	if !d.valid {
		return true
	}
	var forms [2]string
	var top string
	switch d.kind {
	case '~':
		forms, top = [2]string{ref.Home, ref.lexHome}, "~"
	case '/':
		forms, top = [2]string{ref.Abs, ref.lexAbs}, "/"
	default:
		forms, top = [2]string{ref.Rel, ref.lexRel}, "."
	}
	for _, f := range forms {
		switch {
		case f == "":
		case f == top:
			return true
		case d.kind == '~':
			if matchesBelow(d.clean, strings.TrimPrefix(f, "~/")) {
				return true
			}
		default:
			if matchesBelow(d.clean, f) {
				return true
			}
		}
	}
	return false
}

// skips reports whether the program provably leaves out the entry of
// base name base.
func (f TreeFilter) skips(base string, isDir bool) bool {
	if f.grepSkips(base, isDir) {
		return true
	}
	return !f.NoGlobs && len(f.Globs) > 0 && globsSkip(f.Globs, base, isDir)
}

// grepSkips is grep's --include, --exclude and --exclude-dir: GNU grep
// matches a base name, BSD grep the base name or the whole name, and the
// last pattern that matches decides. A file is left out only when no
// --include can match it in either way, and either an --exclude matches
// its base name or an --include came first (then a name no pattern
// matches is left out by both).
func (f TreeFilter) grepSkips(base string, isDir bool) bool {
	if isDir {
		for _, pat := range f.ExcludeDir {
			if m, ok := fnmatch(pat, base); ok && m {
				return true
			}
		}
		return false
	}
	if len(f.Include) == 0 && len(f.Exclude) == 0 || f.AnyInclude {
		return false
	}
	for _, pat := range f.Include {
		if includeMayMatch(pat, base) {
			return false
		}
	}
	if f.FirstInclude {
		return true
	}
	for _, pat := range f.Exclude {
		if m, ok := fnmatch(pat, base); ok && m {
			return true
		}
	}
	return false
}

// includeMayMatch reports whether an --include pattern may match a file
// of base name base, by its base name or (BSD grep) its whole name, which
// holds a "/" and a directory part the gate does not spell as grep does.
// Only a name ("go.mod") and "*" before a name ("*.go") are read: neither
// can match across a "/", so the base name decides; any other pattern may
// match.
func includeMayMatch(pat, base string) bool {
	lit, star := strings.CutPrefix(pat, "*")
	if strings.ContainsAny(lit, "*?[\\/") || lit == "" {
		return true
	}
	if star {
		return strings.HasSuffix(base, lit)
	}
	return base == lit
}

// globsSkip is ripgrep's -g list for one entry: the last glob that
// matches decides ("!" leaves out); a file no glob matches is left out
// when some glob is a whitelist. A glob with a slash in it is taken to
// match everything when it lets in and nothing when it leaves out, which
// only ever leaves out less.
func globsSkip(globs []string, base string, isDir bool) bool {
	last, whitelist := -1, false
	for i, g := range globs {
		neg := strings.HasPrefix(g, "!")
		pat := strings.TrimPrefix(g, "!")
		if !neg {
			whitelist = true
		}
		dirOnly := strings.HasSuffix(pat, "/")
		pat = strings.TrimSuffix(pat, "/")
		if dirOnly && !isDir {
			continue
		}
		var m bool
		switch {
		case pat == "" || strings.Contains(pat, "/"):
			m = !neg
		default:
			matched, err := doublestar.Match(pat, base)
			m = matched || err != nil && !neg
		}
		if m {
			last = i
		}
	}
	if last >= 0 {
		return strings.HasPrefix(globs[last], "!")
	}
	return whitelist && !isDir
}

func displayRef(p PathRef) string {
	switch {
	case p.Inside:
		return p.Rel
	case p.Home != "":
		return p.Home
	}
	return p.Abs
}

func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
