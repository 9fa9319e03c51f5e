//go:build !linux

package registry

import (
	"errors"
	"os"
)

// clientProcess: only Linux holds a process by a pidfd here.
type clientProcess struct{ pid int }

func openClientProcess(int) (*clientProcess, error) {
	return nil, errors.New("not on this OS: a client process is watched on Linux only")
}

func (*clientProcess) waitExit(*os.File) bool { return false }
func (*clientProcess) close()                 {}
