package resources

import (
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/leasedeck/leasedeck/registry/internal/gitbound"
)

// What a work-tree-moving command writes (gitRewrite), read from the
// repository's objects with the same reader and bounds as the git reads
// (gitobjects.go): never by running git, so no configuration, hook,
// filter or pager runs. The answer is a superset of what git writes: the
// paths that differ between the trees concerned, the local changes a
// command throws away, and every symbolic link's target (git writes the
// link; a later tool follows it).

// gitWrites is what one command writes, as the gate read it.
type gitWrites struct {
	paths    []string  // repository-relative paths written
	links    []gitLink // the symbolic links written, with their targets
	suffixed []string  // repository-relative paths a conflict may write a copy beside (PATH~NAME)
	refuse   string    // why the command is refused: what it would write cannot be allowed
	hold     string    // why the gate cannot tell: a human decides
	// pathOperand: checkout's operand names no revision but a file, which
	// git restores from the index (a write of that path).
	pathOperand bool
}

// gitLink is a symbolic link a command writes: its repository-relative
// path and its target, absolute.
type gitLink struct{ path, target string }

// errRefuse stops a computation that found a write the gate refuses.
var errRefuse = errors.New("refused")

// writeSet collects one command's writes.
type writeSet struct {
	c        *gitChecker // for revisions and trees
	top      string      // the work tree's top, absolute
	paths    map[string]bool
	suffixed map[string]bool
	links    map[string]string // absolute target → the link's path
	refuse   string
	quiet    bool // collect the changes only: nothing is written or judged
	pathOp   bool // checkout's operand is a path (gitWrites.pathOperand)
}

