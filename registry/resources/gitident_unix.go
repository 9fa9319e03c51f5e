//go:build unix

package resources

import (
	"io/fs"
	"syscall"
)

// fileIdentity is the inode of a file (0 when it cannot be told): with
// its size and times, what tells a file written anew from one left alone.
func fileIdentity(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
