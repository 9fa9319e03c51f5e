package resources

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/leasedeck/leasedeck/registry/internal/gitbound"
)

// GitReadRef is a git command that prints contents from the object store
// or the index (see gitReach), with the repository it uses found.
type GitReadRef struct {
	Program string `json:"program"`
	// Top is the top of the work tree the repository's paths are below
	// (the working directory for a repository without one).
	Top PathRef `json:"top"`
	// Held says why the repository is not read: the line is held.
	Held string `json:"held,omitempty"`

	gitDir, common string
	prefix         string // the working directory below Top, slash-separated ("" at the top)
	cwd            string // the working directory, resolved
	reach          gitReach
}

// GitResult is what the check of a call's git reads found: Denied, a path
// within a command's reach that a deny entry matches; Hold, why a reach
// could not be checked (a bound passed, data the gate cannot read).
type GitResult struct {
	Denied *GitFinding
	Hold   string
}

// GitFinding is one denied path a git command may print.
type GitFinding struct {
	Read    GitReadRef
	Path    string // the path in the repository ("" for a blob named by its id)
	Where   string // where it was found: "the index", "commit 1a2b3c4", …
	Pattern string // the deny entry it matches
	Blob    string // the blob named by its id, when Path is ""
	// Content is the denied path whose content the blob at Path holds
	// (Path itself is not denied): the same bytes under another name.
	Content string
	// Reason, when set, is the whole of why the command is refused (a
	// command that names an object rather than printing one).
	Reason string
}

// GitCheck is CheckGitReads' answer for one deny list, kept with the
// call's resources (as TreeCheck is).
type GitCheck struct {
	Deny   []string
	Result GitResult
}

// CheckGitReads reads the repositories of reads against the deny entries
// deny: for each command, the paths it may print (the index's, the trees
// of the commits concerned, the changes of the commits it walks) are
// matched, narrowed by its pathspecs.
func CheckGitReads(reads []GitReadRef, deny []string) GitResult {
	deadline := time.Now().Add(gitbound.Current().Time)
	compiled := CompileDenyPaths(deny)
	for i := range reads {
		r := &reads[i]
		if r.Held != "" {
			return GitResult{Hold: r.Held}
		}
		w := treeWalk{deny: compiled}
		top := r.Top
		top.dir = true
		if !w.denyBelow(top) {
			continue // no deny entry can match a path in this work tree
		}
		res := checkGitRead(r, &w, strings.Join(deny, "\x00"), deadline)
		if res.Denied != nil || res.Hold != "" {
			return res
		}
	}
	return GitResult{}
}

// checkGitRead checks one command; a panic in the reader (malformed data
// go-git did not expect) is a hold, not a crash.
func checkGitRead(r *GitReadRef, w *treeWalk, denyKey string, deadline time.Time) (res GitResult) {
	defer func() {
		if p := recover(); p != nil {
			res = GitResult{Hold: fmt.Sprintf("the gate cannot tell what %s prints: the repository's data is malformed (%v)", r.Program, p)}
		}
	}()
	if r.reach.notesOnly && !gitHasNotes(r.common) {
		return GitResult{} // git log without a patch prints no file, and there is no note
	}
	s, err := openGitStore(r.gitDir, r.common, deadline)
	if err != nil {
		return GitResult{Hold: fmt.Sprintf("the gate cannot tell what %s prints: %v", r.Program, err)}
	}
	defer s.st.Close()
	c := &gitChecker{s: s, read: r, tw: w, refs: map[string]PathRef{}}
	if err = c.loadDenied(denyKey, deadline); err == nil {
		err = c.run()
	}
	switch {
	case c.found != nil:
		return GitResult{Denied: c.found}
	case s.why != "":
		return GitResult{Hold: fmt.Sprintf("the gate cannot tell what %s prints: %s (narrow it: -n N, a range, or name the files you want)", r.Program, s.why)}
	case err != nil:
		return GitResult{Hold: fmt.Sprintf("the gate cannot tell what %s prints: %v", r.Program, err)}
	}
	return GitResult{}
}

// errFound stops a walk at the first denied path.
var errFound = errors.New("found")

