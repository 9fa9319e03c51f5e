//go:build darwin

package unixsock

import "syscall"

// socket makes a non-blocking, close-on-exec Unix stream socket. macOS has
// no SOCK_CLOEXEC: the fork lock keeps a concurrent fork from inheriting
// the descriptor before it is marked.
func socket() (int, error) {
	syscall.ForkLock.RLock()
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return -1, err
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return -1, err
	}
	return fd, nil
}
