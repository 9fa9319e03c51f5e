package unixsock

import (
	"bufio"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

type dialFunc func(ctx context.Context, path string) (Conn, error)

// forEachDial runs a test with each way of dialling: through the poller,
// and blocking.
func forEachDial(t *testing.T, test func(t *testing.T, dial dialFunc)) {
	t.Run("poller", func(t *testing.T) { test(t, Dial) })
	t.Run("blocking", func(t *testing.T) { test(t, DialBlocking) })
}

func listen(t *testing.T) (string, net.Listener) {
	t.Helper()
	dir, err := os.MkdirTemp("", "us")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "s.sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return path, l
}

// A line goes out and its echo comes back, as over net.
func TestDialRoundTrip(t *testing.T) {
	forEachDial(t, func(t *testing.T, dial dialFunc) {
		path, l := listen(t)
		go func() {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close()
			line, _ := bufio.NewReader(c).ReadString('\n')
			c.Write([]byte("echo " + line))
		}()
		c, err := dial(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := c.Write([]byte("hello\n")); err != nil {
			t.Fatal(err)
		}
		got, err := bufio.NewReader(c).ReadString('\n')
		if err != nil || got != "echo hello\n" {
			t.Fatalf("got %q, %v", got, err)
		}
	})
}

// A read deadline ends a read the peer never answers with the same error
// net gives, so the protocol client can tell a timeout from a lost
// connection.
func TestDialDeadline(t *testing.T) {
	forEachDial(t, func(t *testing.T, dial dialFunc) {
		path, l := listen(t)
		held := make(chan net.Conn, 1)
		go func() {
			c, err := l.Accept()
			if err == nil {
				held <- c
			}
		}()
		c, err := dial(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(30 * time.Millisecond))
		var b [1]byte
		_, err = c.Read(b[:])
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("read past the deadline: %v, want os.ErrDeadlineExceeded", err)
		}
		(<-held).Close()
	})
}

// A closed peer reads as end of file.
func TestDialPeerClosed(t *testing.T) {
	forEachDial(t, func(t *testing.T, dial dialFunc) {
		path, l := listen(t)
		go func() {
			if c, err := l.Accept(); err == nil {
				c.Close()
			}
		}()
		c, err := dial(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		var b [1]byte
		if n, err := c.Read(b[:]); n != 0 || err == nil {
			t.Fatalf("read from a closed peer: %d, %v", n, err)
		}
	})
}

// Nothing there, or nothing listening: the errno, wrapped.
func TestDialErrors(t *testing.T) {
	forEachDial(t, func(t *testing.T, dial dialFunc) {
		dir := t.TempDir()
		if _, err := dial(context.Background(), filepath.Join(dir, "none.sock")); !errors.Is(err, syscall.ENOENT) && runtime.GOOS != "windows" {
			t.Fatalf("no socket: %v, want ENOENT", err)
		}
		path, l := listen(t)
		l.(*net.UnixListener).SetUnlinkOnClose(false)
		l.Close()
		if _, err := dial(context.Background(), path); !errors.Is(err, syscall.ECONNREFUSED) && runtime.GOOS != "windows" {
			t.Fatalf("no listener: %v, want ECONNREFUSED", err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := dial(ctx, path); !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled: %v", err)
		}
	})
}

// What Dial returns lets the kernel be asked about the peer.
func TestDialSyscallConn(t *testing.T) {
	forEachDial(t, func(t *testing.T, dial dialFunc) {
		if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
			t.Skip("not on this OS")
		}
		path, l := listen(t)
		go func() {
			if c, err := l.Accept(); err == nil {
				defer c.Close()
				c.Read(make([]byte, 1))
			}
		}()
		c, err := dial(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, ok := c.(syscall.Conn); !ok {
			t.Fatalf("%T is not a syscall.Conn", c)
		}
	})
}