// gitChecker checks one command's reach in one repository.
type gitChecker struct {
	s     *gitStore
	read  *GitReadRef
	tw    *treeWalk
	spec  gitPathspec
	found *GitFinding
	refs  map[string]PathRef // directory (repository-relative) → its path, built once
	where string             // what is being read, for the finding
	// denied holds the blobs found at a denied path (gitdenied.go); when
	// it holds any, every directory is read, since the same content may
	// lie under any name.
	denied gitDeniedBlobs
	// collect: the walk fills denied rather than judging files.
	collect bool
	// contentOnly: a file at a denied path is not a finding (the command
	// writes it under its own name, where the deny still holds); only a
	// denied file's content under another name is.
	contentOnly bool
	// rename is prepended to the paths of the trees a command writes
	// (git read-tree --prefix).
	rename string
	// whole are the trees read whole so far below a path, which need not
	// be read again (collectTips: the refs' trees share most of theirs).
	whole map[gitWholeTree]bool
}

// gitWholeTree is a tree read whole below the directory rel.
type gitWholeTree struct {
	tree plumbing.Hash
	rel  string
}

// ref is the path of rel (repository-relative) below the top.
func (c *gitChecker) ref(rel string) PathRef {
	if r, ok := c.refs[rel]; ok {
		return r
	}
	var r PathRef
	if dir, base := path.Split(rel); dir == "" {
		r = c.read.Top.child(base)
	} else {
		r = c.ref(strings.TrimSuffix(dir, "/")).child(base)
	}
	if len(c.refs) < 4096 {
		c.refs[rel] = r
	}
	return r
}

// file checks one file the command may print, holding the blobs hs (its
// two sides in a change): a denied path, or a denied file's content under
// a name the deny list does not match.
func (c *gitChecker) file(rel string, hs ...plumbing.Hash) error {
	if !c.spec.has(rel) {
		return nil
	}
	orig := rel
	rel = c.rename + rel
	pat, ok := c.tw.deny.Match(c.ref(rel))
	switch {
	case c.collect:
		if ok {
			c.denied.add(hs, rel, pat)
		}
		return nil
	case ok && !c.contentOnly:
		c.found = &GitFinding{Read: *c.read, Path: rel, Where: c.where, Pattern: pat}
		return errFound
	case ok:
		return nil
	}
	if c.rename != "" {
		// Written under another name: a file at a denied path is the
		// denied file's content there, whether or not the denied blobs
		// are known (past the bounds they may not be).
		if pat, ok := c.tw.deny.Match(c.ref(orig)); ok {
			c.found = &GitFinding{Read: *c.read, Path: rel, Where: c.where, Pattern: pat, Content: orig, Blob: firstBlob(hs)}
			return errFound
		}
	}
	for _, h := range hs {
		if at, held := c.denied[h]; held {
			c.found = &GitFinding{Read: *c.read, Path: rel, Where: c.where, Pattern: at.pattern, Content: at.path, Blob: h.String()[:12]}
			return errFound
		}
	}
	return nil
}

// dirMayHold reports whether a denied path the command prints may lie
// below the directory rel.
func (c *gitChecker) dirMayHold(rel string) bool {
	if !c.spec.mayHoldBelow(rel) {
		return false
	}
	if len(c.denied) > 0 && !c.collect {
		return true // a denied file's content may lie under any name
	}
	for _, name := range []string{c.rename + rel, rel} {
		// Below a rename (read-tree --prefix) a denied path may lie under
		// its new name or its own (file judges both).
		ref := c.ref(name)
		ref.dir = true
		if _, ok := c.tw.deny.Match(ref); ok || c.tw.denyBelow(ref) {
			return true
		}
		if c.rename == "" {
			break
		}
	}
	return false
}

// firstBlob is the first of hs that names a blob, abbreviated.
func firstBlob(hs []plumbing.Hash) string {
	for _, h := range hs {
		if !h.IsZero() {
			return h.String()[:12]
		}
	}
	return ""
}

// blob refuses a blob named by its id: which path holds it cannot be told
// cheaply, so it may be a denied file's.
func (c *gitChecker) blob(h plumbing.Hash) error {
	if c.collect {
		return nil // a ref that names a blob: no path to judge it by
	}
	c.found = &GitFinding{Read: *c.read, Where: c.where, Blob: h.String()[:12]}
	return errFound
}

