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
