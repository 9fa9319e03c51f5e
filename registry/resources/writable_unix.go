//go:build unix

package resources

import "syscall"

// userWritable reports whether the current user may write p, or whether
// that cannot be ruled out (p does not exist, say).
func userWritable(p string) bool {
	const wOK = 2
	err := syscall.Access(p, wOK)
	return err == nil || err != syscall.EACCES && err != syscall.EROFS
}
