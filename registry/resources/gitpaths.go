package resources

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// pathsFrom is checkout [REV] [--] PATH… and restore [--source=REV]
// PATH…: every entry below each path in REV's tree (or the index) is
// written; each link's target is a write too, and a submodule is refused.
func (w *writeSet) pathsFrom(rw *gitRewrite) error {
	prefix, ok := relTo(w.top, w.c.read.cwd)
	if !ok {
		return errors.New("the working directory is not in the work tree")
	}
	paths := rw.paths
	var trees []plumbing.Hash
	if len(rw.revs) == 1 {
		tips, err := w.commits(rw.revs[0])
		switch {
		case errors.Is(err, errNotRev) && rw.revMaybePath:
			paths = append([]string{rw.revs[0]}, paths...) // every operand is a path, from the index
			w.pathOp = true
		case err != nil:
			return revErr(rw.revs[0], err)
		}
		for _, h := range tips {
			t, err := w.commitTree(h)
			if err != nil {
				return err
			}
			trees = append(trees, t)
		}
	}
	for _, p := range paths {
		if strings.ContainsAny(p, "*?[\\") || strings.HasPrefix(p, ":") || filepath.IsAbs(p) {
			return fmt.Errorf("the pathspec %s is not a plain path, and the gate does not expand it", p)
		}
		q := path.Clean(path.Join(filepath.ToSlash(prefix), p))
		if q == ".." || strings.HasPrefix(q, "../") {
			return fmt.Errorf("the path %s is outside the work tree", p)
		}
		if q == "." {
			q = ""
		}
		// The index's entries below the path as well: restore (and
		// checkout --no-overlay) removes what the source lacks.
		if err := w.below(nil, false, q); err != nil {
			return err
		}
		if len(trees) > 0 {
			if err := w.below(trees, true, q); err != nil {
				return err
			}
		}
	}
	return nil
}

// below writes what the trees (or, with fromTrees false, the index) hold
// at and below rel ("" for everything).
func (w *writeSet) below(trees []plumbing.Hash, fromTrees bool, rel string) error {
	if !fromTrees {
		entries, _, err := gitIndexEntries(w.c.read.gitDir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if rel == "" || e.Name == rel || strings.HasPrefix(e.Name, rel+"/") {
				if err := w.writeEntry(e.Name, object.TreeEntry{Mode: e.Mode, Hash: e.Hash}); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, t := range trees {
		e, found, err := w.entryAt(t, rel)
		if err != nil || !found {
			return err
		}
		if e.Mode != filemode.Dir {
			if err := w.writeEntry(rel, e); err != nil {
				return err
			}
			continue
		}
		if _, err := w.diff(plumbing.ZeroHash, e.Hash, rel); err != nil {
			return err
		}
	}
	return nil
}

// writeEntry is write for one entry, its name checked.
func (w *writeSet) writeEntry(rel string, e object.TreeEntry) error {
	if err := w.c.s.spend(false); err != nil {
		return err
	}
	if err := w.name(rel); err != nil {
		return err
	}
	return w.write(rel, e)
}

// entryAt is the entry at rel in tree t ("" is the tree itself).
func (w *writeSet) entryAt(t plumbing.Hash, rel string) (object.TreeEntry, bool, error) {
	e := object.TreeEntry{Mode: filemode.Dir, Hash: t}
	if rel == "" {
		return e, !t.IsZero(), nil
	}
	for _, comp := range strings.Split(rel, "/") {
		if e.Mode != filemode.Dir {
			return e, false, nil
		}
		es, err := w.c.entries(e.Hash)
		if err != nil {
			return e, false, err
		}
		next, ok := es[comp]
		if !ok {
			return e, false, nil
		}
		e = next
	}
	return e, true, nil
}
