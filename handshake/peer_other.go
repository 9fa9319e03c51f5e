//go:build !linux && !darwin

package handshake

import (
	"errors"

	"github.com/leasedeck/leasedeck/unixsock"
)

// checkPeer cannot ask this OS who is at the other end of a socket: the
// challenge alone tells the registry from a squatter here.
func checkPeer(unixsock.Conn, string) (int, error) { return 0, nil }

// peerPID cannot be had on this OS.
func peerPID(unixsock.Conn) (int, error) {
	return 0, &SquatterError{Why: "not on this OS: the kernel cannot be asked who is at the other end of the socket"}
}

// LockHolders is not available on this OS.
func LockHolders(string) ([]int, error) {
	return nil, errors.New("not on this OS: lock holders are listed on Linux only")
}
