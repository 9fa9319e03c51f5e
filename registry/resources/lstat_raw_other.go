//go:build unix && !(linux && amd64)

package resources

import "syscall"

// lstatRaw is syscall.Lstat (lstat_raw_linux_amd64.go avoids its copy of
// the path).
func lstatRaw(p string, st *syscall.Stat_t) error { return syscall.Lstat(p, st) }
