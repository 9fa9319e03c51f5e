package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// errClientFileRefused marks a client file install and uninstall will not
// rewrite as it stands (exit 3, refused): a symbolic link, or a file made
// read-only.
var errClientFileRefused = errors.New("refused")

// readClientFile reads a client's settings or plugin file that install or
// uninstall is about to rewrite: a regular file within the input limit
// (readSettingsFile), not a symbolic link (the file is replaced by a
// rename, which would put a plain file where the link was, and writing
// through it would write where the link points: the user's dotfiles, or
// wherever a link planted in the workspace names), and not read-only (the
// user said not to change it). A dry run, which writes nothing, reads
// either. A missing file is os.ErrNotExist.
func readClientFile(path string, dry bool) ([]byte, error) {
	st, err := os.Lstat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	}
	switch {
	case dry:
	case st.Mode()&fs.ModeSymlink != 0:
		target, _ := os.Readlink(path)
		return nil, fmt.Errorf("%w: %s is a symbolic link (to %s): leasedeck neither writes through a link nor replaces it; "+
			"put the entries in the file it names by hand (--dry-run prints them), or replace the link with a copy of that file, then run this again",
			errClientFileRefused, path, target)
	case st.Mode().IsRegular() && st.Mode().Perm()&0o200 == 0:
		return nil, fmt.Errorf("%w: %s is read-only (mode %#o): leasedeck does not replace a file you made read-only; make it writable (chmod u+w %s), then run this again",
			errClientFileRefused, path, st.Mode().Perm(), shellWord(path))
	}
	return readSettingsFile(path)
}

// clientFileExit is the exit code for an error of readClientFile.
func clientFileExit(err error) int {
	if errors.Is(err, errClientFileRefused) {
		return exitRefused
	}
	return exitInvalid
}

// backupOf reads the backup install kept beside path. A backup that is
// not a regular file (a link planted beside the file, say) is no backup:
// uninstall then only removes leasedeck's entries.
func backupOf(path string) ([]byte, error) {
	st, err := os.Lstat(path + backupSuffix)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path+backupSuffix)
	}
	return readSettingsFile(path + backupSuffix)
}