// diffTrees checks the files that differ between the trees a and b (the
// zero hash is the empty tree) below the directory rel: a change prints
// both sides, so a file on either side counts. Identical subtrees and
// directories no deny entry can reach are not read.
func (c *gitChecker) diffTrees(a, b plumbing.Hash, rel string) error {
	if a == b {
		return nil
	}
	if a.IsZero() && c.whole != nil {
		k := gitWholeTree{b, rel}
		if c.whole[k] {
			return nil
		}
		c.whole[k] = true
	}
	ea, err := c.entries(a)
	if err != nil {
		return err
	}
	eb, err := c.entries(b)
	if err != nil {
		return err
	}
	for name, x := range ea {
		y := eb[name]
		if err := c.diffEntry(x, y, joinRel(rel, name)); err != nil {
			return err
		}
	}
	for name, y := range eb {
		if _, ok := ea[name]; !ok {
			if err := c.diffEntry(object.TreeEntry{}, y, joinRel(rel, name)); err != nil {
				return err
			}
		}
	}
	return nil
}

// diffEntry checks one name of two trees (a zero entry is absent).
func (c *gitChecker) diffEntry(x, y object.TreeEntry, rel string) error {
	if x.Hash == y.Hash && x.Mode == y.Mode {
		return nil
	}
	if err := c.s.spend(false); err != nil {
		return err
	}
	var subA, subB plumbing.Hash
	file := false
	var blobs [2]plumbing.Hash
	for i, e := range []*object.TreeEntry{&x, &y} {
		switch {
		case e.Hash.IsZero() || e.Mode == filemode.Submodule:
		case e.Mode == filemode.Dir:
			if e == &x {
				subA = e.Hash
			} else {
				subB = e.Hash
			}
		default:
			file = true
			blobs[i] = e.Hash
		}
	}
	if file {
		if err := c.file(rel, blobs[0], blobs[1]); err != nil {
			return err
		}
	}
	if (!subA.IsZero() || !subB.IsZero()) && c.dirMayHold(rel) {
		return c.diffTrees(subA, subB, rel)
	}
	return nil
}

// entries are the entries of tree h by name (none for the zero hash).
func (c *gitChecker) entries(h plumbing.Hash) (map[string]object.TreeEntry, error) {
	if h.IsZero() {
		return nil, nil
	}
	t, err := c.s.tree(h)
	if err != nil {
		return nil, fmt.Errorf("tree %s: %w", h.String()[:12], err)
	}
	out := make(map[string]object.TreeEntry, len(t.Entries))
	for _, e := range t.Entries {
		if e.Name == "" || strings.Contains(e.Name, "/") || e.Name == "." || e.Name == ".." {
			return nil, fmt.Errorf("tree %s holds a name git does not write (%q)", h.String()[:12], e.Name)
		}
		out[e.Name] = e
	}
	return out, nil
}

func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// changes checks what a commit's diff prints: against each parent (a
// merge's combined diff shows a subset), or its whole tree for a root.
func (c *gitChecker) changes(cm *object.Commit) error {
	c.where = "commit " + cm.Hash.String()[:12]
	if len(cm.ParentHashes) == 0 {
		return c.diffTrees(plumbing.ZeroHash, cm.TreeHash, "")
	}
	for _, p := range cm.ParentHashes {
		pc, err := c.s.commit(p)
		if err != nil {
			if errors.Is(err, plumbing.ErrObjectNotFound) && c.shallow(cm.Hash) {
				return c.diffTrees(plumbing.ZeroHash, cm.TreeHash, "") // git shows a shallow root whole
			}
			return fmt.Errorf("commit %s: %w", p.String()[:12], err)
		}
		if err := c.diffTrees(pc.TreeHash, cm.TreeHash, ""); err != nil {
			return err
		}
	}
	return nil
}

// shallow reports whether h is a shallow boundary (its parents are not
// in the repository, and git treats it as a root).
func (c *gitChecker) shallow(h plumbing.Hash) bool {
	hs, err := c.s.st.Shallow()
	if err != nil {
		return false
	}
	for _, x := range hs {
		if x == h {
			return true
		}
	}
	return false
}

