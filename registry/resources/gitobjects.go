package resources

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"
	"github.com/leasedeck/leasedeck/registry/internal/gitbound"
)

// The gate reads a repository's objects, refs and reflogs with go-git's
// storage (loose objects, packs and their deltas, packed-refs), a library
// that only reads files: it runs no hook, filter, pager or fsmonitor, and
// reads no configuration that names a program. Every read is bounded (the
// commits walked, the tree entries visited, the time taken); past a bound,
// or on data it cannot read, the line is held for a human, never allowed.

// Bounds of one call's reading of git objects: the commits walked, the
// tree and index entries visited and the wall time are gitbound's (20,000,
// 500,000 and 2 s; tests lower them).
const (
	// maxGitObject is the largest object read into memory: a bigger
	// blob is never read (its type is all the check needs), a bigger
	// tree or commit is read from disk as it is decoded.
	maxGitObject = 1 << 20
	// maxGitSmall bounds the small files read whole (a reflog).
	maxGitSmall = 16 << 20
)

// gitObjectCache keeps the objects the checks read, across calls and
// repositories: an object's id is the hash of its content, so the object
// an id names never changes, and the next git show HEAD reads only its
// refs. Objects larger than maxGitObject are read from disk as needed and
// not kept.
var gitObjectCache = cache.NewObjectLRU(16 << 20)

// errGitBound is returned when a bound of the check is passed.
var errGitBound = errors.New("bound passed")

// gitStore is one repository opened for the check.
type gitStore struct {
	st       *filesystem.Storage
	gitDir   string // the git directory (HEAD, the index, per-worktree refs)
	common   string // the common directory (objects, refs)
	commits  int    // commits left to walk
	entries  int    // entries left to visit
	spent    int    // entries visited, for the clock
	deadline time.Time
	bounds   gitbound.Bounds // the bounds it was opened under
	why      string          // the bound passed, once passed
}

// openGitStore opens the repository whose git directory is gitDir and
// common directory common. A repository the gate cannot model is an error:
// reftable refs, replace refs and grafts (git would show other objects
// than the ones stored under a name).
func openGitStore(gitDir, common string, deadline time.Time) (*gitStore, error) {
	for _, p := range []string{filepath.Join(common, "reftable"), filepath.Join(common, "info", "grafts")} {
		if _, err := os.Lstat(p); err == nil {
			return nil, fmt.Errorf("the repository uses %s, which the gate does not read", filepath.Base(p))
		}
	}
	if fi, err := os.Stat(filepath.Join(common, "objects", "info", "alternates")); err == nil && fi.Size() > 0 {
		return nil, errors.New("the repository borrows objects from others (objects/info/alternates), which the gate does not search")
	}
	if entries, err := os.ReadDir(filepath.Join(common, "refs", "replace")); err == nil && len(entries) > 0 {
		return nil, errors.New("the repository has replace refs (git shows other objects than the ones named)")
	}
	var fsys = osfs.New(gitDir)
	if common != gitDir {
		fsys = dotgit.NewRepositoryFilesystem(osfs.New(gitDir), osfs.New(common))
	}
	st := filesystem.NewStorageWithOptions(fsys, gitObjectCache, filesystem.Options{LargeObjectThreshold: maxGitObject})
	b := gitbound.Current()
	return &gitStore{st: st, gitDir: gitDir, common: common, commits: b.Commits, entries: b.Entries, deadline: deadline, bounds: b}, nil
}

// spend counts one entry visited (commit: a commit walked) and reports
// errGitBound once a bound is passed.
func (s *gitStore) spend(commit bool) error {
	if commit {
		s.commits--
	}
	s.entries--
	s.spent++
	switch {
	case s.why != "":
	case s.commits < 0:
		s.why = fmt.Sprintf("more than %d commits to check", s.bounds.Commits)
	case s.entries < 0:
		s.why = fmt.Sprintf("more than %d entries to check", s.bounds.Entries)
	case (commit || s.spent%256 == 0) && time.Now().After(s.deadline):
		s.why = fmt.Sprintf("the check took longer than %v", s.bounds.Time)
	}
	if s.why != "" {
		return errGitBound
	}
	return nil
}

// object is the object h (from gitObjectCache when it is there); its
// type is all that is read of a large blob.
func (s *gitStore) object(h plumbing.Hash) (plumbing.EncodedObject, error) {
	if o, ok := gitObjectCache.Get(h); ok {
		return o, nil
	}
	return s.st.EncodedObject(plumbing.AnyObject, h)
}

