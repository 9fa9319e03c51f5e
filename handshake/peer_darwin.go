//go:build darwin

package handshake

import (
	"errors"
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/leasedeck/leasedeck/unixsock"
)

// checkPeer asks the kernel who is at the other end of conn
// (LOCAL_PEERCRED, LOCAL_PEERPID) and checks that it is this user's
// process. macOS does not say which process holds a flock, so the lock
// holder is not checked here: the challenge carries the proof.
func checkPeer(conn unixsock.Conn, _ string) (int, error) { return peerPID(conn) }

// peerPID is the pid of the process at the other end of conn, which must
// be this user's.
func peerPID(conn unixsock.Conn) (int, error) {
	uc, ok := conn.(syscall.Conn)
	if !ok {
		return 0, &SquatterError{Why: "not a Unix socket"}
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return 0, &SquatterError{Why: err.Error()}
	}
	var pid int
	var cred *unix.Xucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		if cred, cerr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED); cerr == nil {
			pid, cerr = unix.GetsockoptInt(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERPID)
		}
	}); err != nil {
		cerr = err
	}
	if cerr != nil {
		return 0, &SquatterError{Why: "the kernel cannot say who is at the other end of the socket: " + cerr.Error()}
	}
	if int(cred.Uid) != myUID {
		return 0, &SquatterError{Why: fmt.Sprintf("it runs as uid %d, not as this user (%d)", cred.Uid, myUID)}
	}
	return pid, nil
}

// LockHolders is not available on macOS.
func LockHolders(string) ([]int, error) {
	return nil, errors.New("not on this OS: macOS does not list lock holders")
}
