//go:build !linux

package unixsock

import "context"

// DialBlocking is Dial on this OS.
func DialBlocking(ctx context.Context, path string) (Conn, error) { return Dial(ctx, path) }
