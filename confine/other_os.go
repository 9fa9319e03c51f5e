//go:build !linux

package confine

import (
	"fmt"
	"os"
)

// ABI answers that this OS has no Landlock.
func ABI() (int, error) { return 0, ErrUnsupported }

// RunStage exists only so that leasedeck's main can dispatch to it on
// every OS; the stage is only ever started on Linux.
func RunStage() {
	fmt.Fprintln(os.Stderr, "leasedeck:", ErrUnsupported)
	os.Exit(2)
}
