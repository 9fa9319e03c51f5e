//go:build linux

package handshake

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/leasedeck/leasedeck/unixsock"
)

// checkPeer asks the kernel who is at the other end of conn
// (SO_PEERCRED) and checks that it is this user's process and the one
// that holds the registry lock. It returns the peer's pid.
func checkPeer(conn unixsock.Conn, lock string) (int, error) {
	pid, err := peerPID(conn)
	if err != nil {
		return 0, err
	}
	if holdsLock(pid, lock) {
		return pid, nil
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
	if peerGone(conn, pid) {
		// A registry that stopped or crashed after the kernel queued this
		// connection (it released its lock on the way out): nothing is
		// there to believe or to disbelieve, and the caller may dial the
		// one coming back.
		return 0, fmt.Errorf("%w: the registry (pid %d) ended while connecting", ErrNoRegistry, pid)
	}
	if len(holders) == 0 {
		return 0, &SquatterError{Why: fmt.Sprintf("pid %d answers but no process holds the registry lock %s", pid, lock)}
	}
	return 0, &SquatterError{Why: fmt.Sprintf("pid %d answers but the registry lock is held by pid %v", pid, holders)}
}

// peerGone reports whether the process at the other end of conn has
// ended or is ending: the connection was reset or closed before a word
// was said (a live peer has nothing to say before the hello, so the probe
// takes nothing from it), or the kernel says pid is exiting, a zombie or
// gone. A live squatter is none of these.
func peerGone(conn unixsock.Conn, pid int) bool {
	conn.SetReadDeadline(time.Now().Add(peerProbe))
	var b [1]byte
	n, err := conn.Read(b[:])
	conn.SetReadDeadline(time.Time{})
	if n == 0 && err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return errors.Is(err, os.ErrNotExist)
	}
	return processExiting(string(stat))
}

// peerProbe is how long peerGone waits for a reset connection to say so.
const peerProbe = 20 * time.Millisecond

// processExiting reads /proc/PID/stat: state Z (zombie) or X (dead), or
// the PF_EXITING flag, which the kernel sets before it releases the
// process's files and locks.
func processExiting(stat string) bool {
	// "pid (comm) S ppid pgrp session tty tpgid flags …"; comm may hold
	// spaces and parentheses, so fields count from the last ')'.
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return false
	}
	f := strings.Fields(stat[i+1:])
	if len(f) < 7 {
		return false
	}
	if f[0] == "Z" || f[0] == "X" {
		return true
	}
	flags, err := strconv.ParseUint(f[6], 10, 64)
	const pfExiting = 0x4
	return err == nil && flags&pfExiting != 0
}

// peerPID is the pid of the process at the other end of conn
// (SO_PEERCRED), which must be this user's.
func peerPID(conn unixsock.Conn) (int, error) {
	cred, err := peerCred(conn)
	if err != nil {
		return 0, &SquatterError{Why: "the kernel cannot say who is at the other end of the socket: " + err.Error()}
	}
	if int(cred.Uid) != myUID {
		return 0, &SquatterError{Why: fmt.Sprintf("it runs as uid %d, not as this user (%d)", cred.Uid, myUID)}
	}
	return int(cred.Pid), nil
}

func peerCred(conn unixsock.Conn) (*unix.Ucred, error) {
	uc, ok := conn.(syscall.Conn)
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
	file := lockFileID(&st)
	var out []int
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if pid, ok := lockHolder(sc.Text(), file); ok {
			out = append(out, pid)
		}
	}
	return out, sc.Err()
}

// lockFileID is how the kernel names a file in a lock line: its device
// and inode, "fe:00:9978241".
func lockFileID(st *unix.Stat_t) string {
	return fmt.Sprintf("%02x:%02x:%d", unix.Major(st.Dev), unix.Minor(st.Dev), st.Ino)
}

// lockHolder reads one lock line ("1: FLOCK  ADVISORY  WRITE 20028
// fe:00:9978241 0 EOF", as /proc/locks and fdinfo write it): the pid that
// holds the lock, if the lock is on file. A waiter ("1: -> FLOCK …")
// holds nothing.
func lockHolder(line, file string) (int, bool) {
	fields := strings.Fields(line)
	if len(fields) < 6 || fields[1] == "->" || fields[5] != file {
		return 0, false
	}
	pid, err := strconv.Atoi(fields[4])
	return pid, err == nil
}

// holdsLock reports whether process pid holds a lock on the file at
// path, from the process's own descriptors: one that is that file (by
// device and inode) and on which the kernel lists a lock pid holds
// (/proc/PID/fdinfo). It is the same fact /proc/locks gives, at the
// price of the registry's few descriptors; reading /proc/locks takes the
// kernel's file-lock lock for writing, which waits for an RCU grace
// period and holds up every lock operation on the machine (on a loaded
// machine, milliseconds for every hook). False is no answer: the caller
// asks /proc/locks, whose word stands.
func holdsLock(pid int, path string) bool {
	var st unix.Stat_t
	if unix.Stat(path, &st) != nil {
		return false
	}
	file := lockFileID(&st)
	dir := "/proc/" + strconv.Itoa(pid)
	d, err := os.Open(dir + "/fd")
	if err != nil {
		return false
	}
	fds, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return false
	}
	for _, fd := range fds {
		var fst unix.Stat_t
		if unix.Stat(dir+"/fd/"+fd, &fst) != nil || fst.Dev != st.Dev || fst.Ino != st.Ino {
			continue
		}
		info, err := os.ReadFile(dir + "/fdinfo/" + fd)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(info), "\n") {
			if rest, ok := strings.CutPrefix(line, "lock:"); ok {
				if holder, ok := lockHolder(rest, file); ok && holder == pid {
					return true
				}
			}
		}
	}
	return false
}
