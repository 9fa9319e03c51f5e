package resources

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/leasedeck/leasedeck/registry/internal/gitbound"
)

// A denied file's content can be printed under another name: a note made
// from its blob (git notes add -C ID), a tag or ref naming the blob, an
// index entry planted with update-index --cacheinfo, a tree read in under
// a prefix. The gate matches names, so it also keeps, per repository
// state, the set of blobs found at a denied path anywhere the reader can
// see (every commit reachable from every ref and reflog, the index with
// every stage), and a command that prints or writes one of them under any
// name is refused like one that prints the denied path itself.

// gitDeniedBlobs are the blobs found at a denied path: the path and the
// deny entry that matches it, by blob id.
type gitDeniedBlobs map[plumbing.Hash]gitDeniedAt

type gitDeniedAt struct{ path, pattern string }

// gitEmptyBlob is the id of the empty blob: an empty denied file holds
// nothing, and every empty file in a repository is this blob.
var gitEmptyBlob = plumbing.NewHash("e69de29bb2d1d6434b8b29ae775ad8c2e48c5391")

func (d *gitDeniedBlobs) add(hs []plumbing.Hash, rel, pattern string) {
	for _, h := range hs {
		if h.IsZero() || h == gitEmptyBlob {
			continue
		}
		if *d == nil {
			*d = gitDeniedBlobs{}
		}
		if _, ok := (*d)[h]; !ok {
			(*d)[h] = gitDeniedAt{rel, pattern}
		}
	}
}

// gitDeniedCache keeps the denied blobs of the repositories checked, by
// their state (see gitStateKey): an unchanged repository is not walked
// again. A state whose walk passed a bound keeps that answer too.
var gitDeniedCache = struct {
	sync.Mutex
	m map[string]gitDeniedEntry
}{m: map[string]gitDeniedEntry{}}

type gitDeniedEntry struct {
	blobs gitDeniedBlobs
	hold  string // why the set could not be made
	// partial is the bound the history walk passed: the set holds what
	// collectTips reads and the history walked before the bound.
	partial string
}

const maxGitDeniedCache = 64

// loadDenied fills c.denied for the command's repository, from the cache
// when its state is unchanged.
func (c *gitChecker) loadDenied(denyKey string, deadline time.Time) error {
	key, err := gitStateKey(c.read.gitDir, c.read.common, denyKey)
	if err != nil {
		return err
	}
	gitDeniedCache.Lock()
	e, ok := gitDeniedCache.m[key]
	gitDeniedCache.Unlock()
	if !ok {
		var timed bool
		e, timed = c.collectDenied(deadline)
		if timed {
			return errors.New(e.hold) // a loaded machine, not the repository: not kept
		}
		gitDeniedCache.Lock()
		if len(gitDeniedCache.m) >= maxGitDeniedCache {
			clear(gitDeniedCache.m)
		}
		gitDeniedCache.m[key] = e
		gitDeniedCache.Unlock()
	}
	if e.hold != "" {
		return errors.New(e.hold)
	}
	c.denied = e.blobs
	return nil
}

// collectDenied finds the blobs at a denied path, with bounds of its own
// (a command's check has its own); timed says it ran out of time before
// the set could be made at all.
//
// It walks the changes of every commit reachable from a ref or a reflog
// entry (each blob that was ever at a denied path entered it in some
// commit's changes), and the index, with at most half the time left.
// Past a bound of that walk (a history of more than 20,000 commits, which
// an agent can make with a loop of empty commits) it does not hold every
// content command: to what the walk found before the bound it adds what
// the refs, the stash and the index hold whole (collectTips), then what
// the reflogs' entries hold (collectReflogs, as far as its bounds go), and
// the entry says so (partial). Only when collectTips passes a bound too
// is the set not made, and every content command held.
func (c *gitChecker) collectDenied(deadline time.Time) (e gitDeniedEntry, timed bool) {
	w := &gitChecker{read: c.read, tw: c.tw, refs: map[string]PathRef{}, collect: true}
	why, err := w.collectWith(time.Now().Add(time.Until(deadline)/2), false, w.collectAll)
	if why == "" && err == nil {
		return gitDeniedEntry{blobs: w.denied}, false
	}
	partial := why
	if why == "" {
		return gitDeniedEntry{hold: fmt.Sprintf("to find where a denied file's content lies: %v", err)}, false
	}
	why, err = w.collectWith(deadline, true, w.collectTips)
	switch {
	case why != "":
		return gitDeniedEntry{hold: "to find where a denied file's content lies, " + why}, strings.Contains(why, "longer than")
	case err != nil:
		return gitDeniedEntry{hold: fmt.Sprintf("to find where a denied file's content lies: %v", err)}, false
	}
	// The reflogs as far as their bounds go: what they reach past them
	// is left out, like the history past the walk's.
	if why, err = w.collectWith(time.Now().Add(time.Until(deadline)/2), true, w.collectReflogs); why == "" && err != nil {
		return gitDeniedEntry{hold: fmt.Sprintf("to find where a denied file's content lies: %v", err)}, false
	}
	return gitDeniedEntry{blobs: w.denied, partial: partial}, false
}

