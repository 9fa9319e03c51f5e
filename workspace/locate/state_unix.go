//go:build unix

package locate

import (
	"fmt"
	"os"
	"syscall"
)

// checkPrivateDir makes d 0700 and checks that this user owns it: a state
// directory someone else owns could have been prepared for us.
func checkPrivateDir(d string) error {
	st, err := os.Lstat(d)
	if err != nil {
		return fmt.Errorf("state directory: %w", err)
	}
	if !st.IsDir() {
		return fmt.Errorf("state directory %s is not a directory", d)
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Geteuid() {
		return fmt.Errorf("state directory %s belongs to uid %d, not to this user (%d)", d, sys.Uid, os.Geteuid())
	}
	if st.Mode().Perm() != 0o700 {
		if err := os.Chmod(d, 0o700); err != nil {
			return fmt.Errorf("state directory: %w", err)
		}
	}
	return nil
}
