package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/leasedeck/leasedeck/workspace"
)

// serveInBackground starts `leasedeck serve` for the workspace as a
// process of its own (its own session, so closing the terminal does not
// end it), logging to serve.log in the workspace's state directory, and
// waits until it answers on the socket. The cockpit calls it after its
// own registry has let the workspace go, when the user quit asking for
// governance to go on.
func serveInBackground(w workspace.Workspace) (pid int, logPath string, err error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, "", err
	}
	logPath = filepath.Join(w.StateDir(), "serve.log")
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return 0, "", err
	}
	defer logf.Close()
	cmd := exec.Command(exe, "serve", "--workspace", w.Root)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = detachedProcess()
	if err := cmd.Start(); err != nil {
		return 0, logPath, err
	}
	pid = cmd.Process.Pid
	cmd.Process.Release()
	// Starting takes a moment (it replays the journal): wait for its
	// socket rather than report a registry that is not there yet.
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if got, up := registryPID(w); up && got == pid {
			return pid, logPath, nil
		}
	}
	return pid, logPath, fmt.Errorf("the background registry (pid %d) did not answer within 15 s; see %s", pid, logPath)
}