// tree checks every file of the tree an object names (a commit's, a
// tag's target's); a blob is refused.
func (c *gitChecker) tree(h plumbing.Hash) error {
	o, err := c.s.peel(h)
	if err != nil {
		return fmt.Errorf("object %s: %w", h.String()[:12], err)
	}
	switch o.Type() {
	case plumbing.BlobObject:
		return c.blob(h)
	case plumbing.CommitObject:
		cm, err := object.DecodeCommit(c.s.st, o)
		if err != nil {
			return err
		}
		c.where = "commit " + cm.Hash.String()[:12]
		return c.diffTrees(plumbing.ZeroHash, cm.TreeHash, "")
	case plumbing.TreeObject:
		c.where = "tree " + h.String()[:12]
		return c.diffTrees(plumbing.ZeroHash, o.Hash(), "")
	}
	return fmt.Errorf("object %s is a %s", h.String()[:12], o.Type())
}

// walk checks the commits reachable from tips, not entering stops, at
// most depth steps from a tip (0: no bound): their changes, or with full
// their whole trees (a bundle packs every object).
func (c *gitChecker) walk(tips, stops []plumbing.Hash, depth int, full bool) error {
	stop := make(map[plumbing.Hash]bool, len(stops))
	for _, h := range stops {
		stop[h] = true
	}
	seen := map[plumbing.Hash]bool{}
	level := tips
	for d := 0; len(level) > 0 && (depth == 0 || d < depth); d++ {
		var next []plumbing.Hash
		for _, h := range level {
			if seen[h] || stop[h] {
				continue
			}
			seen[h] = true
			cm, err := c.commitOf(h)
			if err != nil {
				return err
			}
			if cm == nil {
				continue // a tree or a blob (checked), or a shallow boundary
			}
			if full {
				c.where = "commit " + cm.Hash.String()[:12]
				err = c.diffTrees(plumbing.ZeroHash, cm.TreeHash, "")
			} else {
				err = c.changes(cm)
			}
			if err != nil {
				return err
			}
			next = append(next, cm.ParentHashes...)
		}
		level = next
	}
	return nil
}

// commitOf is the commit h names (through tags); a walk from a tree or a
// blob is refused as git's own walk would print it.
func (c *gitChecker) commitOf(h plumbing.Hash) (*object.Commit, error) {
	o, err := c.s.peel(h)
	if err != nil {
		if errors.Is(err, plumbing.ErrObjectNotFound) && c.shallow(h) {
			return nil, nil
		}
		return nil, fmt.Errorf("object %s: %w", h.String()[:12], err)
	}
	switch o.Type() {
	case plumbing.CommitObject:
		if err := c.s.spend(true); err != nil {
			return nil, err
		}
		return object.DecodeCommit(c.s.st, o)
	case plumbing.BlobObject:
		return nil, c.blob(h)
	}
	c.where = "tree " + h.String()[:12]
	return nil, c.diffTrees(plumbing.ZeroHash, o.Hash(), "")
}

// index checks the paths the index holds.
func (c *gitChecker) index() error {
	entries, err := gitIndexPaths(c.read.gitDir)
	if err != nil {
		return err
	}
	c.where = "the index"
	skip := map[string]bool{} // directories below which no deny entry matches
	for _, e := range entries {
		if err := c.s.spend(false); err != nil {
			return err
		}
		p := e.name
		if dir := path.Dir(p); dir != "." {
			held, seen := skip[dir]
			if !seen {
				held = c.dirMayHoldPath(dir)
				skip[dir] = held
			}
			if !held {
				continue
			}
		}
		if err := c.file(p, e.hash); err != nil {
			return err
		}
	}
	return nil
}

// dirMayHoldPath is dirMayHold for every directory from the top down to
// rel: a directory no deny entry reaches prunes all below it.
func (c *gitChecker) dirMayHoldPath(rel string) bool {
	for i := 0; i <= len(rel); i++ {
		if i == len(rel) || rel[i] == '/' {
			if !c.dirMayHold(rel[:i]) {
				return false
			}
		}
	}
	return true
}
