//go:build linux

package handshake

import (
	"net"
	"os"
	"path/filepath"
	"testing"
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
