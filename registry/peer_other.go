//go:build !linux

package registry

import "net"

// peerPID: the peer's process is not known on this OS (and there are no
// confined runs whose trees it could belong to).
func peerPID(net.Conn) int { return 0 }

func descendsFrom(int, int) bool { return false }