func (s *gitStore) commit(h plumbing.Hash) (*object.Commit, error) {
	if err := s.spend(true); err != nil {
		return nil, err
	}
	o, err := s.object(h)
	if err != nil {
		return nil, err
	}
	return object.DecodeCommit(s.st, o)
}

func (s *gitStore) tree(h plumbing.Hash) (*object.Tree, error) {
	if err := s.spend(false); err != nil {
		return nil, err
	}
	o, err := s.object(h)
	if err != nil {
		return nil, err
	}
	return object.DecodeTree(s.st, o)
}

// peel follows tags to the object they name (at most a few levels: a
// loop of tags is malformed).
func (s *gitStore) peel(h plumbing.Hash) (plumbing.EncodedObject, error) {
	for range 16 {
		o, err := s.object(h)
		if err != nil || o.Type() != plumbing.TagObject {
			return o, err
		}
		tag, err := object.DecodeTag(s.st, o)
		if err != nil {
			return nil, err
		}
		h = tag.Target
	}
	return nil, errors.New("tags nested too deep")
}

// ref is the object a ref names, following symbolic refs; ok is false
// when there is no such ref (an unborn branch included).
func (s *gitStore) ref(name string) (plumbing.Hash, bool, error) {
	if !gitRefNameOK(name) {
		return plumbing.ZeroHash, false, nil
	}
	r, err := storer.ResolveReference(s.st, plumbing.ReferenceName(name))
	switch {
	case errors.Is(err, plumbing.ErrReferenceNotFound):
		return plumbing.ZeroHash, false, nil
	case err != nil:
		return plumbing.ZeroHash, false, err
	}
	return r.Hash(), true, nil
}

// gitRefNameOK reports whether name is one the gate looks up: no
// component that leaves the git directory, nothing git's check-ref-format
// refuses that matters for a file name.
func gitRefNameOK(name string) bool {
	if name == "" || strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/") || strings.ContainsAny(name, "\x00\\ ~^:?*[") {
		return false
	}
	for _, c := range strings.Split(name, "/") {
		if c == "" || c == "." || c == ".." || strings.HasPrefix(c, ".") {
			return false
		}
	}
	return true
}

// dwim resolves a name as git's revision parser does for a bare name: a
// full object id; else the first of git's lookup rules that names a ref
// (NAME for HEAD-like names, refs/NAME, refs/tags/NAME, refs/heads/NAME,
// refs/remotes/NAME, refs/remotes/NAME/HEAD); else every object whose id
// starts with the name (four or more hex digits: git refuses an
// ambiguous one, and checking all of them checks more, never less).
func (s *gitStore) dwim(name string) ([]plumbing.Hash, error) {
	if name == "@" {
		name = "HEAD"
	}
	var out []plumbing.Hash
	if len(name) == 40 && isHexString(name) {
		return []plumbing.Hash{plumbing.NewHash(name)}, nil
	}
	for i, rule := range []string{"%s", "refs/%s", "refs/tags/%s", "refs/heads/%s", "refs/remotes/%s", "refs/remotes/%s/HEAD"} {
		if i == 0 && !strings.HasPrefix(name, "refs/") && !gitPseudoRef(name) {
			continue // git looks a name up in the git directory itself only when it is HEAD-like
		}
		h, ok, err := s.ref(fmt.Sprintf(rule, name))
		if err != nil {
			return nil, err
		}
		if ok {
			return []plumbing.Hash{h}, nil // git takes the first rule that names a ref
		}
	}
	if hexName := gitDescribeHex(name); len(hexName) >= 4 && isHexString(hexName) {
		hs, err := s.prefix(hexName)
		if err != nil {
			return nil, err
		}
		out = append(out, hs...)
	}
	return out, nil
}

// gitPseudoRef reports whether name is one git looks up at the top of
// the git directory (HEAD, ORIG_HEAD, FETCH_HEAD …: capitals and "_").
func gitPseudoRef(name string) bool {
	for i := 0; i < len(name); i++ {
		if c := name[i]; !('A' <= c && c <= 'Z' || c == '_') {
			return false
		}
	}
	return strings.HasSuffix(name, "HEAD")
}

