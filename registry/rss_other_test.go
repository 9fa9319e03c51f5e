//go:build unix && !linux

package registry_test

import "syscall"

// maxRSSBytes: BSD and macOS report ru_maxrss in bytes.
func maxRSSBytes(ru syscall.Rusage) int64 { return ru.Maxrss }
