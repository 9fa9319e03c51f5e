//go:build windows

package journal

import "io/fs"

// idOf: Windows has file indexes, but not through fs.FileInfo; the
// running writer still compares files with os.SameFile.
func idOf(fs.FileInfo) (fileID, bool) { return fileID{}, false }
