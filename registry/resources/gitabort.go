package resources

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// merge, cherry-pick, revert, rebase and am --abort put the work tree
// back as it was before the operation: git runs reset --merge (merge,
// cherry-pick, revert), a hard reset (rebase) or a two-way checkout (am)
// to a commit it takes from the state the operation left in the git
// directory: HEAD, the sequencer's head, the rebase's orig-head, ORIG_HEAD.
// Every one of those the agent can move with git alone (update-ref), so
// the gate reads the same state and judges the command as writing what a
// reset to that commit writes: the local changes, and what differs
// between HEAD's tree and the commit's. Without an operation in progress
// git writes nothing. --quit writes nothing either.

// abort computes the writes of prog --abort.
func (w *writeSet) abort(prog string, head plumbing.Hash) error {
	target, inProgress, err := w.abortTarget(prog)
	if err != nil || !inProgress {
		return err
	}
	if err := w.dirty(head); err != nil {
		return err
	}
	tree := plumbing.ZeroHash // the empty tree: git am --abort without ORIG_HEAD
	if !target.IsZero() {
		if tree, err = w.commitTree(target); err != nil {
			return err
		}
	}
	_, err = w.diff(head, tree, "")
	return err
}

// abortTarget is the commit prog --abort resets to (zero: the empty
// tree), read from the state of the operation in progress; inProgress is
// false when there is none (git refuses, writing nothing).
func (w *writeSet) abortTarget(prog string) (target plumbing.Hash, inProgress bool, err error) {
	gitDir := w.c.read.gitDir
	head := func() (plumbing.Hash, bool, error) {
		h, _, err := w.c.s.ref("HEAD")
		return h, true, err
	}
	switch prog {
	case "git merge":
		if !gitStateExists(gitDir, "MERGE_HEAD") {
			return plumbing.ZeroHash, false, nil
		}
		if gitStateExists(gitDir, "MERGE_AUTOSTASH") {
			return plumbing.ZeroHash, false, errors.New("it applies the changes MERGE_AUTOSTASH stashed, which the gate does not model")
		}
		return head()
	case "git cherry-pick", "git revert":
		if gitStateExists(gitDir, "sequencer") {
			return gitStateCommit(gitDir, "sequencer/head")
		}
		if gitStateExists(gitDir, "CHERRY_PICK_HEAD") || gitStateExists(gitDir, "REVERT_HEAD") {
			return head()
		}
		return plumbing.ZeroHash, false, nil
	case "git rebase":
		for _, dir := range []string{"rebase-merge", "rebase-apply"} {
			if !gitStateExists(gitDir, dir) {
				continue
			}
			if gitStateExists(gitDir, dir+"/autostash") {
				return plumbing.ZeroHash, false, errors.New("it applies the changes its autostash holds, which the gate does not model")
			}
			return gitStateCommit(gitDir, dir+"/orig-head")
		}
		return plumbing.ZeroHash, false, nil
	case "git am":
		if !gitStateExists(gitDir, "rebase-apply") {
			return plumbing.ZeroHash, false, nil
		}
		h, ok, err := w.c.s.ref("ORIG_HEAD")
		if !ok {
			h = plumbing.ZeroHash
		}
		return h, true, err
	}
	return plumbing.ZeroHash, false, fmt.Errorf("%s --abort is not a command the gate models", prog)
}

// gitStateExists reports whether the git directory holds name (a file or
// a directory an operation in progress leaves); one that cannot be told
// counts as there.
func gitStateExists(gitDir, name string) bool {
	_, err := os.Lstat(filepath.Join(gitDir, filepath.FromSlash(name)))
	return !errors.Is(err, fs.ErrNotExist)
}

// gitStateCommit is the object id a state file of the git directory
// holds (one line of hex digits).
func gitStateCommit(gitDir, name string) (plumbing.Hash, bool, error) {
	data, err := readSmall(filepath.Join(gitDir, filepath.FromSlash(name)), 4096)
	if err != nil {
		return plumbing.ZeroHash, true, fmt.Errorf("%s cannot be read: %v", name, err)
	}
	id := strings.TrimSpace(string(data))
	if len(id) != 40 || !isHexString(id) {
		return plumbing.ZeroHash, true, fmt.Errorf("%s does not hold an object id", name)
	}
	return plumbing.NewHash(id), true, nil
}