// collectWith runs walk on the repository opened afresh (its bounds
// whole) until deadline; why is the bound it passed, if any. byEntries
// counts each commit read as one entry, not against the commits' bound
// (the reads that take each commit's tree whole are bounded by what they
// read).
func (c *gitChecker) collectWith(deadline time.Time, byEntries bool, walk func() error) (why string, err error) {
	s, err := openGitStore(c.read.gitDir, c.read.common, deadline)
	if err != nil {
		return "", err
	}
	defer s.st.Close()
	if byEntries {
		s.commits, s.bounds.Commits = s.entries, s.bounds.Entries
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the repository's data is malformed (%v)", p)
		}
	}()
	c.s = s
	err = walk()
	return s.why, err
}

// collectAll is collectDenied's walk: the changes of every commit
// reachable from a ref or a reflog entry, and the index.
func (c *gitChecker) collectAll() error {
	tips, err := c.s.allTips()
	if err != nil {
		return err
	}
	logged, err := c.s.reflogTips("")
	if err != nil {
		return err
	}
	if err := c.walk(append(tips, logged...), nil, 0, false); err != nil {
		return err
	}
	return c.index()
}

// collectTips reads whole what the refs, the stash and the index hold:
// the tree of every commit or tree a ref (HEAD, branches, tags, notes,
// the stash) or a stash entry names, the trees of such a commit's parents
// (a stash entry's index and untracked files), and every index entry. A
// content command prints only what refs, reflogs and the index reach (a
// blob named by its id is refused), and the commands that give content
// another name are judged by the denied paths of what they name, known
// or not. What it misses is a denied file that lies only in older
// history, copied under another name by a route the gate did not see
// (docs/threat-model.md).
func (c *gitChecker) collectTips() error {
	tips, err := c.s.allTips()
	if err != nil {
		return err
	}
	stash, err := c.s.reflogTips("refs/stash")
	if err != nil {
		return err
	}
	c.whole = map[gitWholeTree]bool{}
	seen := map[plumbing.Hash]bool{}
	for _, h := range append(tips, stash...) {
		if seen[h] {
			continue
		}
		seen[h] = true
		t, err := c.treeOf(h, true)
		if err != nil || t.tree.IsZero() {
			return err
		}
		for _, tree := range append([]plumbing.Hash{t.tree}, t.parents...) {
			if err := c.diffTrees(plumbing.ZeroHash, tree, ""); err != nil {
				return err
			}
		}
	}
	return c.index()
}

// collectReflogs reads the tree of every entry of every reflog, each as
// its change from the entry before (the first whole): a file found in
// any of those trees is on one side of a change, or in the first.
func (c *gitChecker) collectReflogs() error {
	files, err := c.s.reflogFiles()
	if err != nil {
		return err
	}
	for _, f := range files {
		pairs, err := c.s.reflogPairs(f, filepath.Base(f))
		if err != nil {
			return err
		}
		prev := plumbing.ZeroHash
		for _, pair := range pairs {
			for _, h := range pair {
				if h.IsZero() {
					continue
				}
				t, err := c.treeOf(h, false)
				if err != nil {
					return err
				}
				if t.tree.IsZero() {
					continue
				}
				if err := c.diffTrees(prev, t.tree, ""); err != nil {
					return err
				}
				prev = t.tree
			}
		}
	}
	return nil
}

// gitTreeOf is the tree an object names, and a commit's parents' trees.
type gitTreeOf struct {
	tree    plumbing.Hash
	parents []plumbing.Hash
}

// treeOf is the tree of the commit or tree h names (through tags), with
// parents the trees of a commit's parents; a blob names none (it has no
// path to judge), nor does a shallow boundary.
func (c *gitChecker) treeOf(h plumbing.Hash, parents bool) (gitTreeOf, error) {
	o, err := c.s.peel(h)
	if err != nil {
		if errors.Is(err, plumbing.ErrObjectNotFound) && c.shallow(h) {
			return gitTreeOf{}, nil
		}
		return gitTreeOf{}, fmt.Errorf("object %s: %w", h.String()[:12], err)
	}
	switch o.Type() {
	case plumbing.TreeObject:
		return gitTreeOf{tree: o.Hash()}, nil
	case plumbing.CommitObject:
	default:
		return gitTreeOf{}, nil
	}
	if err := c.s.spend(true); err != nil {
		return gitTreeOf{}, err
	}
	cm, err := object.DecodeCommit(c.s.st, o)
	if err != nil {
		return gitTreeOf{}, err
	}
	out := gitTreeOf{tree: cm.TreeHash}
	for _, p := range cm.ParentHashes {
		if !parents {
			break
		}
		pc, err := c.s.commit(p)
		if errors.Is(err, plumbing.ErrObjectNotFound) && c.shallow(cm.Hash) {
			continue
		} else if err != nil {
			return gitTreeOf{}, fmt.Errorf("commit %s: %w", p.String()[:12], err)
		}
		out.parents = append(out.parents, pc.TreeHash)
	}
	return out, nil
}

