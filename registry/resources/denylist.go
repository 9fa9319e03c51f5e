package resources

import (
	"strings"
	"sync"
)

// DenyPaths is a deny.paths list made ready to match the many paths of
// one call: each pattern is cleaned once, not once per path.
type DenyPaths struct{ patterns []denyPattern }

// CompileDenyPaths prepares patterns for DenyPaths.Match. A lease's list
// is compiled on its first call and kept: what is kept depends on the
// patterns' text alone, never on the file system, and is used again only
// for a list that holds the same patterns.
func CompileDenyPaths(patterns []string) DenyPaths {
	if len(patterns) == 0 {
		return DenyPaths{}
	}
	key := denyListKey{&patterns[0], len(patterns)}
	denyLists.RLock()
	d, ok := denyLists.m[key]
	denyLists.RUnlock()
	if ok && d.compiledFrom(patterns) {
		return d
	}
	d = DenyPaths{patterns: make([]denyPattern, len(patterns))}
	for i, p := range patterns {
		d.patterns[i] = compileDeny(p)
	}
	denyLists.Lock()
	if denyLists.m == nil || len(denyLists.m) >= maxDenyLists {
		denyLists.m = make(map[denyListKey]DenyPaths)
	}
	denyLists.m[key] = d
	denyLists.Unlock()
	return d
}

// denyLists remembers compiled lists by where their patterns are held
// (a lease's manifest keeps its list for as long as the lease lives), up
// to maxDenyLists of them; a list found there is used only when it was
// compiled from the very patterns asked for (compiledFrom), so a list
// changed in place is compiled again.
var denyLists struct {
	sync.RWMutex
	m map[denyListKey]DenyPaths
}

const maxDenyLists = 256

type denyListKey struct {
	first *string
	n     int
}

// compiledFrom reports whether d was compiled from patterns, in order.
// Strings that share their bytes compare without reading them.
func (d DenyPaths) compiledFrom(patterns []string) bool {
	if len(d.patterns) != len(patterns) {
		return false
	}
	for i := range patterns {
		if d.patterns[i].raw != patterns[i] {
			return false
		}
	}
	return true
}

// Match returns the first pattern that refuses ref, as MatchDenyPath
// decides it.
func (d DenyPaths) Match(ref PathRef) (string, bool) {
	var f refFold
	for i := range d.patterns {
		p := &d.patterns[i]
		if p.matchFolding(&ref, &f) {
			return p.raw, true
		}
	}
	return "", false
}

// WriteTouches returns the first pattern that a write of ref touches, as
// WriteTouches decides it.
func (d DenyPaths) WriteTouches(ref PathRef) (string, bool) {
	var f refFold
	var h refHeads
	for i := range d.patterns {
		p := &d.patterns[i]
		if !p.cannotTouch(&ref, &h) && p.writeTouchesAll(&ref, &f) {
			return p.raw, true
		}
	}
	return "", false
}

// refFold is what matching one path against the patterns of a list
// shares where a file system may ignore case: which of the path's forms
// lower-casing changes, and its folded forms, each made once for the
// path rather than once a pattern. It depends on the path alone.
type refFold struct {
	changes [3]int8 // by pattern kind ('~', '/', other): 0 not asked, 1 no, 2 yes
	// lowered are the two forms (resolved, lexical) a pattern of each
	// kind reads, lower-cased, once asked; kind is kindRef's answer.
	lowered    [3][2]string
	loweredOK  [3]bool
	kind       PathRef
	wide       PathRef
	wideDone   bool
	folded     PathRef
	foldedFor  [2]bool // the ws and home foldedRef made folded for
	foldedDone bool
}

// kindIndex numbers the pattern kinds for refFold's arrays.
func kindIndex(kind byte) int {
	switch kind {
	case '~':
		return 0
	case '/':
		return 1
	}
	return 2
}

// kindRef holds the forms of foldedRef(*ref, ws, home) that a pattern of
// kind reads (denyPattern.match), the others left empty: no path is
// lowered for forms no pattern of the list reads.
func (f *refFold) kindRef(ref *PathRef, kind byte, ws, home bool) *PathRef {
	i := kindIndex(kind)
	if !f.loweredOK[i] {
		switch kind {
		case '~':
			f.lowered[i] = [2]string{strings.ToLower(ref.Home), strings.ToLower(ref.lexHome)}
		case '/':
			f.lowered[i] = [2]string{strings.ToLower(ref.Abs), strings.ToLower(ref.lexAbs)}
		default:
			f.lowered[i] = [2]string{strings.ToLower(ref.Rel), strings.ToLower(ref.lexRel)}
		}
		f.loweredOK[i] = true
	}
	f.kind = PathRef{}
	low := f.lowered[i]
	switch {
	case kind == '~' && home:
		f.kind.Home, f.kind.lexHome = low[0], low[1]
	case kind == '/' && ws && home:
		f.kind.Abs, f.kind.lexAbs = low[0], low[1]
	case kind != '~' && kind != '/' && ws:
		f.kind.Rel, f.kind.lexRel = low[0], low[1]
	}
	return &f.kind
}

// formsChange is formsChange(ref, kind), asked once a kind.
func (f *refFold) formsChange(ref *PathRef, kind byte) bool {
	i := kindIndex(kind)
	if f.changes[i] == 0 {
		f.changes[i] = 1
		if formsChange(ref, kind) {
			f.changes[i] = 2
		}
	}
	return f.changes[i] == 2
}

// wideRef is foldedRef(*ref, true, true), made once.
func (f *refFold) wideRef(ref *PathRef) *PathRef {
	if !f.wideDone {
		f.wide, f.wideDone = foldedRef(*ref, true, true), true
	}
	return &f.wide
}

// foldedRef is foldedRef(*ref, ws, home), made once for each answer.
func (f *refFold) foldedRef(ref *PathRef, ws, home bool) *PathRef {
	if !f.foldedDone || f.foldedFor != [2]bool{ws, home} {
		f.folded, f.foldedFor, f.foldedDone = foldedRef(*ref, ws, home), [2]bool{ws, home}, true
	}
	return &f.folded
}
