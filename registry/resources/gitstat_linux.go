//go:build linux

package resources

import (
	"io/fs"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// statChanged compares what git's stat data holds besides the size and
// the modification time: the inode and the change time (a file rewritten
// and its mtime set back still has a new ctime).
func statChanged(fi fs.FileInfo, e *index.Entry) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return true
	}
	ctime := time.Unix(st.Ctim.Sec, st.Ctim.Nsec)
	return uint32(st.Ino) != e.Inode || !ctime.Equal(e.CreatedAt)
}
