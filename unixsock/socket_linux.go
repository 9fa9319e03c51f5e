//go:build linux

package unixsock

import "syscall"

// socket makes a non-blocking, close-on-exec Unix stream socket.
func socket() (int, error) {
	return syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
}
