package resources

import (
	"mvdan.cc/sh/v3/syntax"
)

// TreeRead is a program that reads every file below a directory it is
// given (grep -r, rg, find -exec, cp -r, tar c, diff -r, zip -r, rsync -r,
// the Grep tool): not only the root it names but whatever lies below it,
// which a deny entry below the root must stop. Root is reported as
// ReadOperands are (relative to where the shell starts, or absolute, or
// "~/…"); the root is listed among ReadOperands too, so it is checked as an
// ordinary read as well. A root that is not a directory is an ordinary read
// and nothing more.
type TreeRead struct {
	Program string     `json:"program"`
	Root    string     `json:"root"`
	Filter  TreeFilter `json:"filter,omitzero"`
	// Follow: the program reads through symbolic links below the root.
	Follow bool `json:"follow,omitempty"`
}

// TreeFilter is what a recursive reader is told to leave out, as far as
// the gate can prove it: only what is certain to be skipped is modelled,
// and an option the gate cannot read counts for nothing.
//
// Grep is GNU and BSD grep's --include, --exclude and --exclude-dir:
// patterns matched with fnmatch against an entry's base name (BSD grep
// tries the whole name too). Globs is ripgrep's -g/--glob list in order
// ("!x" leaves x out; the last glob that matches decides; with any
// whitelist glob, a file that matches none is left out).
type TreeFilter struct {
	Include      []string `json:"include,omitempty"`
	Exclude      []string `json:"exclude,omitempty"`
	ExcludeDir   []string `json:"exclude_dir,omitempty"`
	FirstInclude bool     `json:"first_include,omitempty"` // --include came before any --exclude/--exclude-from
	// AnyInclude: some --include pattern could not be read, so no file
	// can be shown to fall outside every --include.
	AnyInclude bool     `json:"any_include,omitempty"`
	Globs      []string `json:"globs,omitempty"`
	// NoGlobs: the glob list cannot be modelled (case-insensitive
	// globs, a glob the gate cannot read): it leaves nothing out.
	NoGlobs bool `json:"no_globs,omitempty"`
}

// Empty reports whether f leaves nothing out.
func (f TreeFilter) Empty() bool {
	return len(f.Exclude) == 0 && len(f.ExcludeDir) == 0 && len(f.Include) == 0 && !f.FirstInclude &&
		(len(f.Globs) == 0 || f.NoGlobs)
}

// maxTreeReads bounds the tree reads one line records: past it the line
// is refused, since every one is a walk of the file system.
const maxTreeReads = 64

// treeArgs records the words ws as roots prog reads recursively (and as
// ordinary reads of the roots themselves).
func (a *analyzer) treeArgs(prog string, ws []*syntax.Word, c ctx, f TreeFilter, follow bool) {
	for _, w := range ws {
		a.readArg(prog, w, c)
		if isProcSubst(w) {
			continue
		}
		if l, ok := staticWord(w); ok && (l.s == "-" || ignoredDevices[l.s]) {
			continue
		}
		paths, ok := a.argPaths(w, c)
		if !ok {
			continue // readArg has refused it
		}
		for _, p := range paths {
			a.addTree(TreeRead{Program: prog, Root: p, Filter: f, Follow: follow})
		}
	}
}

func (a *analyzer) addTree(t TreeRead) {
	for _, x := range a.use.TreeReads {
		if x.Program == t.Program && x.Root == t.Root && x.Filter.Empty() && t.Filter.Empty() {
			return
		}
	}
	if len(a.use.TreeReads) >= maxTreeReads {
		a.failf("refused: the line reads more than %d directory trees, which the gate does not check one by one", maxTreeReads)
		return
	}
	a.use.TreeReads = append(a.use.TreeReads, t)
}

// grepFilter is the filter of grep's --include, --exclude,
// --exclude-from and --exclude-dir options, in the order they were given.
func (a *analyzer) grepFilter(p *optWalk) TreeFilter {
	var f TreeFilter
	seenFirst := false
	first := func(include bool) {
		if !seenFirst {
			seenFirst, f.FirstInclude = true, include
		}
	}
	for _, nv := range p.seq {
		v, ok := staticWord(nv.w)
		if nv.name == "include" || nv.name == "exclude" || nv.name == "exclude-dir" {
			a.markInert(nv.src)
		}
		switch {
		case nv.name == "include" && !ok:
			first(true)
			f.AnyInclude = true
		case nv.name == "include":
			first(true)
			f.Include = append(f.Include, v.s)
		case nv.name == "exclude" || nv.name == "exclude-from":
			first(false)
			if ok && nv.name == "exclude" {
				f.Exclude = append(f.Exclude, v.s)
			}
		case nv.name == "exclude-dir" && ok:
			f.ExcludeDir = append(f.ExcludeDir, v.s)
		}
	}
	if p.has("include-dir") {
		f.ExcludeDir = nil // BSD grep: an --include-dir decides which directories are entered
	}
	return f
}

// rgFilter is ripgrep's -g/--glob list, in order.
func (a *analyzer) rgFilter(p *optWalk) TreeFilter {
	var f TreeFilter
	if p.has("iglob", "glob-case-insensitive") {
		f.NoGlobs = true
	}
	for _, nv := range p.seq {
		if nv.name != "g" && nv.name != "glob" {
			continue
		}
		a.markInert(nv.src)
		v, ok := staticWord(nv.w)
		if !ok {
			f.NoGlobs = true
			continue
		}
		f.Globs = append(f.Globs, v.s)
	}
	return f
}

// markInert records that the argument word w names no file.
func (a *analyzer) markInert(w *syntax.Word) {
	if w == nil {
		return
	}
	if a.inert == nil {
		a.inert = map[*syntax.Word]bool{}
	}
	a.inert[w] = true
}
