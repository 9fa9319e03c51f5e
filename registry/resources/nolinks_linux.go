package resources

import (
	"strings"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// openat2Missing: the kernel has no openat2 (before Linux 5.6; valgrind
// does not know it either), so it is not asked again.
var openat2Missing atomic.Bool

// mayOpenWithoutLinks reports whether dirWithoutLinks can answer at all.
func mayOpenWithoutLinks() bool { return !openat2Missing.Load() }

// dirWithoutLinks reports whether the clean absolute path dir is, as the
// kernel resolves it now, a directory reached through no symbolic link:
// one openat2(2) with RESOLVE_NO_SYMLINKS, which fails (ELOOP) when any
// component, the last included, is a link, and ENOTDIR or ENOENT when one
// is not a directory or missing. That is what an lstat of every component
// finds when none is a link and each is a directory, in two system calls
// (the open and the close) instead of one a component. false is no
// answer: any failure (an old kernel's ENOSYS, a seccomp filter's EPERM, a
// link, a missing directory) leaves the component walk to decide.
func dirWithoutLinks(dir string) bool {
	var buf [256]byte
	if len(dir) >= len(buf) || strings.IndexByte(dir, 0) >= 0 {
		return false
	}
	copy(buf[:], dir) // NUL-terminated by the zero bytes after it
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS}
	atFDCWD := unix.AT_FDCWD
	for {
		fd, _, e := unix.Syscall6(unix.SYS_OPENAT2, uintptr(atFDCWD), uintptr(unsafe.Pointer(&buf[0])),
			uintptr(unsafe.Pointer(&how)), unsafe.Sizeof(how), 0, 0)
		switch {
		case e == unix.EINTR:
			continue
		case e == unix.ENOSYS:
			openat2Missing.Store(true) // the kernel's answer, not the file system's
			return false
		case e != 0:
			return false
		}
		unix.Close(int(fd))
		return true
	}
}
