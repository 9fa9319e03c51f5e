//go:build linux

package handshake

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// checkPeer asks the kernel who is at the other end of conn
// (SO_PEERCRED) and checks that it is this user's process and the one
// that holds the registry lock. It returns the peer's pid.
func checkPeer(conn net.Conn, lock string) (int, error) {
	pid, err := peerPID(conn)
	if err != nil {
		return 0, err
	}
	holders, err := LockHolders(lock)
	if err != nil {
		return 0, &SquatterError{Why: "cannot tell which process holds the registry lock: " + err.Error()}
	}
	for _, h := range holders {
		if h == pid {
			return pid, nil
		}
	}
	if len(holders) == 0 {
		return 0, &SquatterError{Why: fmt.Sprintf("pid %d answers but no process holds the registry lock %s", pid, lock)}
	}
	return 0, &SquatterError{Why: fmt.Sprintf("pid %d answers but the registry lock is held by pid %v", pid, holders)}
}

// peerPID is the pid of the process at the other end of conn
// (SO_PEERCRED), which must be this user's.
func peerPID(conn net.Conn) (int, error) {
	cred, err := peerCred(conn)
	if err != nil {
		return 0, &SquatterError{Why: "the kernel cannot say who is at the other end of the socket: " + err.Error()}
	}
	if int(cred.Uid) != myUID {
		return 0, &SquatterError{Why: fmt.Sprintf("it runs as uid %d, not as this user (%d)", cred.Uid, myUID)}
	}
	return int(cred.Pid), nil
}

func peerCred(conn net.Conn) (*unix.Ucred, error) {
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return nil, errors.New("not a Unix socket")
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return nil, err
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return nil, err
	}
	return cred, cerr
}

// LockHolders are the pids that hold a lock on the file at path, as the
// kernel lists them in /proc/locks (by device and inode). None: nobody.
func LockHolders(path string) ([]int, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil, nil
		}
		return nil, err
	}
	f, err := os.Open("/proc/locks")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	want := fmt.Sprintf(":%d", st.Ino)
	dev := fmt.Sprintf("%02x:%02x", unix.Major(st.Dev), unix.Minor(st.Dev))
	var out []int
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// "1: FLOCK  ADVISORY  WRITE 20028 fe:00:9978241 0 EOF"; a waiter
		// is listed as "1: -> FLOCK …" and holds nothing.
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[1] == "->" {
			continue
		}
		id := fields[5]
		if !strings.HasSuffix(id, want) || !strings.HasPrefix(id, dev+":") {
			continue
		}
		if pid, err := strconv.Atoi(fields[4]); err == nil {
			out = append(out, pid)
		}
	}
	return out, sc.Err()
}
