// Package durable writes files so that they survive a crash: the one place
// leasedeck says "durably", so every caller gets the same steps in the same
// order.
package durable

import (
	"fmt"
	"os"
	"path/filepath"
)

// WriteFile replaces path with data, atomically and durably: the bytes go
// to a temporary file in the same directory, which is fsync'd, given mode,
// renamed over path, and then the directory itself is fsync'd — without
// that last step the rename can be lost in a crash, and with it the file.
// A reader sees either the old file or the new one, never a mix.
func WriteFile(path string, data []byte, mode os.FileMode) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	return SyncDir(dir)
}

// SyncDir makes the entries of a directory durable: a file created,
// renamed or removed in it is only certain to stay so once its directory
// has been fsync'd.
func SyncDir(dir string) error {
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("syncing directory %s: %w", dir, err)
	}
	return nil
}
