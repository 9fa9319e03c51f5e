package unixsock

import (
	"context"
	"errors"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// accepted dials path blocking and returns both ends.
func accepted(t *testing.T) (Conn, net.Conn) {
	t.Helper()
	path, l := listen(t)
	peer := make(chan net.Conn, 1)
	go func() {
		if c, err := l.Accept(); err == nil {
			peer <- c
		}
		close(peer)
	}()
	c, err := DialBlocking(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	p := <-peer
	if p == nil {
		t.Fatal("no connection accepted")
	}
	t.Cleanup(func() { c.Close(); p.Close() })
	return c, p
}

// The kernel names the peer through the blocking connection, as the
// handshake asks it to.
func TestDialBlockingPeerCredentials(t *testing.T) {
	c, _ := accepted(t)
	raw, err := c.(syscall.Conn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) { cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED) }); err != nil || cerr != nil {
		t.Fatal(err, cerr)
	}
	if int(cred.Pid) != os.Getpid() {
		t.Fatalf("peer pid %d, want %d", cred.Pid, os.Getpid())
	}
}

// A deadline already past fails at once; a write the peer never reads
// ends at its deadline.
func TestDialBlockingDeadlines(t *testing.T) {
	c, _ := accepted(t)
	c.SetReadDeadline(time.Now().Add(-time.Second))
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past an expired deadline: %v", err)
	}
	c.SetDeadline(time.Now().Add(50 * time.Millisecond))
	big := make([]byte, 8<<20) // more than the socket buffers hold
	n, err := c.Write(big)
	if !errors.Is(err, os.ErrDeadlineExceeded) || n >= len(big) {
		t.Fatalf("write to a peer that does not read: %d bytes, %v", n, err)
	}
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("%v is not a timeout", err)
	}
}

// Close ends a read blocked in another goroutine, and the connection
// refuses use after it.
func TestDialBlockingCloseEndsABlockedRead(t *testing.T) {
	c, _ := accepted(t)
	ended := make(chan error, 1)
	started := make(chan struct{})
	go func() {
		close(started)
		_, err := c.Read(make([]byte, 1))
		ended <- err
	}()
	<-started
	// The read may not have entered the kernel yet: either way it ends.
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-ended; err == nil {
		t.Fatal("a read on a closed connection returned no error")
	}
	if _, err := c.Write([]byte("x")); err == nil {
		t.Fatal("a write after Close succeeded")
	}
	if err := c.Close(); err == nil {
		t.Fatal("a second Close succeeded")
	}
}
