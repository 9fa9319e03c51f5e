//go:build !linux && !darwin

package unixsock

import (
	"context"
	"net"
)

// Dial connects to the Unix socket at path within ctx (package net: this
// OS has no poller-backed socket descriptors outside it).
func Dial(ctx context.Context, path string) (Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, "unix", path)
}
