//go:build linux || darwin

package unixsock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// Dial connects to the Unix socket at path within ctx. An error says
// "dial unix PATH: connect: …" and wraps the errno (syscall.ENOENT,
// syscall.ECONNREFUSED, syscall.EAGAIN when the listener's backlog is
// full), as net's does.
func Dial(ctx context.Context, path string) (Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, dialError(path, err)
	}
	fd, err := socket()
	if err != nil {
		return nil, dialError(path, os.NewSyscallError("socket", err))
	}
	err = syscall.Connect(fd, &syscall.SockaddrUnix{Name: path})
	for errors.Is(err, syscall.EINTR) {
		err = syscall.Connect(fd, &syscall.SockaddrUnix{Name: path})
	}
	// The poller owns fd from here: closing f closes it.
	f := os.NewFile(uintptr(fd), "unix:"+path)
	if derr := f.SetDeadline(time.Time{}); derr != nil {
		// Not in the poller: no deadline would bound a call, and a hook
		// that outlives the client's timeout lets the call run.
		f.Close()
		return nil, dialError(path, derr)
	}
	switch {
	case err == nil:
		return f, nil
	case errors.Is(err, syscall.EINPROGRESS), errors.Is(err, syscall.EALREADY):
		if err := awaitConnect(ctx, f); err != nil {
			f.Close()
			return nil, dialError(path, err)
		}
		return f, nil
	default:
		f.Close()
		return nil, dialError(path, os.NewSyscallError("connect", err))
	}
}

func dialError(path string, err error) error {
	return fmt.Errorf("dial unix %s: %w", path, err)
}

// awaitConnect waits, within ctx, until a connect in progress on f is
// done, and returns how it ended.
func awaitConnect(ctx context.Context, f *os.File) error {
	if d, ok := ctx.Deadline(); ok {
		f.SetWriteDeadline(d)
	}
	stop := context.AfterFunc(ctx, func() { f.SetWriteDeadline(time.Unix(1, 0)) })
	defer stop()
	raw, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var soErr error
	werr := raw.Write(func(fd uintptr) bool {
		n, err := syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_ERROR)
		switch {
		case err != nil:
			soErr = os.NewSyscallError("getsockopt", err)
		case syscall.Errno(n) == syscall.EINPROGRESS || syscall.Errno(n) == syscall.EALREADY:
			return false // not yet: wait until the socket is writable
		case n != 0:
			soErr = os.NewSyscallError("connect", syscall.Errno(n))
		}
		return true
	})
	if werr != nil {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		return werr
	}
	if soErr == nil {
		f.SetWriteDeadline(time.Time{})
	}
	return soErr
}
