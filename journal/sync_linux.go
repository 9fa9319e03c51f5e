package journal

import (
	"os"
	"syscall"
)

// syncData makes appended bytes durable. fdatasync suffices for appends
// (the size is metadata the data needs, so it is flushed too) and skips
// the timestamps fsync would also write.
func syncData(f *os.File) error {
	for {
		err := syscall.Fdatasync(int(f.Fd()))
		if err != syscall.EINTR {
			if err != nil {
				return &os.PathError{Op: "fdatasync", Path: f.Name(), Err: err}
			}
			return nil
		}
	}
}
