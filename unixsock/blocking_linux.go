//go:build linux

package unixsock

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"syscall"
	"time"
)

// DialBlocking connects to the Unix socket at path with a blocking
// descriptor the runtime's poller never sees: a read or a write blocks
// the calling thread in the kernel until the peer answers or the
// deadline, which is the socket's own timeout (SO_RCVTIMEO, SO_SNDTIMEO),
// passes. It is for a process that does one exchange at a time and waits
// for each answer (a hook): every wait is then one sleep in the kernel,
// woken by the peer's write, with no poller set-up and no hand-off
// between the runtime's threads. Unlike Dial's connection, a deadline
// set while a read is blocked bounds only the reads after it (Close ends
// it at once), and only ctx's deadline, not its cancellation, bounds the
// connect.
func DialBlocking(ctx context.Context, path string) (Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, dialError(path, err)
	}
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, dialError(path, os.NewSyscallError("socket", err))
	}
	if d, ok := ctx.Deadline(); ok {
		// A listener whose backlog is full keeps a blocking connect
		// waiting: the send timeout bounds it.
		if err := setTimeout(fd, syscall.SO_SNDTIMEO, d); err != nil {
			syscall.Close(fd)
			return nil, dialError(path, err)
		}
	}
	err = syscall.Connect(fd, &syscall.SockaddrUnix{Name: path})
	for errors.Is(err, syscall.EINTR) {
		err = syscall.Connect(fd, &syscall.SockaddrUnix{Name: path})
		if errors.Is(err, syscall.EISCONN) {
			err = nil // the interrupted connect went through
		}
	}
	if err != nil {
		// EAGAIN: the listener's backlog stayed full until the deadline.
		syscall.Close(fd)
		return nil, dialError(path, os.NewSyscallError("connect", err))
	}
	return &blockingConn{fd: fd}, nil
}

// blockingConn is DialBlocking's connection. Close shuts the socket down
// first, which ends a read or write blocked in another goroutine, and
// releases the descriptor only once none is under way (so a number the
// kernel hands out again is never read by mistake).
type blockingConn struct {
	fd int

	mu       sync.Mutex
	rd, wd   time.Time // deadlines (zero: none)
	inFlight int       // reads and writes under way
	closed   bool
	released bool
}

var errClosed = errors.New("use of closed Unix socket")

// Read reads what the peer has sent, waiting in the kernel for it until
// the read deadline (os.ErrDeadlineExceeded); io.EOF once the peer has
// closed its end.
func (c *blockingConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		if err := c.arm(syscall.SO_RCVTIMEO, &c.rd); err != nil {
			return 0, err
		}
		n, err := syscall.Read(c.fd, p)
		c.done()
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EAGAIN):
			return 0, os.ErrDeadlineExceeded
		case err != nil:
			return 0, os.NewSyscallError("read", err)
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// Write writes all of p unless the deadline passes or the socket fails.
func (c *blockingConn) Write(p []byte) (int, error) {
	written := 0
	for written < len(p) {
		if err := c.arm(syscall.SO_SNDTIMEO, &c.wd); err != nil {
			return written, err
		}
		n, err := syscall.Write(c.fd, p[written:])
		c.done()
		if n > 0 {
			written += n
		}
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EAGAIN):
			return written, os.ErrDeadlineExceeded
		case err != nil:
			return written, os.NewSyscallError("write", err)
		}
	}
	return written, nil
}

// arm sets the socket's timeout for the next call to what is left of the
// deadline at *d (no timeout for no deadline; os.ErrDeadlineExceeded when
// it has passed) and counts the call as under way: done ends it.
func (c *blockingConn) arm(opt int, d *time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errClosed
	}
	if err := setTimeout(c.fd, opt, *d); err != nil {
		return err
	}
	c.inFlight++
	return nil
}

// setTimeout sets the socket timeout opt to what is left until deadline:
// none for the zero time, os.ErrDeadlineExceeded once it has passed.
func setTimeout(fd, opt int, deadline time.Time) error {
	var tv syscall.Timeval // zero: block without a timeout
	if !deadline.IsZero() {
		left := time.Until(deadline)
		if left < time.Microsecond {
			return os.ErrDeadlineExceeded
		}
		tv = syscall.NsecToTimeval(left.Nanoseconds())
	}
	if err := syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, opt, &tv); err != nil {
		return os.NewSyscallError("setsockopt", err)
	}
	return nil
}

// done ends a call arm began, releasing the descriptor if the
// connection was closed meanwhile and this was the last call.
func (c *blockingConn) done() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inFlight--
	c.releaseIfIdle()
}

func (c *blockingConn) releaseIfIdle() {
	if c.closed && c.inFlight == 0 && !c.released {
		c.released = true
		syscall.Close(c.fd)
	}
}

func (c *blockingConn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	c.rd, c.wd = t, t
	c.mu.Unlock()
	return nil
}

func (c *blockingConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	c.rd = t
	c.mu.Unlock()
	return nil
}

func (c *blockingConn) SetWriteDeadline(t time.Time) error {
	c.mu.Lock()
	c.wd = t
	c.mu.Unlock()
	return nil
}

func (c *blockingConn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errClosed
	}
	c.closed = true
	syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
	c.releaseIfIdle()
	return nil
}

// SyscallConn lets the handshake ask the kernel who the peer is.
func (c *blockingConn) SyscallConn() (syscall.RawConn, error) { return rawConn{c}, nil }

type rawConn struct{ c *blockingConn }

func (r rawConn) Control(f func(fd uintptr)) error {
	r.c.mu.Lock()
	defer r.c.mu.Unlock()
	if r.c.closed {
		return errClosed
	}
	f(uintptr(r.c.fd))
	return nil
}

// Read and Write run f once on the blocking descriptor (which is ready
// whenever the call in f returns); a false from f is an error.
func (r rawConn) Read(f func(fd uintptr) bool) error  { return r.once(f) }
func (r rawConn) Write(f func(fd uintptr) bool) error { return r.once(f) }

func (r rawConn) once(f func(fd uintptr) bool) error {
	var done bool
	if err := r.Control(func(fd uintptr) { done = f(fd) }); err != nil {
		return err
	}
	if !done {
		return errors.New("a blocking socket has no readiness to wait for")
	}
	return nil
}
