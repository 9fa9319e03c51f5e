//go:build unix

package resources

import (
	"os"
	"syscall"
)

// lstatLink reports whether p is a symbolic link, with lstat(2) straight
// from the syscall package: os.Lstat would build a FileInfo the caller
// does not use.
func lstatLink(p string) (bool, error) {
	var st syscall.Stat_t
	for {
		err := syscall.Lstat(p, &st)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return false, &os.PathError{Op: "lstat", Path: shorten(p), Err: err}
		}
		return st.Mode&syscall.S_IFMT == syscall.S_IFLNK, nil
	}
}
