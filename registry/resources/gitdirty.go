package resources

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// dirty adds the tracked paths whose state differs from HEAD's tree
// (reset --hard, stash and checkout -f put them back): an index entry
// that differs from HEAD's (or a path only one of them holds, a
// conflict, an entry git keeps out of the work tree), or a work tree file
// whose lstat differs from the stat data the index keeps for it, or that
// is missing. A stat that matches is trusted, except when the file is as
// new as the index (git's "racy" case, where it compares contents).
func (w *writeSet) dirty(head plumbing.Hash) error {
	entries, indexTime, err := gitIndexEntries(w.c.read.gitDir)
	if err != nil {
		return err
	}
	inHead := map[string]object.TreeEntry{}
	if err := w.flatten(head, "", inHead); err != nil {
		return err
	}
	seen := make(map[string]bool, len(entries))
	for _, e := range entries {
		if err := w.c.s.spend(false); err != nil {
			return err
		}
		seen[e.Name] = true
		h, ok := inHead[e.Name]
		changed := !ok || e.Stage != 0 || e.SkipWorktree || e.IntentToAdd || h.Hash != e.Hash || h.Mode != e.Mode ||
			workTreeChanged(filepath.Join(w.top, filepath.FromSlash(e.Name)), e, indexTime)
		if !changed {
			continue
		}
		if err := w.name(e.Name); err != nil {
			return err
		}
		if err := w.write(e.Name, h); err != nil {
			return err
		}
	}
	for p, h := range inHead {
		if !seen[p] {
			if err := w.name(p); err != nil {
				return err
			}
			if err := w.write(p, h); err != nil {
				return err
			}
		}
	}
	return nil
}

// flatten adds every file of tree h below rel to out.
func (w *writeSet) flatten(h plumbing.Hash, rel string, out map[string]object.TreeEntry) error {
	es, err := w.c.entries(h)
	if err != nil {
		return err
	}
	for name, e := range es {
		if err := w.c.s.spend(false); err != nil {
			return err
		}
		p := joinRel(rel, name)
		if e.Mode == filemode.Dir {
			if err := w.flatten(e.Hash, p, out); err != nil {
				return err
			}
			continue
		}
		out[p] = e
	}
	return nil
}

// workTreeChanged reports whether the file at p may differ from the index
// entry e: missing, another kind of file, or stat data that differs.
func workTreeChanged(p string, e *index.Entry, indexTime int64) bool {
	fi, err := os.Lstat(p)
	if err != nil {
		return true
	}
	switch {
	case e.Mode == filemode.Symlink:
		if fi.Mode()&fs.ModeSymlink == 0 {
			return true
		}
	case e.Mode == filemode.Regular || e.Mode == filemode.Executable:
		if !fi.Mode().IsRegular() || (fi.Mode()&0o100 != 0) != (e.Mode == filemode.Executable) {
			return true
		}
	default:
		return true
	}
	if uint32(fi.Size()) != e.Size || !fi.ModTime().Equal(e.ModifiedAt) || fi.ModTime().UnixNano() >= indexTime {
		return true
	}
	return statChanged(fi, e)
}

// gitIndexEntries are the entries of gitDir's index, and the index file's
// modification time (nanoseconds); a missing index is an empty one.
func gitIndexEntries(gitDir string) ([]*index.Entry, int64, error) {
	p := filepath.Join(gitDir, "index")
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	} else if err != nil {
		return nil, 0, fmt.Errorf("the index cannot be read: %v", err)
	}
	data, err := readSmall(p, maxGitIndex)
	if err != nil {
		return nil, 0, fmt.Errorf("the index cannot be read: %v", err)
	}
	idx, err := parseGitIndexFull(data)
	if err != nil {
		return nil, 0, err
	}
	return idx.Entries, fi.ModTime().UnixNano(), nil
}

// parseGitIndexFull decodes an index as parseGitIndex does, keeping the
// entries; a panic in the decoder is an error.
func parseGitIndexFull(data []byte) (idx *index.Index, err error) {
	defer func() {
		if r := recover(); r != nil {
			idx, err = nil, fmt.Errorf("the index is malformed (%v)", r)
		}
	}()
	idx = &index.Index{}
	if err := index.NewDecoder(bytes.NewReader(data)).Decode(idx); err != nil {
		return nil, fmt.Errorf("the index is not one the gate can read: %v", err)
	}
	for _, e := range idx.Entries {
		if e.Mode == filemode.Dir {
			return nil, errors.New("the index is sparse (a directory entry stands for files the gate does not list)")
		}
	}
	return idx, nil
}

// reflogNew are the new object ids of name's reflog, oldest first.
func (s *gitStore) reflogNew(name string) ([]plumbing.Hash, error) {
	pairs, err := s.reflogPairs(filepath.Join(s.logsDir(name), filepath.FromSlash(name)), name)
	if err != nil {
		return nil, err
	}
	out := make([]plumbing.Hash, len(pairs))
	for i, pair := range pairs {
		out[i] = pair[1]
	}
	return out, nil
}
