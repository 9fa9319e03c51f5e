//go:build !unix

package locate

import (
	"fmt"
	"os"
)

// checkPrivateDir checks that d is a directory. Outside Unix there are no
// owner and mode bits to check: the directory is as private as the user's
// profile is.
func checkPrivateDir(d string) error {
	st, err := os.Lstat(d)
	if err != nil {
		return fmt.Errorf("state directory: %w", err)
	}
	if !st.IsDir() {
		return fmt.Errorf("state directory %s is not a directory", d)
	}
	return nil
}
