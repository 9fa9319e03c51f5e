package registry_test

import "syscall"

// maxRSSBytes: Linux reports ru_maxrss in KiB.
func maxRSSBytes(ru syscall.Rusage) int64 { return ru.Maxrss << 10 }
