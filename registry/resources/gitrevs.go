package resources

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// gitRev is one revision operand as the check reads it: the objects it
// names (tips), and for a range the commits it leaves out (stops).
type gitRev struct {
	text  string
	tips  []plumbing.Hash
	stops []plumbing.Hash
	// set: a set of commits (A..B, A...B, ^A, X^!, X^@), which commands
	// that take one object walk like git log.
	set bool
	// left is A of A...B (whose tips hold both ends): git diff A...B
	// prints the changes from their merge base to B, which lie among the
	// commits reachable from B without passing through A.
	left []plumbing.Hash
}

// errNotRev: the operand names no object, and git takes it as a path.
var errNotRev = errors.New("not a revision")

// rev reads one operand as git's revision parser does, for the forms the
// gate models: NAME, an object id (full, abbreviated, or after describe's
// -g), followed by ~N, ^N, ^{type}; ranges A..B and A...B; ^A; X^!, X^@
// and X^-N. NAME@{…} (a reflog entry, an upstream) may name any commit a
// reflog or a ref names, and stands for all of them. What else git reads
// as a revision (:/text, X^{/text}) cannot be told: an error, and the line
// is held. errNotRev when it names nothing.
func (c *gitChecker) rev(s string) (gitRev, error) {
	r := gitRev{text: s}
	switch {
	case strings.HasPrefix(s, ":/") || strings.Contains(s, "^{/"):
		return r, fmt.Errorf("%s names a commit by its message, which the gate does not search", s)
	case strings.Contains(s, "..."):
		a, b, _ := strings.Cut(s, "...")
		r.set = true
		return r, c.revEnds(&r, a, b, false)
	case strings.Contains(s, ".."):
		a, b, _ := strings.Cut(s, "..")
		r.set = true
		return r, c.revEnds(&r, a, b, true)
	case strings.HasPrefix(s, "^"):
		r.set = true
		hs, err := c.revOne(s[1:])
		r.stops = hs
		return r, err
	case strings.HasSuffix(s, "^!"):
		r.set = true
		hs, err := c.revOne(strings.TrimSuffix(s, "^!"))
		r.tips = hs
		for _, h := range hs {
			r.stops = append(r.stops, c.parents(h)...)
		}
		return r, err
	case strings.HasSuffix(s, "^@"):
		r.set = true
		hs, err := c.revOne(strings.TrimSuffix(s, "^@"))
		for _, h := range hs {
			r.tips = append(r.tips, c.parents(h)...)
		}
		return r, err
	}
	if i := strings.LastIndex(s, "^-"); i > 0 {
		r.set = true
		hs, err := c.revOne(s[:i])
		r.tips = hs
		for _, h := range hs {
			r.stops = append(r.stops, c.parents(h)...)
		}
		return r, err
	}
	hs, err := c.revOne(s)
	r.tips = hs
	return r, err
}

// revEnds fills a range's ends: A..B walks B without A; A...B walks both
// (their merge base and what lies below it are left out by git: walking
// them too checks more). An empty end is HEAD.
func (c *gitChecker) revEnds(r *gitRev, a, b string, exclude bool) error {
	if a == "" {
		a = "HEAD"
	}
	if b == "" {
		b = "HEAD"
	}
	ha, err := c.revOne(a)
	if err != nil {
		return err
	}
	hb, err := c.revOne(b)
	if err != nil {
		return err
	}
	r.tips = hb
	if exclude {
		r.stops = ha
	} else {
		r.tips = append(r.tips, ha...)
		r.left = ha
	}
	return nil
}

// parents are the parents of the commit h names (none when it names no
// commit: git refuses the operand).
func (c *gitChecker) parents(h plumbing.Hash) []plumbing.Hash {
	o, err := c.s.peel(h)
	if err != nil || o.Type() != plumbing.CommitObject {
		return nil
	}
	cm, err := object.DecodeCommit(c.s.st, o)
	if err != nil {
		return nil
	}
	return cm.ParentHashes
}

// revOne resolves a single-object revision: a base name then its ~N, ^N
// and ^{type} steps.
func (c *gitChecker) revOne(s string) ([]plumbing.Hash, error) {
	base, steps := s, ""
	if i := strings.IndexAny(s, "~^"); i >= 0 {
		base, steps = s[:i], s[i:]
	}
	var hs []plumbing.Hash
	var err error
	if at := strings.Index(base, "@{"); at >= 0 && strings.HasSuffix(base, "}") {
		hs, err = c.reflogAny()
	} else {
		if base == "" {
			return nil, errNotRev
		}
		hs, err = c.s.dwim(base)
	}
	if err != nil {
		return nil, err
	}
	if len(hs) == 0 {
		return nil, errNotRev
	}
	var out []plumbing.Hash
	for _, h := range hs {
		got, err := c.steps(h, steps)
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	return out, nil
}

// reflogAny is every object a ref or a reflog names: what NAME@{…} may
// stand for.
func (c *gitChecker) reflogAny() ([]plumbing.Hash, error) {
	tips, err := c.s.allTips()
	if err != nil {
		return nil, err
	}
	logged, err := c.s.reflogTips("")
	return append(tips, logged...), err
}

// steps applies ~N, ^N and ^{type} to h. A step from something that is
// not a commit names nothing (git refuses it).
func (c *gitChecker) steps(h plumbing.Hash, steps string) ([]plumbing.Hash, error) {
	for steps != "" {
		op := steps[0]
		steps = steps[1:]
		if op == '^' && strings.HasPrefix(steps, "{") {
			end := strings.IndexByte(steps, '}')
			if end < 0 {
				return nil, errNotRev
			}
			kind := steps[1:end]
			steps = steps[end+1:]
			if kind == "" || kind == "object" || kind == "tag" {
				continue // the object itself (a tag stays a tag: shown with its target)
			}
			o, err := c.s.peel(h)
			if err != nil {
				return nil, err
			}
			if kind == "tree" && o.Type() == plumbing.CommitObject {
				cm, err := object.DecodeCommit(c.s.st, o)
				if err != nil {
					return nil, err
				}
				h = cm.TreeHash
				continue
			}
			h = o.Hash()
			continue
		}
		digits := 0
		for digits < len(steps) && steps[digits] >= '0' && steps[digits] <= '9' {
			digits++
		}
		n := 1
		if digits > 0 {
			var err error
			if n, err = strconv.Atoi(steps[:digits]); err != nil || n > 1<<16 {
				return nil, errNotRev
			}
		}
		steps = steps[digits:]
		var ok bool
		if h, ok = c.step(h, op, n); !ok {
			return nil, nil
		}
	}
	return []plumbing.Hash{h}, nil
}

// step is h~n (op '~': the n-th first parent) or h^n (the n-th parent;
// ^0 the commit itself).
func (c *gitChecker) step(h plumbing.Hash, op byte, n int) (plumbing.Hash, bool) {
	if op == '^' {
		if n == 0 {
			o, err := c.s.peel(h)
			return h, err == nil && o.Type() == plumbing.CommitObject
		}
		ps := c.parents(h)
		if n > len(ps) {
			return h, false
		}
		return ps[n-1], true
	}
	for range n {
		ps := c.parents(h)
		if len(ps) == 0 {
			return h, false
		}
		h = ps[0]
	}
	return h, true
}

// exists reports whether the operand names a file in the working
// directory (git takes an operand that names no revision for a path only
// when it exists, or holds a wildcard).
func (c *gitChecker) exists(s string) bool {
	p := s
	if !filepath.IsAbs(p) {
		p = filepath.Join(c.read.cwd, p)
	}
	_, err := os.Lstat(p)
	return err == nil
}
