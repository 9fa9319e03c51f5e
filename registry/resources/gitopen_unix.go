//go:build unix

package resources

import (
	"os"
	"syscall"
)

// openFileNoBlock opens p for reading without waiting: a FIFO planted
// where git keeps a file (commondir, a .git file) must not stall the gate.
func openFileNoBlock(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
}
