//go:build linux

package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// listenerCheckable: Linux names the process behind a listening socket.
const listenerCheckable = true

// loopbackListener is the pid of the process that holds the socket
// listening on 127.0.0.1:port, found from /proc/net/tcp's inode and the
// processes' descriptors; an error when nothing listens there or no
// process of this user holds it.
func loopbackListener(port int) (int, error) {
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	want := fmt.Sprintf("0100007F:%04X", port)
	inode := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) > 9 && fields[1] == want && fields[3] == "0A" {
			inode = fields[9]
			break
		}
	}
	if inode == "" {
		return 0, fmt.Errorf("nothing listens on 127.0.0.1:%d", port)
	}
	target := "socket:[" + inode + "]"
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		fds, _ := os.ReadDir(filepath.Join("/proc", p.Name(), "fd"))
		for _, fd := range fds {
			if l, err := os.Readlink(filepath.Join("/proc", p.Name(), "fd", fd.Name())); err == nil && l == target {
				return pid, nil
			}
		}
	}
	return 0, fmt.Errorf("127.0.0.1:%d listens, but no process of this user holds the socket", port)
}
