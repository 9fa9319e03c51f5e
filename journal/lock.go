package journal

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gofrs/flock"
)

// LockedError is returned by Open when another writer holds the journal.
type LockedError struct {
	Path string // the lock file
	PID  int    // the holder's pid as it recorded it, 0 if unknown
}

func (e *LockedError) Error() string {
	if e.PID > 0 {
		return fmt.Sprintf("journal is locked by pid %d (lock file %s)", e.PID, e.Path)
	}
	return fmt.Sprintf("journal is locked by another process (lock file %s)", e.Path)
}

// writerLock is an exclusive flock(2)-style lock whose file names its
// holder. The kernel drops the lock when the holder dies, however it dies,
// so a crashed writer never needs cleaning up after; the pid in the file is
// only a courtesy for the error message of the next writer.
type writerLock struct {
	path string
	fl   *flock.Flock
}

func acquireLock(path string) (*writerLock, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("journal: creating the lock's directory: %w", err)
	}
	fl := flock.New(path, flock.SetFlag(os.O_CREATE|os.O_RDWR), flock.SetPermissions(0o600))
	ok, err := fl.TryLock()
	if err != nil {
		return nil, fmt.Errorf("journal: locking %s: %w", path, err)
	}
	if !ok {
		return nil, &LockedError{Path: path, PID: readPID(path)}
	}
	// Written over the old content and then cut to length, so that a
	// reader never sees an empty file while the lock is held.
	if f, err := os.OpenFile(path, os.O_WRONLY, 0o600); err == nil {
		pid := strconv.Itoa(os.Getpid()) + "\n"
		if _, err := f.WriteAt([]byte(pid), 0); err == nil {
			f.Truncate(int64(len(pid)))
		}
		f.Close()
	}
	return &writerLock{path: path, fl: fl}, nil
}

func (l *writerLock) release() error {
	if l == nil {
		return nil
	}
	// Clear the pid first: a stale pid would send the next writer's user
	// after the wrong process.
	os.Truncate(l.path, 0)
	return l.fl.Unlock()
}

func readPID(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}
