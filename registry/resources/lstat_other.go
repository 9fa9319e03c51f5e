//go:build !unix

package resources

import (
	"io/fs"
	"os"
)

// lstatLink reports whether p is a symbolic link.
func lstatLink(p string) (bool, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return false, err
	}
	return fi.Mode()&fs.ModeSymlink != 0, nil
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
