//go:build linux

package handshake

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

func TestProcessExitingReadsStateAndFlags(t *testing.T) {
	for _, c := range []struct {
		stat string
		want bool
	}{
		{"42 (leasedeck) S 1 42 42 0 -1 4194560 100 0 0 0", false},
		{"42 (leasedeck) Z 1 42 42 0 -1 4194560 100 0 0 0", true},
		{"42 (leasedeck) X 1 42 42 0 -1 4194560 100 0 0 0", true},
		{"42 (leasedeck) R 1 42 42 0 -1 4194564 100 0 0 0", true}, // PF_EXITING
		{"42 (a) b) (c) S 1 42 42 0 -1 4194560 1", false},         // a name with ") " in it
		{"42 (a) Z) S 1 42 42 0 -1 4194560 1", false},
		{"garbage", false},
		{"42 (x) S 1", false},
	} {
		if got := processExiting(c.stat); got != c.want {
			t.Errorf("%q: %v, want %v", c.stat, got, c.want)
		}
	}
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Fatal(err)
	}
	if processExiting(string(b)) {
		t.Fatalf("this running process is said to be exiting: %s", b)
	}
}

// peerGone tells a peer that closed the connection from a live one that
// is only silent.
func TestPeerGoneTellsAClosedPeerFromASilentOne(t *testing.T) {
	sock := filepath.Join(shortDir(t), "s.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, closeIt := range []bool{true, false} {
		conn, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		srv, err := l.Accept()
		if err != nil {
			t.Fatal(err)
		}
		if closeIt {
			srv.Close()
		}
		if got := peerGone(conn, os.Getpid()); got != closeIt {
			t.Errorf("peer closed %v: gone %v", closeIt, got)
		}
		conn.Close()
		srv.Close()
	}
}

// holdsLock finds the lock in the holder's own descriptors, and says what
// /proc/locks says of it; a process that holds nothing, or a file nobody
// locked, is no holder.
func TestHoldsLockReadsTheHoldersDescriptors(t *testing.T) {
	dir := t.TempDir()
	locked, other := filepath.Join(dir, "registry.lock"), filepath.Join(dir, "other")
	for _, p := range []string{locked, other} {
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if holdsLock(os.Getpid(), locked) {
		t.Fatal("a lock nobody took is held")
	}
	f, err := os.Open(locked)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	if !holdsLock(os.Getpid(), locked) {
		t.Fatal("the lock this process holds is not found")
	}
	if holders, err := LockHolders(locked); err != nil || !slices.Contains(holders, os.Getpid()) {
		t.Fatalf("/proc/locks says %v (%v)", holders, err)
	}
	for _, c := range []struct {
		pid  int
		path string
	}{{os.Getpid(), other}, {os.Getppid(), locked}, {os.Getpid(), filepath.Join(dir, "none")}, {1 << 30, locked}} {
		if holdsLock(c.pid, c.path) {
			t.Errorf("pid %d is said to hold %s", c.pid, c.path)
		}
	}
}

func TestLockHolderReadsALockLine(t *testing.T) {
	for _, c := range []struct {
		line string
		pid  int
		ok   bool
	}{
		{"1: FLOCK  ADVISORY  WRITE 20028 fe:00:9978241 0 EOF", 20028, true},
		{"\t1: FLOCK  ADVISORY  WRITE 20028 fe:00:9978241 0 EOF", 20028, true},
		{"1: -> FLOCK  ADVISORY  WRITE 20029 fe:00:9978241 0 EOF", 0, false},
		{"1: FLOCK  ADVISORY  WRITE 20028 fe:00:19978241 0 EOF", 0, false},
		{"1: FLOCK  ADVISORY  WRITE 20028 fe:01:9978241 0 EOF", 0, false},
		{"1: FLOCK  ADVISORY  WRITE x fe:00:9978241 0 EOF", 0, false},
		{"garbage", 0, false},
	} {
		if pid, ok := lockHolder(c.line, "fe:00:9978241"); pid != c.pid || ok != c.ok {
			t.Errorf("%q: %d %v, want %d %v", c.line, pid, ok, c.pid, c.ok)
		}
	}
}
