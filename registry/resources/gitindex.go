package resources

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// maxGitIndex is the largest index file the gate reads: a larger one is
// held for a human.
const maxGitIndex = 64 << 20

// gitIndexEntry is one entry of the index: its path and the blob it holds.
type gitIndexEntry struct {
	name string
	hash plumbing.Hash
}

// gitIndexPaths are the entries the index of the git directory gitDir
// holds (every stage), read with go-git's decoder: versions 2 to 4, the
// checksum checked, and an extension git requires a reader to understand
// (a split index's "link", a sparse index's "sdir") refused, since the
// entries it stands for are elsewhere. A missing index is an empty one, as
// for git. The index is the agent's to change (git add), so every byte of
// it is suspect: a malformed one is an error, never an empty list.
func gitIndexPaths(gitDir string) ([]gitIndexEntry, error) {
	data, err := readSmall(filepath.Join(gitDir, "index"), maxGitIndex)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("the index cannot be read: %v", err)
	}
	return parseGitIndex(data)
}

// parseGitIndex is gitIndexPaths for the index file's bytes. A panic in
// the decoder (bytes it did not expect) is an error, not a crash of the
// registry.
func parseGitIndex(data []byte) (paths []gitIndexEntry, err error) {
	defer func() {
		if r := recover(); r != nil {
			paths, err = nil, fmt.Errorf("the index is malformed (%v)", r)
		}
	}()
	return decodeGitIndex(data)
}

// decodeGitIndex is parseGitIndex without the safety net (the fuzz
// target calls it, so that a panic is found rather than hidden).
func decodeGitIndex(data []byte) ([]gitIndexEntry, error) {
	var idx index.Index
	if err := index.NewDecoder(bytes.NewReader(data)).Decode(&idx); err != nil {
		return nil, fmt.Errorf("the index is not one the gate can read: %v", err)
	}
	paths := make([]gitIndexEntry, 0, len(idx.Entries))
	for _, e := range idx.Entries {
		if e.Mode == filemode.Dir {
			return nil, errors.New("the index is sparse (a directory entry stands for files the gate does not list)")
		}
		paths = append(paths, gitIndexEntry{e.Name, e.Hash})
	}
	return paths, nil
}