// computeGitWrites reads what rw, run in the directory cwd, writes in the
// repository whose git directory is gitDir (common directory common) and
// whose work tree's top is top. A panic in the reader is a hold, not a
// crash.
func computeGitWrites(top, cwd, gitDir, common string, rw *gitRewrite) (out gitWrites) {
	defer func() {
		if p := recover(); p != nil {
			out = gitWrites{hold: fmt.Sprintf("the gate cannot tell what %s writes: the repository's data is malformed (%v)", rw.prog, p)}
		}
	}()
	s, err := openGitStore(gitDir, common, time.Now().Add(gitbound.Current().Time))
	if err != nil {
		return gitWrites{hold: fmt.Sprintf("the gate cannot tell what %s writes: %v", rw.prog, err)}
	}
	defer s.st.Close()
	w := &writeSet{
		c:     &gitChecker{s: s, read: &GitReadRef{gitDir: gitDir, common: common, cwd: cwd}},
		top:   top,
		paths: map[string]bool{}, suffixed: map[string]bool{}, links: map[string]string{},
	}
	err = w.run(rw)
	switch {
	case w.refuse != "":
		return gitWrites{refuse: w.refuse}
	case s.why != "":
		return gitWrites{hold: fmt.Sprintf("the gate cannot tell what %s writes: %s", rw.prog, s.why)}
	case err != nil:
		return gitWrites{hold: fmt.Sprintf("the gate cannot tell what %s writes: %v", rw.prog, err)}
	}
	var links []gitLink
	for _, target := range sortedKeys(w.links) {
		links = append(links, gitLink{path: w.links[target], target: target})
	}
	return gitWrites{paths: sortedKeys(w.paths), links: links, suffixed: sortedKeys(w.suffixed), pathOperand: w.pathOp}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// run computes rw's writes by its kind.
func (w *writeSet) run(rw *gitRewrite) error {
	head, err := w.headTree()
	if err != nil {
		return err
	}
	if rw.dirty {
		if err := w.dirty(head); err != nil {
			return err
		}
	}
	switch rw.kind {
	case rwCheckout, rwReset:
		return w.moveTo(rw, head)
	case rwStash:
		return nil // the local changes, above
	case rwStashApply:
		return w.stashApply(rw, head)
	case rwMerge:
		return w.merge(rw, head)
	case rwCherryPick, rwRevert:
		return w.pick(rw, head)
	case rwRebase:
		return w.rebase(rw, head)
	case rwPaths:
		return w.pathsFrom(rw)
	case rwAbort:
		return w.abort(rw.prog, head)
	}
	return fmt.Errorf("%s is not a command the gate models", rw.prog)
}

// headTree is the tree HEAD's commit holds (the zero hash on an unborn
// branch: the empty tree).
func (w *writeSet) headTree() (plumbing.Hash, error) {
	h, ok, err := w.c.s.ref("HEAD")
	if err != nil || !ok {
		return plumbing.ZeroHash, err
	}
	return w.commitTree(h)
}

// commitTree is the tree of the commit h names (through tags); anything
// else is an error, and the command is held (git refuses to move to it,
// but the gate does not guess).
func (w *writeSet) commitTree(h plumbing.Hash) (plumbing.Hash, error) {
	cm, err := w.commit(h)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return cm.TreeHash, nil
}

func (w *writeSet) commit(h plumbing.Hash) (*object.Commit, error) {
	o, err := w.c.s.peel(h)
	if err != nil {
		return nil, fmt.Errorf("object %s: %w", h.String()[:12], err)
	}
	if o.Type() != plumbing.CommitObject {
		return nil, fmt.Errorf("%s names a %s, not a commit", h.String()[:12], o.Type())
	}
	if err := w.c.s.spend(true); err != nil {
		return nil, err
	}
	return object.DecodeCommit(w.c.s.st, o)
}

// commits are the commits one operand names: every object it may stand
// for (an abbreviated id, a reflog entry). "-" is the branch checked out
// before (@{-1}). errNotRev when it names none.
func (w *writeSet) commits(op string) ([]plumbing.Hash, error) {
	if op == "-" {
		op = "@{-1}"
	}
	rv, err := w.c.rev(op)
	if err != nil {
		return nil, err
	}
	if rv.set {
		return nil, fmt.Errorf("%s names a range, not one commit", op)
	}
	return rv.tips, nil
}

// moveTo is checkout REV, switch BRANCH and reset --hard REV: what
// differs between HEAD's tree and the target's.
func (w *writeSet) moveTo(rw *gitRewrite, head plumbing.Hash) error {
	op := rw.revs[0]
	tips, err := w.commits(op)
	if errors.Is(err, errNotRev) && rw.kind == rwCheckout {
		tips, err = w.remoteGuess(op) // checkout NAME makes NAME from the one remote branch of that name
		if err == nil && len(tips) == 0 {
			if rw.prog == "git checkout" && w.c.exists(op) {
				w.pathOp = true // a path, restored from the index
				return nil
			}
			return fmt.Errorf("%s names no revision the gate finds", op)
		}
	}
	if err != nil {
		if errors.Is(err, errNotRev) {
			return fmt.Errorf("%s names no revision the gate finds", op)
		}
		return err
	}
	for _, h := range tips {
		t, err := w.commitTree(h)
		if err != nil {
			return err
		}
		if _, err := w.diff(head, t, ""); err != nil {
			return err
		}
	}
	return nil
}

// remoteGuess are the remote-tracking branches named NAME
// (refs/remotes/*/NAME): git checkout and git switch make a local branch
// from one of them when no revision has that name.
func (w *writeSet) remoteGuess(name string) ([]plumbing.Hash, error) {
	if !gitRefNameOK("refs/heads/" + name) {
		return nil, nil
	}
	iter, err := w.c.s.st.IterReferences()
	if err != nil {
		return nil, err
	}
	defer iter.Close()
	var out []plumbing.Hash
	err = iter.ForEach(func(r *plumbing.Reference) error {
		n := r.Name().String()
		if rest, ok := strings.CutPrefix(n, "refs/remotes/"); ok && strings.HasSuffix(rest, "/"+name) && r.Type() == plumbing.HashReference {
			out = append(out, r.Hash())
		}
		return w.c.s.spend(false)
	})
	return out, err
}

// change is one path that differs between two trees; a and b are its
// entries (zero when absent on that side).
type change struct {
	path string
	a, b object.TreeEntry
}

// treeDiff is what diff found: the files that differ, and the
// directories of the first tree that the second lacks.
type treeDiff struct {
	changes     []change
	removedDirs []string
}

// diff adds every path that differs between trees a and b (the zero hash
// is the empty tree) below rel to the writes, and returns them.
func (w *writeSet) diff(a, b plumbing.Hash, rel string) (treeDiff, error) {
	var d treeDiff
	err := w.diffInto(&d, a, b, rel)
	return d, err
}

func (w *writeSet) diffInto(d *treeDiff, a, b plumbing.Hash, rel string) error {
	if a == b {
		return nil
	}
	ea, err := w.c.entries(a)
	if err != nil {
		return err
	}
	eb, err := w.c.entries(b)
	if err != nil {
		return err
	}
	for name, x := range ea {
		if err := w.diffEntry(d, x, eb[name], joinRel(rel, name)); err != nil {
			return err
		}
	}
	for name, y := range eb {
		if _, ok := ea[name]; !ok {
			if err := w.diffEntry(d, object.TreeEntry{}, y, joinRel(rel, name)); err != nil {
				return err
			}
		}
	}
	return nil
}

// diffEntry is diffInto for one name of two trees.
func (w *writeSet) diffEntry(d *treeDiff, x, y object.TreeEntry, rel string) error {
	if x.Hash == y.Hash && x.Mode == y.Mode {
		return nil
	}
	if err := w.c.s.spend(false); err != nil {
		return err
	}
	if err := w.name(rel); err != nil && !w.quiet {
		return err
	}
	var subA, subB plumbing.Hash
	var fa, fb object.TreeEntry
	if x.Mode == filemode.Dir {
		subA = x.Hash
	} else {
		fa = x
	}
	if y.Mode == filemode.Dir {
		subB = y.Hash
	} else {
		fb = y
	}
	if !fa.Hash.IsZero() || !fb.Hash.IsZero() {
		if err := w.write(rel, fa, fb); err != nil && !w.quiet {
			return err
		}
		d.changes = append(d.changes, change{path: rel, a: fa, b: fb})
	}
	if !subA.IsZero() && subB.IsZero() {
		d.removedDirs = append(d.removedDirs, rel)
	}
	if !subA.IsZero() || !subB.IsZero() {
		return w.diffInto(d, subA, subB, rel)
	}
	return nil
}

// name refuses a path git would refuse to check out, or one that writes
// into a repository: a component that is .git however spelled (case,
// trailing dots and spaces, the 8.3 short name), or one holding a
// backslash.
func (w *writeSet) name(rel string) error {
	if w.quiet {
		return nil
	}
	for _, comp := range strings.Split(rel, "/") {
		trimmed := strings.TrimRight(comp, ". ")
		if strings.EqualFold(trimmed, ".git") || strings.EqualFold(comp, "git~1") || strings.ContainsRune(comp, '\\') {
			w.refuse = fmt.Sprintf("the trees concerned hold %s, a name that writes into a repository or that git refuses", rel)
			return errRefuse
		}
	}
	return nil
}

// write records a file written at rel whose entries on the two sides are
// a and b: a submodule is refused (git may make or fill its directory,
// which the gate does not read); a symbolic link's target is a write too.
func (w *writeSet) write(rel string, sides ...object.TreeEntry) error {
	if w.quiet {
		return nil
	}
	w.paths[rel] = true
	for _, e := range sides {
		switch {
		case e.Hash.IsZero():
		case e.Mode == filemode.Submodule:
			w.refuse = fmt.Sprintf("%s is a submodule in the trees concerned: git would make, remove or fill its directory, which the gate does not read", rel)
			return errRefuse
		case e.Mode == filemode.Symlink:
			if err := w.link(rel, e.Hash); err != nil {
				return err
			}
		}
	}
	return nil
}

// maxLinkTarget is the longest symbolic link target the gate reads.
const maxLinkTarget = 4096

// link records the target of the symbolic link git would write at rel.
func (w *writeSet) link(rel string, h plumbing.Hash) error {
	o, err := w.c.s.object(h)
	if err != nil {
		return fmt.Errorf("the link %s: %w", rel, err)
	}
	if o.Type() != plumbing.BlobObject || o.Size() > maxLinkTarget || o.Size() == 0 {
		w.refuse = fmt.Sprintf("%s is a symbolic link whose target the gate cannot read", rel)
		return errRefuse
	}
	r, err := o.Reader()
	if err != nil {
		return err
	}
	defer r.Close()
	data, err := io.ReadAll(io.LimitReader(r, maxLinkTarget+1))
	if err != nil {
		return err
	}
	target := string(data)
	if strings.IndexByte(target, 0) >= 0 {
		w.refuse = fmt.Sprintf("%s is a symbolic link whose target holds a NUL byte", rel)
		return errRefuse
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(w.top, filepath.FromSlash(path.Dir(rel)), filepath.FromSlash(target))
	}
	w.links[filepath.Clean(target)] = rel
	return nil
}
