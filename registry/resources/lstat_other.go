//go:build !unix

package resources

import (
	"io/fs"
	"os"
)

// lstatKind reports whether p is a symbolic link or a directory.
func lstatKind(p string) (link, dir bool, err error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return false, false, err
	}
	return fi.Mode()&fs.ModeSymlink != 0, fi.IsDir(), nil
}

// lstatEntry is lstatKind with a missing path (isMissing) reported as
// missing rather than as an error.
func lstatEntry(p string) (link, dir, missing bool, err error) {
	link, dir, err = lstatKind(p)
	if err != nil && isMissing(err) {
		return false, false, true, nil
	}
	return link, dir, false, err
}

// sameFile reports whether both paths exist (links followed) and are one
// file; b is looked at only when a exists.
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// HardLinks is the number of names the regular file at p has. The link
// count is not read on this OS (os.FileInfo does not carry it), so a file
// with several names is not told apart: 1 for a regular file, else 0.
func HardLinks(p string) int {
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return 0
	}
	return 1
}
