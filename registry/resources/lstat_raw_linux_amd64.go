package resources

import (
	"strings"
	"syscall"
	"unsafe"
)

// lstatRaw is syscall.Lstat without the heap copy of the path it makes
// to add the NUL byte (about five a shell line): a path that fits is
// copied to the stack instead. A longer one, or one holding a NUL, takes
// syscall.Lstat.
func lstatRaw(p string, st *syscall.Stat_t) error {
	var buf [256]byte
	if len(p) >= len(buf) || strings.IndexByte(p, 0) >= 0 {
		return syscall.Lstat(p, st) // a NUL: EINVAL, as it says
	}
	copy(buf[:], p) // NUL-terminated by the zero bytes after it
	const atFDCWD, atSymlinkNoFollow = -0x64, 0x100
	fd := atFDCWD
	_, _, e := syscall.Syscall6(syscall.SYS_NEWFSTATAT, uintptr(fd), uintptr(unsafe.Pointer(&buf[0])),
		uintptr(unsafe.Pointer(st)), atSymlinkNoFollow, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}