// gitStateKey names the state of a repository the denied blobs depend on:
// the deny entries and bounds; the identity (size, modification time,
// inode) of HEAD, the index, packed-refs and shallow; and the identity of
// every directory below refs/. git writes a ref to a lock file it renames
// into place, which changes its directory's modification time, and
// appends to a reflog only as it moves a ref (a HEAD, a branch): the
// directories tell every change git makes. (Writes into .git by other
// programs are refused to the agent.) The directories found last time are
// checked first: when none changed the state is the same.
func gitStateKey(gitDir, common, denyKey string) (string, error) {
	b := gitbound.Current()
	prefix := fmt.Sprintf("%s\x00%s\x00%s\x00%d %d\x00", gitDir, common, denyKey, b.Commits, b.Entries)
	roots := []string{common}
	if gitDir != common {
		roots = append(roots, gitDir)
	}
	var files []string
	for _, d := range roots {
		for _, name := range []string{"HEAD", "index", "packed-refs", "shallow"} {
			files = append(files, filepath.Join(d, name))
		}
	}
	gitStates.Lock()
	last, ok := gitStates.m[gitDir+"\x00"+common]
	gitStates.Unlock()
	if ok {
		if same, err := last.unchanged(); err != nil {
			return "", err
		} else if same {
			return prefix + last.key, nil
		}
	}
	st := gitState{paths: files}
	for _, d := range roots {
		n := 0
		err := filepath.WalkDir(filepath.Join(d, "refs"), func(p string, e fs.DirEntry, err error) error {
			switch {
			case err != nil && errors.Is(err, fs.ErrNotExist):
				return nil
			case err != nil:
				return err
			case !e.IsDir():
				return nil
			}
			if n++; n > b.Entries {
				return errors.New("more ref directories than the gate reads")
			}
			st.paths = append(st.paths, p)
			return nil
		})
		if err != nil {
			return "", err
		}
	}
	if _, err := st.unchanged(); err != nil {
		return "", err
	}
	gitStates.Lock()
	if len(gitStates.m) >= maxGitDeniedCache {
		clear(gitStates.m)
	}
	gitStates.m[gitDir+"\x00"+common] = st
	gitStates.Unlock()
	return prefix + st.key, nil
}

// gitState is the identity of a repository's files and ref directories
// as last seen.
type gitState struct {
	paths []string
	key   string // their identities, in order
}

// gitStates keeps the last state seen of each repository.
var gitStates = struct {
	sync.Mutex
	m map[string]gitState
}{m: map[string]gitState{}}

// unchanged reads the identities of st.paths and reports whether they are
// those of st.key; an st without a key gets one.
func (st *gitState) unchanged() (bool, error) {
	var b strings.Builder
	for _, p := range st.paths {
		fi, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			b.WriteString("-\n")
		case err != nil:
			return false, err
		default:
			fmt.Fprintf(&b, "%d %d %o %d\n", fi.Size(), fi.ModTime().UnixNano(), fi.Mode(), fileIdentity(fi))
		}
	}
	if st.key == "" {
		st.key = b.String()
		return true, nil
	}
	return b.String() == st.key, nil
}

// gitHasNotes reports whether the repository may hold notes: a ref below
// refs/notes, loose or packed, or a configuration that names a notes ref
// elsewhere (core.notesRef, notes.displayRef). A git log that shows no
// notes needs no denied-blob check.
func gitHasNotes(common string) bool {
	if entries, err := os.ReadDir(filepath.Join(common, "refs", "notes")); err == nil && len(entries) > 0 {
		return true
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return true
	}
	for _, name := range []string{"packed-refs", "config"} {
		data, err := readSmall(filepath.Join(common, name), maxGitSmall)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return true
		}
		if name == "packed-refs" && bytes.Contains(data, []byte(" refs/notes/")) {
			return true
		}
		if name == "config" {
			low := bytes.ToLower(data)
			if bytes.Contains(low, []byte("notesref")) || bytes.Contains(low, []byte("displayref")) {
				return true
			}
		}
	}
	return false
}