// gitDescribeHex is the object id part of a name: the name itself, or the
// abbreviated id after "-g" in git describe's output (v1.0-3-gabc1234),
// which git resolves by that id.
func gitDescribeHex(name string) string {
	if i := strings.LastIndex(name, "-g"); i >= 0 && isHexString(name[i+2:]) && len(name) > i+2 {
		return name[i+2:]
	}
	return name
}

func isHexString(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return s != ""
}

// prefix are the objects whose id starts with the hex digits p.
func (s *gitStore) prefix(p string) ([]plumbing.Hash, error) {
	p = strings.ToLower(p)
	raw, err := hex.DecodeString(p[:len(p)/2*2])
	if err != nil {
		return nil, err
	}
	hs, err := s.st.HashesWithPrefix(raw)
	if err != nil {
		return nil, err
	}
	var out []plumbing.Hash
	for _, h := range hs {
		if strings.HasPrefix(h.String(), p) {
			out = append(out, h)
		}
	}
	return out, nil
}

// allTips are the objects every ref names (HEAD, branches, tags,
// remote-tracking refs, the stash, notes …): what --all walks from.
func (s *gitStore) allTips() ([]plumbing.Hash, error) {
	var out []plumbing.Hash
	if h, ok, err := s.ref("HEAD"); err != nil {
		return nil, err
	} else if ok {
		out = append(out, h)
	}
	iter, err := s.st.IterReferences()
	if err != nil {
		return nil, err
	}
	defer iter.Close()
	err = iter.ForEach(func(r *plumbing.Reference) error {
		if r.Type() == plumbing.HashReference {
			out = append(out, r.Hash())
		}
		return s.spend(false)
	})
	return out, err
}

// reflogTips are the objects the reflogs name, old and new (what --reflog
// and -g walk, and what NAME@{…} may name): of the ref name only, or of
// every ref when name is "".
func (s *gitStore) reflogTips(name string) ([]plumbing.Hash, error) {
	var files []string
	if name != "" {
		files = []string{filepath.Join(s.logsDir(name), filepath.FromSlash(name))}
	} else {
		var err error
		if files, err = s.reflogFiles(); err != nil {
			return nil, err
		}
	}
	var out []plumbing.Hash
	for _, f := range files {
		hs, err := s.reflogFile(f)
		if err != nil {
			return nil, err
		}
		out = append(out, hs...)
	}
	return out, nil
}

// reflogFiles are the files of every reflog, the worktree's and the
// common directory's.
func (s *gitStore) reflogFiles() ([]string, error) {
	var files []string
	for _, root := range []string{filepath.Join(s.gitDir, "logs"), filepath.Join(s.common, "logs")} {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			if d.Type().IsRegular() {
				files = append(files, p)
			}
			return s.spend(false)
		})
		if err != nil {
			return nil, err
		}
	}
	return files, nil
}

// logsDir is the directory whose logs/ holds the reflog of name: HEAD's
// is the worktree's own, the others the common directory's.
func (s *gitStore) logsDir(name string) string {
	if name == "HEAD" {
		return filepath.Join(s.gitDir, "logs")
	}
	return filepath.Join(s.common, "logs")
}

// reflogFile are the old and new object ids of each line of a reflog
// ("OLD NEW who <mail> time zone\tmessage"), the zero id left out.
func (s *gitStore) reflogFile(p string) ([]plumbing.Hash, error) {
	pairs, err := s.reflogPairs(p, filepath.Base(p))
	var out []plumbing.Hash
	for _, pair := range pairs {
		for _, h := range pair {
			if !h.IsZero() {
				out = append(out, h)
			}
		}
	}
	return out, err
}

// reflogPairs are the old and new object ids of each line of the reflog
// at p, oldest first; name is what an error calls it. A missing reflog
// has none.
func (s *gitStore) reflogPairs(p, name string) ([][2]plumbing.Hash, error) {
	data, err := readSmall(p, maxGitSmall)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	var out [][2]plumbing.Hash
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), maxGitSmall)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 || len(fields[0]) != 40 || len(fields[1]) != 40 || !isHexString(fields[0]) || !isHexString(fields[1]) {
			return nil, fmt.Errorf("%s: a line is not a reflog entry", name)
		}
		out = append(out, [2]plumbing.Hash{plumbing.NewHash(fields[0]), plumbing.NewHash(fields[1])})
		if err := s.spend(false); err != nil {
			return nil, err
		}
	}
	return out, sc.Err()
}
