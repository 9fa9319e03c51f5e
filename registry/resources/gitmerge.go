package resources

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// The commands that apply changes (merge, cherry-pick, revert, rebase,
// stash apply) run git's three-way merge: a path is written where the
// side applied changed it since the base. Rename detection moves a change
// to where the other side renamed the file (a path that side added), and
// a conflict may write a copy beside a path (PATH~NAME); directory rename
// detection can move an added file into a directory the other side made,
// which the gate does not follow, so it holds those.

// sequence is what the commands applied so far on one line did, for the
// next: a change to a path an earlier one removed may land elsewhere.
type sequence struct {
	removed     map[string]bool // paths an earlier commit removed
	removedDirs []string        // directories an earlier commit removed
}

// mergeWrites adds what applying the change from base to theirs onto ours
// writes.
func (w *writeSet) mergeWrites(base, ours, theirs plumbing.Hash, seq *sequence) error {
	dt, err := w.diff(base, theirs, "")
	if err != nil {
		return err
	}
	do, err := w.collect(base, ours)
	if err != nil {
		return err
	}
	oursLacks := map[string]bool{}
	oursAdded := []change{}
	for _, ch := range do.changes {
		if ch.b.Hash.IsZero() {
			oursLacks[ch.path] = true
		} else if ch.a.Hash.IsZero() {
			oursAdded = append(oursAdded, ch)
		}
	}
	renamed := false
	for _, ch := range dt.changes {
		w.suffixed[ch.path] = true
		if ch.a.Hash.IsZero() {
			if dir := underAny(ch.path, do.removedDirs); dir != "" {
				return fmt.Errorf("%s adds %s in a directory the other side removed (%s): git may move it where that directory went, which the gate does not follow", "the change applied", ch.path, dir)
			}
			if seq != nil {
				if dir := underAny(ch.path, seq.removedDirs); dir != "" {
					return fmt.Errorf("a commit adds %s in a directory an earlier one removed (%s), which the gate does not follow: apply them one call at a time", ch.path, dir)
				}
			}
			continue
		}
		if oursLacks[ch.path] {
			renamed = true // ours may have renamed it: the change goes where it went
		}
		if seq != nil && seq.removed[ch.path] {
			return fmt.Errorf("a commit changes %s, which an earlier one removed, which the gate does not follow: apply them one call at a time", ch.path)
		}
	}
	for _, ch := range oursAdded {
		if dir := underAny(ch.path, dt.removedDirs); dir != "" {
			return fmt.Errorf("the change applied removes %s, where the other side added %s: git may move it where that directory went, which the gate does not follow", dir, ch.path)
		}
		if renamed {
			if err := w.write(ch.path, ch.b); err != nil {
				return err
			}
			w.suffixed[ch.path] = true
		}
	}
	if seq != nil {
		for _, ch := range dt.changes {
			if ch.b.Hash.IsZero() {
				seq.removed[ch.path] = true
			}
		}
		seq.removedDirs = append(seq.removedDirs, dt.removedDirs...)
	}
	return nil
}

// collect is diff without recording or judging writes: what ours changed
// since the base is read, not written.
func (w *writeSet) collect(a, b plumbing.Hash) (treeDiff, error) {
	q := &writeSet{c: w.c, top: w.top, quiet: true}
	return q.diff(a, b, "")
}

// underAny is the first of dirs that p lies below, or "".
func underAny(p string, dirs []string) string {
	for _, d := range dirs {
		if strings.HasPrefix(p, d+"/") {
			return d
		}
	}
	return ""
}

