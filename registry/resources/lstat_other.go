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
