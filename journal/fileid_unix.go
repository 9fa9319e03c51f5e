//go:build !windows

package journal

import (
	"io/fs"
	"syscall"
)

func idOf(fi fs.FileInfo) (fileID, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{Dev: uint64(st.Dev), Ino: uint64(st.Ino)}, true
}
