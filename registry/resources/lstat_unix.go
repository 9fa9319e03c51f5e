//go:build unix

package resources

import (
	"os"
	"syscall"
)

// lstatKind reports whether p is a symbolic link or a directory, with
// lstat(2) straight from the syscall package: os.Lstat would build a
// FileInfo the caller does not use. A path that does not exist (ENOENT or
// ENOTDIR) comes back as the bare errno, which errors.Is matches as the
// *os.PathError would: its callers test the error and never show it, and
// a missing .git is asked about on most git lines.
func lstatKind(p string) (link, dir bool, err error) {
	var st syscall.Stat_t
	for {
		err := lstatRaw(p, &st)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.ENOENT || err == syscall.ENOTDIR:
			return false, false, err
		case err != nil:
			return false, false, &os.PathError{Op: "lstat", Path: shorten(p), Err: err}
		}
		kind := st.Mode & syscall.S_IFMT
		return kind == syscall.S_IFLNK, kind == syscall.S_IFDIR, nil
	}
}

// lstatEntry is lstatKind for the resolver: a path that does not exist
// (ENOENT, or ENOTDIR for a component that is not a directory, as
// isMissing decides it) is missing, without an error built to say so.
func lstatEntry(p string) (link, dir, missing bool, err error) {
	var st syscall.Stat_t
	for {
		err := lstatRaw(p, &st)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.ENOENT || err == syscall.ENOTDIR:
			return false, false, true, nil
		case err != nil:
			return false, false, false, &os.PathError{Op: "lstat", Path: shorten(p), Err: err}
		}
		kind := st.Mode & syscall.S_IFMT
		return kind == syscall.S_IFLNK, kind == syscall.S_IFDIR, false, nil
	}
}

// sameFile reports whether both paths exist (links followed) and are one
// file; b is looked at only when a exists.
func sameFile(a, b string) bool {
	var sa, sb syscall.Stat_t
	if statRetry(a, &sa) != nil || statRetry(b, &sb) != nil {
		return false
	}
	return sa.Dev == sb.Dev && sa.Ino == sb.Ino
}

func statRetry(p string, st *syscall.Stat_t) error {
	for {
		if err := syscall.Stat(p, st); err != syscall.EINTR {
			return err
		}
	}
}

// HardLinks is the number of names the regular file at p has (its link
// count), or 0 when p is missing, not a regular file, or cannot be read.
// The last component is not followed: a write through a symbolic link is
// judged where the link leads.
func HardLinks(p string) int {
	var st syscall.Stat_t
	for {
		err := syscall.Lstat(p, &st)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
			return 0
		}
		return int(st.Nlink)
	}
}
