//go:build leasedeck_faultinject

package journal

import (
	"os"
	"syscall"
)

// EnvFsyncFault names a file whose existence makes every fsync of the
// journal fail with EIO, as a failing disk's would. It exists only in a
// binary built with -tags leasedeck_faultinject, which the chaos test
// builds; no shipped binary reads it.
const EnvFsyncFault = "LEASEDECK_FAULT_FSYNC_EIO"

func init() {
	trigger := os.Getenv(EnvFsyncFault)
	if trigger == "" {
		return
	}
	syncFault = func(name string) error {
		if _, err := os.Stat(trigger); err == nil {
			return &os.PathError{Op: "fdatasync", Path: name, Err: syscall.EIO}
		}
		return nil
	}
}
