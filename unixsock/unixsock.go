// Package unixsock dials the registry's Unix socket. On Linux and macOS it
// does so with the system calls themselves and hands the descriptor to
// the runtime's poller (os.NewFile on a non-blocking socket), so reads,
// writes and deadlines behave as with package net — without linking net,
// whose resolver makes every binary that imports it a dynamically linked
// cgo one with the start-up cost of the dynamic loader and libc. That
// cost is most of what a hook process pays to start (see cmd/leasedeck-hook).
// Elsewhere it uses net.
package unixsock

import (
	"io"
	"time"
)

// Conn is a connected stream socket: what the registry's protocol and the
// handshake need of one. A net.Conn is one; so is what Dial returns, which
// also implements syscall.Conn (the handshake asks the kernel who is at
// the other end through it).
type Conn interface {
	io.ReadWriteCloser
	SetDeadline(t time.Time) error
	SetReadDeadline(t time.Time) error
}