// merge is git merge REV…: for each head, the changes since each merge
// base. No revision merges the upstream, which the gate does not look
// up.
func (w *writeSet) merge(rw *gitRewrite, head plumbing.Hash) error {
	if len(rw.revs) == 0 {
		return errors.New("without a revision it merges the branch's upstream, which the gate does not look up: name it (git merge origin/main)")
	}
	headTip, _, err := w.c.s.ref("HEAD")
	if err != nil {
		return err
	}
	var seq *sequence
	if len(rw.revs) > 1 {
		seq = &sequence{removed: map[string]bool{}}
	}
	for _, op := range rw.revs {
		tips, err := w.commits(op)
		if err != nil {
			return revErr(op, err)
		}
		for _, tip := range tips {
			theirs, err := w.commitTree(tip)
			if err != nil {
				return err
			}
			bases, err := w.mergeBases(headTip, tip)
			if err != nil {
				return err
			}
			for _, b := range bases {
				bt := plumbing.ZeroHash
				if !b.IsZero() {
					if bt, err = w.commitTree(b); err != nil {
						return err
					}
				}
				if err := w.mergeWrites(bt, head, theirs, seq); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// revErr is the error for an operand that names no commit.
func revErr(op string, err error) error {
	if errors.Is(err, errNotRev) {
		return fmt.Errorf("%s names no revision the gate finds", op)
	}
	return err
}

// ancestors are the commits reachable from tip (itself included).
func (w *writeSet) ancestors(tip plumbing.Hash) (map[plumbing.Hash]bool, error) {
	seen := map[plumbing.Hash]bool{}
	if tip.IsZero() {
		return seen, nil
	}
	if err := w.walkBack([]plumbing.Hash{tip}, seen, nil); err != nil {
		return nil, err
	}
	return seen, nil
}

// walkBack visits, level by level through the parents, every commit
// reachable from tips that seen does not hold yet, adding each to seen
// and passing it to visit (nil: none).
func (w *writeSet) walkBack(tips []plumbing.Hash, seen map[plumbing.Hash]bool, visit func(plumbing.Hash)) error {
	level := tips
	for len(level) > 0 {
		var next []plumbing.Hash
		for _, h := range level {
			if seen[h] {
				continue
			}
			seen[h] = true
			if visit != nil {
				visit(h)
			}
			cm, err := w.commit(h)
			if err != nil {
				return err
			}
			next = append(next, cm.ParentHashes...)
		}
		level = next
	}
	return nil
}

// mergeBases are the common ancestors of a and b met first from b (a walk
// from b stops at each): every best merge base is among them, and a base
// that is not best only adds paths. None (unrelated histories, or an
// unborn HEAD): the zero hash, the empty tree.
func (w *writeSet) mergeBases(a, b plumbing.Hash) ([]plumbing.Hash, error) {
	inA, err := w.ancestors(a)
	if err != nil {
		return nil, err
	}
	var out []plumbing.Hash
	seen := map[plumbing.Hash]bool{}
	level := []plumbing.Hash{b}
	for len(level) > 0 {
		var next []plumbing.Hash
		for _, h := range level {
			if seen[h] {
				continue
			}
			seen[h] = true
			if inA[h] {
				out = append(out, h)
				continue
			}
			cm, err := w.commit(h)
			if err != nil {
				return nil, err
			}
			next = append(next, cm.ParentHashes...)
		}
		level = next
	}
	if len(out) == 0 {
		out = []plumbing.Hash{plumbing.ZeroHash}
	}
	return out, nil
}

// pickList are the commits the operands of cherry-pick or revert name, in
// the order given (a range's, newest first: the order does not change
// the paths, only which sequence holds).
func (w *writeSet) pickList(ops []string) ([]*object.Commit, error) {
	var out []*object.Commit
	for _, op := range ops {
		if op == "-" {
			op = "@{-1}"
		}
		rv, err := w.c.rev(op)
		if err != nil {
			return nil, revErr(op, err)
		}
		hs := rv.tips
		if rv.set {
			if hs, err = w.walkExcluding(rv.tips, rv.stops); err != nil {
				return nil, err
			}
		}
		for _, h := range hs {
			cm, err := w.commit(h)
			if err != nil {
				return nil, err
			}
			out = append(out, cm)
		}
	}
	return out, nil
}

// walkExcluding are the commits reachable from tips but not from stops.
func (w *writeSet) walkExcluding(tips, stops []plumbing.Hash) ([]plumbing.Hash, error) {
	out := map[plumbing.Hash]bool{}
	for _, s := range stops {
		anc, err := w.ancestors(s)
		if err != nil {
			return nil, err
		}
		for h := range anc {
			out[h] = true
		}
	}
	var list []plumbing.Hash
	if err := w.walkBack(tips, out, func(h plumbing.Hash) { list = append(list, h) }); err != nil {
		return nil, err
	}
	return list, nil
}

// parentTrees are the trees a commit's change is taken against: the
// mainline parent, else every parent (git refuses a merge without -m;
// the gate counts them all); the empty tree for a root.
func (w *writeSet) parentTrees(cm *object.Commit, mainline int) ([]plumbing.Hash, error) {
	ps := cm.ParentHashes
	if mainline > 0 && mainline <= len(ps) {
		ps = ps[mainline-1 : mainline]
	}
	if len(ps) == 0 {
		return []plumbing.Hash{plumbing.ZeroHash}, nil
	}
	var out []plumbing.Hash
	for _, p := range ps {
		t, err := w.commitTree(p)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// pick is cherry-pick (each commit's change from its parent) and revert
// (the change back to the parent), applied onto HEAD.
func (w *writeSet) pick(rw *gitRewrite, head plumbing.Hash) error {
	list, err := w.pickList(rw.revs)
	if err != nil {
		return err
	}
	return w.applyAll(list, rw.mainline, head, rw.kind == rwRevert)
}

// applyAll applies each commit of list onto ours in turn.
func (w *writeSet) applyAll(list []*object.Commit, mainline int, ours plumbing.Hash, reverse bool) error {
	var seq *sequence
	if len(list) > 1 {
		seq = &sequence{removed: map[string]bool{}}
	}
	for i := len(list) - 1; i >= 0; i-- { // oldest first, as given ranges are newest first
		cm := list[i]
		parents, err := w.parentTrees(cm, mainline)
		if err != nil {
			return err
		}
		for _, p := range parents {
			base, theirs := p, cm.TreeHash
			if reverse {
				base, theirs = cm.TreeHash, p
			}
			if err := w.mergeWrites(base, ours, theirs, seq); err != nil {
				return err
			}
		}
	}
	return nil
}

// rebase is git rebase [--onto X] UPSTREAM [BRANCH]: BRANCH checked out,
// the work tree moved to X (UPSTREAM), then each commit of BRANCH not in
// UPSTREAM applied onto it. Merge commits are dropped, as git does.
func (w *writeSet) rebase(rw *gitRewrite, head plumbing.Hash) error {
	if len(rw.revs) == 0 && !rw.root {
		return errors.New("without an upstream it rebases onto the branch's configured upstream, which the gate does not look up: name it (git rebase origin/main)")
	}
	if len(rw.revs) > 2 || (rw.root && len(rw.revs) > 1) {
		return errors.New("it takes at most an upstream and a branch")
	}
	cur, _, err := w.c.s.ref("HEAD")
	if err != nil {
		return err
	}
	curTree := head
	if n := len(rw.revs); n == 2 || (rw.root && n == 1) {
		branch := rw.revs[n-1]
		if cur, curTree, err = w.oneCommit(branch); err != nil {
			return err
		}
		if _, err := w.diff(head, curTree, ""); err != nil {
			return err
		}
	}
	var upstream []plumbing.Hash
	if !rw.root {
		if upstream, err = w.commits(rw.revs[0]); err != nil {
			return revErr(rw.revs[0], err)
		}
	}
	ontos, err := w.rebaseOntos(rw, cur, upstream)
	if err != nil {
		return err
	}
	hs, err := w.walkExcluding([]plumbing.Hash{cur}, upstream)
	if err != nil {
		return err
	}
	var list []*object.Commit
	for _, h := range hs {
		cm, err := w.commit(h)
		if err != nil {
			return err
		}
		if len(cm.ParentHashes) <= 1 {
			list = append(list, cm)
		}
	}
	for _, o := range ontos {
		ot := plumbing.ZeroHash
		if !o.IsZero() {
			if ot, err = w.commitTree(o); err != nil {
				return err
			}
		}
		if _, err := w.diff(curTree, ot, ""); err != nil {
			return err
		}
		if err := w.applyAll(list, 0, ot, false); err != nil {
			return err
		}
	}
	return nil
}

// rebaseOntos are the commits a rebase moves the work tree to: --onto's,
// the merge bases with --keep-base, the empty tree for --root, else the
// upstream's.
func (w *writeSet) rebaseOntos(rw *gitRewrite, cur plumbing.Hash, upstream []plumbing.Hash) ([]plumbing.Hash, error) {
	var err error
	ontos := upstream
	switch {
	case rw.root && rw.onto == "":
		ontos = []plumbing.Hash{plumbing.ZeroHash}
	case rw.onto != "":
		if ontos, err = w.commits(rw.onto); err != nil {
			return nil, revErr(rw.onto, err)
		}
	case rw.keepBase:
		ontos = nil
		for _, u := range upstream {
			bs, err := w.mergeBases(cur, u)
			if err != nil {
				return nil, err
			}
			ontos = append(ontos, bs...)
		}
	}
	return ontos, nil
}

// oneCommit is the commit and tree an operand names, which must be one.
func (w *writeSet) oneCommit(op string) (plumbing.Hash, plumbing.Hash, error) {
	tips, err := w.commits(op)
	if err != nil {
		return plumbing.ZeroHash, plumbing.ZeroHash, revErr(op, err)
	}
	if len(tips) != 1 {
		return plumbing.ZeroHash, plumbing.ZeroHash, fmt.Errorf("%s may name more than one commit", op)
	}
	t, err := w.commitTree(tips[0])
	return tips[0], t, err
}

// stashApply is stash pop|apply [STASH]: the entry's change to the work
// tree merged onto HEAD, its index's change, and its untracked files.
func (w *writeSet) stashApply(rw *gitRewrite, head plumbing.Hash) error {
	op := "stash@{0}"
	if len(rw.revs) == 1 {
		op = rw.revs[0]
	}
	h, err := w.stashEntry(op)
	if err != nil {
		return err
	}
	cm, err := w.commit(h)
	if err != nil {
		return err
	}
	if len(cm.ParentHashes) < 2 || len(cm.ParentHashes) > 3 {
		return fmt.Errorf("%s is not a stash entry (%d parents)", op, len(cm.ParentHashes))
	}
	var trees []plumbing.Hash
	for _, p := range cm.ParentHashes {
		t, err := w.commitTree(p)
		if err != nil {
			return err
		}
		trees = append(trees, t)
	}
	if err := w.mergeWrites(trees[0], head, cm.TreeHash, nil); err != nil {
		return err
	}
	if err := w.mergeWrites(trees[0], head, trees[1], nil); err != nil {
		return err
	}
	if len(trees) == 3 {
		_, err = w.diff(plumbing.ZeroHash, trees[2], "")
	}
	return err
}

// stashEntry is the commit a stash operand names: stash@{N} or N is the
// N-th newest entry of refs/stash's reflog; anything else a revision.
func (w *writeSet) stashEntry(op string) (plumbing.Hash, error) {
	n := -1
	if inner, ok := strings.CutPrefix(op, "stash@{"); ok && strings.HasSuffix(inner, "}") {
		if v, err := strconv.Atoi(strings.TrimSuffix(inner, "}")); err == nil && v >= 0 {
			n = v
		}
	} else if v, err := strconv.Atoi(op); err == nil && v >= 0 {
		n = v
	}
	if n < 0 {
		tips, err := w.commits(op)
		if err != nil {
			return plumbing.ZeroHash, revErr(op, err)
		}
		if len(tips) != 1 {
			return plumbing.ZeroHash, fmt.Errorf("%s may name more than one commit", op)
		}
		return tips[0], nil
	}
	entries, err := w.c.s.reflogNew("refs/stash")
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if n == 0 {
		if h, ok, err := w.c.s.ref("refs/stash"); err != nil || ok {
			return h, err
		}
	}
	if n >= len(entries) {
		return plumbing.ZeroHash, fmt.Errorf("%s names no stash entry", op)
	}
	return entries[len(entries)-1-n], nil
}
