//go:build linux

package registry

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// shells are the programs a client runs its hook command line through
// (Qwen Code: bash -c; the OpenCode bridge: sh -c): the client is the
// first ancestor of the hook that is none of them.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ash": true, "ksh": true, "busybox": true}

// clientProcess is a client process held by a pidfd.
type clientProcess struct {
	pid int
	fd  int
}

// procStat is what /proc/PID/stat says of a process: its name, parent
// and start time (clock ticks since boot, which a reused pid does not
// share).
type procStat struct {
	comm  string
	ppid  int
	start uint64
}

func readProcStat(pid int) (procStat, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, err
	}
	s := string(b)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return procStat{}, errors.New("unreadable stat")
	}
	f := strings.Fields(s[end+1:])
	// After the name: state(0) ppid(1) … starttime(19).
	if len(f) < 20 {
		return procStat{}, errors.New("short stat")
	}
	ppid, err1 := strconv.Atoi(f[1])
	start, err2 := strconv.ParseUint(f[19], 10, 64)
	if err1 != nil || err2 != nil {
		return procStat{}, errors.New("unreadable stat")
	}
	return procStat{comm: s[open+1 : end], ppid: ppid, start: start}, nil
}

// openClientProcess finds the client above hook pid peer and holds it by
// a pidfd. The start time read before the pidfd was opened must still be
// the process's after: otherwise the pid was reused in between and the
// pidfd holds another process.
func openClientProcess(peer int) (*clientProcess, error) {
	st, err := readProcStat(peer)
	if err != nil {
		return nil, err
	}
	pid := st.ppid
	for hops := 0; ; hops++ {
		if pid <= 1 || pid == os.Getpid() || hops > 16 {
			// Orphaned (reparented to init or a subreaper we cannot tell
			// from a client), or the registry itself: not known.
			return nil, fmt.Errorf("no client process above pid %d", peer)
		}
		if st, err = readProcStat(pid); err != nil {
			return nil, err
		}
		if !shells[st.comm] {
			break
		}
		pid = st.ppid
	}
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return nil, err
	}
	again, err := readProcStat(pid)
	if err != nil || again.start != st.start {
		unix.Close(fd)
		return nil, fmt.Errorf("pid %d changed while it was opened", pid)
	}
	return &clientProcess{pid: pid, fd: fd}, nil
}

// waitExit blocks until the process exits (true) or wake is closed
// (false).
func (p *clientProcess) waitExit(wake *os.File) bool {
	fds := []unix.PollFd{{Fd: int32(p.fd), Events: unix.POLLIN}, {Fd: int32(wake.Fd()), Events: unix.POLLIN}}
	for {
		_, err := unix.Poll(fds, -1)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return false
		}
		if fds[0].Revents != 0 {
			return true
		}
		if fds[1].Revents != 0 {
			return false
		}
	}
}

func (p *clientProcess) close() { unix.Close(p.fd) }
