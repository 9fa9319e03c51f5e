package resources

import (
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// gitOperands is a command's operands before "--" sorted as git sorts
// them: revisions, pathspecs, and REV:path trees (git grep x HEAD:src
// reads every file below src in HEAD).
type gitOperands struct {
	revs     []gitRev
	subtrees []gitRev // REV:path, with the path among the pathspecs
	paths    bool     // some operand was a pathspec
	indexed  bool     // some operand was a file of the index (:path)
	failed   bool     // some operand names nothing: git stops before printing
}

// operands sorts r's operands, adding the pathspecs to c.spec.
func (c *gitChecker) operands(r *gitReach) (gitOperands, error) {
	var ops gitOperands
	prefix := c.read.prefix
	for i, op := range r.revs {
		switch {
		case r.mode == gitModeArchive && i > 0,
			strings.HasPrefix(op, ":(") || strings.HasPrefix(op, ":!") || strings.HasPrefix(op, ":^"):
			c.spec.add(op, prefix)
			ops.paths = true
			continue
		case strings.HasPrefix(op, ":/"):
			return ops, fmt.Errorf("%s names a commit by its message, which the gate does not search", op)
		case strings.HasPrefix(op, ":"):
			// :path, :N:path: a file of the index, read by its path
			// (checked as such), and by its content.
			if err := c.indexPath(op, false); err != nil {
				return ops, err
			}
			ops.indexed = true
			continue
		case strings.Contains(op, ":"):
			if err := c.subtree(&ops, op); err != nil {
				return ops, err
			}
			continue
		}
		rv, err := c.rev(op)
		switch {
		case err == nil:
			ops.revs = append(ops.revs, rv)
		case errors.Is(err, errNotRev):
			switch {
			case strings.HasPrefix(op, "main-worktree/") || strings.HasPrefix(op, "worktrees/"):
				return ops, fmt.Errorf("%s names another worktree's ref, which the gate does not read", op)
			case c.exists(op) || strings.ContainsAny(op, "*?["):
				c.spec.add(op, prefix)
				ops.paths = true
			default:
				// Neither a revision git's rules find (the gate follows
				// them: refs, packed refs, object ids) nor a file: git
				// refuses the line and prints nothing.
				ops.failed = true
			}
		default:
			return ops, err
		}
	}
	for _, p := range r.paths {
		c.spec.add(p, prefix)
		ops.paths = true
	}
	return ops, nil
}

// subtree reads REV:path: the tree (or blob) at path in REV. A blob there
// is read by its path, which the analysis checks; a tree is every file
// below it, which a command that reads trees (grep, archive, diff) reads.
func (c *gitChecker) subtree(ops *gitOperands, op string) error {
	revText, p, _ := strings.Cut(op, ":")
	if revText == "" {
		return nil
	}
	rv, err := c.rev(revText)
	if err != nil {
		if errors.Is(err, errNotRev) {
			return nil // git refuses it
		}
		return err
	}
	var sub gitPathspec
	sub.add(p, c.read.prefix)
	if len(sub.includes) == 1 {
		c.spec.includes = append(c.spec.includes, sub.includes[0])
		c.spec.given = true
	}
	ops.subtrees = append(ops.subtrees, rv)
	return nil
}

// run checks the command's reach by its mode, and the notes it prints.
func (c *gitChecker) run() error {
	r := &c.read.reach
	if r.unknown != "" {
		return errors.New(r.unknown)
	}
	switch r.mode {
	case gitModeNamed:
		return c.named(r)
	case gitModeRefFormat:
		return c.refTargets()
	case gitModeIndexWrite:
		return c.indexWrite(r)
	case gitModeNotes:
		return c.notes()
	}
	if !r.notesOnly {
		if err := c.runMode(r); err != nil {
			return err
		}
	}
	if r.notes {
		return c.notes()
	}
	return nil
}

// runMode checks what a content-printing command prints by its mode.
func (c *gitChecker) runMode(r *gitReach) error {
	ops, err := c.operands(r)
	if err != nil || ops.failed {
		return err
	}
	if r.mode == gitModeGrep && !c.spec.given {
		c.spec.add(".", c.read.prefix) // git grep searches the working directory
	}
	for _, sub := range ops.subtrees {
		for _, h := range sub.tips {
			if err := c.tree(h); err != nil {
				return err
			}
		}
	}
	switch r.mode {
	case gitModeLog, gitModeFormatPatch, gitModeRangeDiff, gitModeBundle:
		return c.history(r, ops)
	case gitModeStash:
		return c.stash()
	case gitModeShow:
		return c.show(r, ops)
	case gitModeDiff, gitModeDiffTree, gitModeDiffIndex, gitModeDiffFiles:
		return c.diff(r, ops)
	case gitModeGrep, gitModeArchive:
		if len(ops.revs) == 0 && len(ops.subtrees) == 0 {
			return c.index()
		}
		return c.trees(ops.revs)
	case gitModeBlame:
		// blame prints the lines of the file named as it is at the
		// revision, or in the work tree (whose commits it takes from
		// HEAD and the index).
		if len(ops.revs) > 0 {
			return c.trees(ops.revs)
		}
		if err := c.index(); err != nil {
			return err
		}
		head, err := c.head()
		if err != nil {
			return err
		}
		return c.trees([]gitRev{{tips: head}})
	}
	return fmt.Errorf("%s is not a command the gate models", c.read.Program)
}

// trees checks the whole tree of every object the revisions name.
func (c *gitChecker) trees(revs []gitRev) error {
	for _, rv := range revs {
		for _, h := range rv.tips {
			if err := c.tree(h); err != nil {
				return err
			}
		}
	}
	return nil
}

// head is what HEAD names: nothing on an unborn branch.
func (c *gitChecker) head() ([]plumbing.Hash, error) {
	h, ok, err := c.s.ref("HEAD")
	if err != nil || !ok {
		return nil, err
	}
	return []plumbing.Hash{h}, nil
}

// history checks the commits log, format-patch, range-diff and bundle
// walk: from the revisions given (HEAD when none), every ref with --all,
// every reflog entry with --reflog or -g, without the commits ranges
// leave out; at most depth steps from a tip when no pathspec or filter
// lets git go deeper.
func (c *gitChecker) history(r *gitReach, ops gitOperands) error {
	var tips, stops []plumbing.Hash
	single := 0
	for _, rv := range ops.revs {
		tips = append(tips, rv.tips...)
		stops = append(stops, rv.stops...)
		if !rv.set {
			single++
		}
	}
	if r.mode == gitModeFormatPatch && single == 1 && len(ops.revs) == 1 && !r.root && r.depth == 0 {
		// format-patch REV is REV..HEAD.
		stops, tips = tips, nil
	}
	if r.all {
		more, err := c.s.allTips()
		if err != nil {
			return err
		}
		tips = append(tips, more...)
	}
	if r.reflogs {
		more, err := c.s.reflogTips("")
		if err != nil {
			return err
		}
		tips = append(tips, more...)
	}
	if len(tips) == 0 && !r.all && !r.reflogs {
		head, err := c.head()
		if err != nil {
			return err
		}
		tips = head
	}
	depth := r.depth
	if ops.paths || len(ops.subtrees) > 0 {
		depth = 0 // a pathspec filters the commits shown: the walk goes deeper
	}
	if r.full {
		c.spec = gitPathspec{} // --full-diff: the whole change of each commit selected
	}
	return c.walk(tips, stops, depth, r.mode == gitModeBundle)
}

// stash checks every stash entry (refs/stash and its reflog): each
// entry's changes against each of its parents, which covers the work
// tree, the index and the untracked files it saved.
func (c *gitChecker) stash() error {
	h, ok, err := c.s.ref("refs/stash")
	if err != nil || !ok {
		return err
	}
	logged, err := c.s.reflogTips("refs/stash")
	if err != nil {
		return err
	}
	return c.walk(append([]plumbing.Hash{h}, logged...), nil, 1, false)
}

// show checks each object git show prints (HEAD when none is given): a
// commit's changes (none with -s), a tag's target, nothing for a tree (a
// listing of names); a blob is refused. A range is walked as log walks it.
func (c *gitChecker) show(r *gitReach, ops gitOperands) error {
	revs := ops.revs
	if len(revs) == 0 && len(ops.subtrees) == 0 && !ops.indexed {
		head, err := c.head()
		if err != nil {
			return err
		}
		revs = []gitRev{{text: "HEAD", tips: head}}
	}
	for _, rv := range revs {
		if rv.set {
			if err := c.walk(rv.tips, rv.stops, 0, false); err != nil {
				return err
			}
			continue
		}
		for _, h := range rv.tips {
			if err := c.showOne(h, r.noPatch); err != nil {
				return err
			}
		}
	}
	return nil
}

// showOne is show for one object.
func (c *gitChecker) showOne(h plumbing.Hash, noPatch bool) error {
	o, err := c.s.peel(h)
	if err != nil {
		return fmt.Errorf("object %s: %w", h.String()[:12], err)
	}
	switch o.Type() {
	case plumbing.BlobObject:
		c.where = "the object named"
		return c.blob(h)
	case plumbing.CommitObject:
		if noPatch {
			return nil
		}
		cm, err := c.commitOf(o.Hash())
		if err != nil || cm == nil {
			return err
		}
		return c.changes(cm)
	}
	return nil // a tree: its names
}

// diff checks what git diff and its plumbing print: the index (against
// the work tree, or a tree with --cached and diff-index); a tree against
// the index or the work tree (git diff REV); the changes between two
// trees (A B, A..B); for A...B, the changes of the commits on B's side.
// A blob among the operands is refused (git diff prints blobs whole).
func (c *gitChecker) diff(r *gitReach, ops gitOperands) error {
	revs := ops.revs
	for _, rv := range revs {
		for _, h := range rv.tips {
			if o, err := c.s.peel(h); err != nil {
				return fmt.Errorf("object %s: %w", h.String()[:12], err)
			} else if o.Type() == plumbing.BlobObject {
				c.where = "the object named"
				return c.blob(h)
			}
		}
	}
	switch {
	case r.mode == gitModeDiffTree && len(revs) == 1 && !revs[0].set:
		return c.show(&gitReach{}, gitOperands{revs: revs})
	case len(revs) == 1 && revs[0].set && len(revs[0].stops) > 0:
		return c.pairs(revs[0].stops, revs[0].tips)
	case len(revs) == 1 && revs[0].left != nil:
		return c.walk(revs[0].tips[:len(revs[0].tips)-len(revs[0].left)], revs[0].left, 0, false) // A...B
	case len(revs) == 1 && revs[0].set:
		return c.walk(revs[0].tips, nil, 0, false)
	case len(revs) == 2 && !revs[0].set && !revs[1].set:
		return c.pairs(revs[0].tips, revs[1].tips)
	}
	if r.mode == gitModeDiffFiles || r.mode == gitModeDiff || r.mode == gitModeDiffIndex {
		if err := c.index(); err != nil {
			return err
		}
	}
	if len(revs) == 0 && r.cached {
		head, err := c.head()
		if err != nil {
			return err
		}
		revs = []gitRev{{tips: head}}
	}
	for _, rv := range revs {
		if err := c.trees([]gitRev{{tips: append(append([]plumbing.Hash{}, rv.tips...), rv.stops...)}}); err != nil {
			return err
		}
	}
	return nil
}

// pairs checks the changes between every tree of as and every tree of bs.
func (c *gitChecker) pairs(as, bs []plumbing.Hash) error {
	for _, a := range as {
		ta, err := c.treeHash(a)
		if err != nil {
			return err
		}
		for _, b := range bs {
			tb, err := c.treeHash(b)
			if err != nil {
				return err
			}
			c.where = fmt.Sprintf("the changes from %s to %s", a.String()[:12], b.String()[:12])
			if err := c.diffTrees(ta, tb, ""); err != nil {
				return err
			}
		}
	}
	return nil
}

// treeHash is the tree an object names (a commit's, a tag's target's).
func (c *gitChecker) treeHash(h plumbing.Hash) (plumbing.Hash, error) {
	o, err := c.s.peel(h)
	if err != nil {
		return h, fmt.Errorf("object %s: %w", h.String()[:12], err)
	}
	switch o.Type() {
	case plumbing.TreeObject:
		return o.Hash(), nil
	case plumbing.CommitObject:
		cm, err := c.commitOf(o.Hash())
		if err != nil || cm == nil {
			return h, err
		}
		return cm.TreeHash, nil
	case plumbing.BlobObject:
		return h, c.blob(h)
	}
	return h, fmt.Errorf("object %s is a %s", h.String()[:12], o.Type())
}
