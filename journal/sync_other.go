//go:build !linux

package journal

import "os"

// syncData makes appended bytes durable (os.File.Sync uses F_FULLFSYNC on
// darwin, which plain fsync is not).
func syncData(f *os.File) error { return f.Sync() }
