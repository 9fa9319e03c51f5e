//go:build linux

package confine

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Command is what to run, confined.
type Command struct {
	Path  string   // resolved executable
	Argv  []string // argv[0] included
	Env   []string
	Dir   string
	Ports []uint16 // TCP ports the tree may connect to (the proxy's)
	ABI   int
}

// Child is a started, confined process tree, held before its command
// runs until Go is called.
type Child struct {
	cmd       *exec.Cmd
	cfgW      *os.File
	Namespace bool
	Plan      Plan
	maskDir   string
	done      chan struct{}
	code      int
	waitErr   error
}

// Start starts the stage. build makes the plan for a namespace (true) or
// without one; when the kernel refuses the namespaces, the plan is built
// again without and the stage started plainly. The command does not run
// until Go.
func Start(c Command, build func(namespace bool) (Plan, error)) (*Child, error) {
	if c.ABI == 0 {
		return nil, errors.New("no Landlock ABI given")
	}
	plan, err := build(true)
	if err != nil {
		return nil, err
	}
	ch, err := start(c, plan, true)
	if err == nil {
		return ch, nil
	}
	plan.Cleanup()
	if !namespaceRefused(err) {
		return nil, err
	}
	if plan, err = build(false); err != nil {
		return nil, err
	}
	return start(c, plan, false)
}

// namespaceRefused: the kernel (or a security module) does not let this
// user create user namespaces.
func namespaceRefused(err error) bool {
	var nsErr *nsError
	return errors.As(err, &nsErr)
}

type nsError struct{ err error }

func (e *nsError) Error() string { return "private namespaces refused: " + e.err.Error() }
func (e *nsError) Unwrap() error { return e.err }

func start(c Command, plan Plan, namespace bool) (*Child, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	ch := &Child{Namespace: namespace, Plan: plan, done: make(chan struct{})}
	cfg := stageConfig{Plan: plan, ABI: c.ABI, Ports: c.Ports, Namespace: namespace,
		Path: c.Path, Argv: c.Argv, Env: c.Env, Dir: c.Dir}
	if namespace && len(plan.Binds) > 0 {
		if ch.maskDir, cfg.MaskDir, cfg.MaskFile, err = makeMasks(); err != nil {
			return nil, err
		}
	}
	cfgR, cfgW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	stR, stW, err := os.Pipe()
	if err != nil {
		cfgR.Close()
		cfgW.Close()
		return nil, err
	}
	cmd := exec.Command(self, StageArg)
	cmd.Env, cmd.Dir = c.Env, c.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.ExtraFiles = []*os.File{cfgR, stW} // fds 3 and 4
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if namespace {
		uid, gid := os.Getuid(), os.Getgid()
		cmd.SysProcAttr.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID
		cmd.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		cmd.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		cmd.SysProcAttr.GidMappingsEnableSetgroups = false
		if uid != 0 {
			cmd.SysProcAttr.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN}
		}
	}
	err = cmd.Start()
	cfgR.Close()
	stW.Close()
	if err != nil {
		cfgW.Close()
		stR.Close()
		ch.removeMasks()
		if namespace && (errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EINVAL) ||
			errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EACCES)) {
			return nil, &nsError{err}
		}
		return nil, fmt.Errorf("starting the confinement stage: %w", err)
	}
	ch.cmd, ch.cfgW = cmd, cfgW
	go ch.wait()
	b, _ := json.Marshal(cfg)
	if _, err := cfgW.Write(append(b, '\n')); err != nil {
		ch.Kill()
		return nil, fmt.Errorf("handing the confinement to the stage: %w", err)
	}
	status, _ := bufio.NewReader(stR).ReadString('\n')
	stR.Close()
	status = strings.TrimSpace(status)
	if status != "ok" {
		<-ch.done
		ch.removeMasks()
		if status == "" {
			status = "the stage ended without a word"
		}
		err := errors.New(strings.TrimPrefix(status, "error: "))
		if namespace && strings.Contains(status, "mount") {
			return nil, &nsError{err}
		}
		return nil, fmt.Errorf("confinement failed: %w", err)
	}
	return ch, nil
}

// Go lets the confined command run.
func (ch *Child) Go() error {
	_, err := ch.cfgW.Write([]byte{'g'})
	ch.cfgW.Close()
	return err
}

// Abandon ends a stage that was never told to go.
func (ch *Child) Abandon() {
	ch.cfgW.Close()
	<-ch.done
	ch.removeMasks()
}

func (ch *Child) wait() {
	err := ch.cmd.Wait()
	ch.code = 0
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			ws := ee.Sys().(syscall.WaitStatus)
			ch.code = exitCode(ws)
		} else {
			ch.waitErr = err
			ch.code = 1
		}
	}
	close(ch.done)
}

// Done is closed when the stage (and, in a namespace, the whole tree) has
// ended.
func (ch *Child) Done() <-chan struct{} { return ch.done }

// ExitCode is the command's exit status (128+signal when killed); valid
// after Done.
func (ch *Child) ExitCode() int { return ch.code }

// Pid is the stage's process id.
func (ch *Child) Pid() int { return ch.cmd.Process.Pid }

// Stop ends the whole tree: SIGTERM to every process in it, then, after
// grace, SIGKILL to what is left. It returns once the tree is gone.
func (ch *Child) Stop(grace time.Duration) {
	if ch.Namespace {
		ch.cmd.Process.Signal(syscall.SIGTERM) // the stage passes it to the whole namespace
	} else {
		ch.signalTree(syscall.SIGTERM)
	}
	select {
	case <-ch.done:
	case <-time.After(grace):
	}
	ch.Kill()
}

// Kill SIGKILLs the tree and waits for the stage. In the PID namespace
// the stage is the namespace's init: when it dies the kernel kills every
// process left in the namespace, and none can leave it.
func (ch *Child) Kill() {
	if ch.Namespace {
		ch.cmd.Process.Kill()
		<-ch.done
		ch.removeMasks()
		return
	}
	for i := 0; i < 50; i++ {
		n := ch.signalTree(syscall.SIGKILL)
		select {
		case <-ch.done:
			if n == 0 {
				ch.removeMasks()
				return
			}
		default:
		}
		if n == 0 {
			break
		}
	}
	<-ch.done
	ch.removeMasks()
}

// Reap ends what the command left behind once it exited (background
// processes of a tree without a PID namespace).
func (ch *Child) Reap() {
	<-ch.done
	ch.Kill()
}

// signalTree signals the stage and every descendant of this process.
func (ch *Child) signalTree(sig syscall.Signal) int { return SignalDescendants(sig) }

// SignalDescendants signals every descendant of this process (run is a
// child subreaper, so orphans of the tree are reparented to it and stay
// findable) and answers how many it signalled.
func SignalDescendants(sig syscall.Signal) int {
	n := 0
	for _, pid := range descendants(os.Getpid()) {
		if syscall.Kill(pid, sig) == nil {
			n++
		}
	}
	return n
}

// BecomeSubreaper makes orphaned descendants reparent to this process
// instead of init, so a tree that double-forks can still be found.
func BecomeSubreaper() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// descendants lists every process whose parent chain reaches root, from
// /proc (pids as this PID namespace sees them).
func descendants(root int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	parent := map[int]int{}
	for _, e := range ents {
		var pid int
		if _, err := fmt.Sscanf(e.Name(), "%d", &pid); err != nil || pid <= 0 {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		var state string
		var ppid int
		if _, err := fmt.Sscanf(s[i+1:], " %s %d", &state, &ppid); err != nil || state == "Z" {
			continue
		}
		parent[pid] = ppid
	}
	var out []int
	for pid := range parent {
		for p, hops := parent[pid], 0; p > 0 && hops < 4096; p, hops = parent[p], hops+1 {
			if p == root {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

// makeMasks creates the mode-000 file and directory that hidden paths are
// covered with, in a directory no rule grants.
func makeMasks() (dir, maskDir, maskFile string, err error) {
	dir, err = os.MkdirTemp("", "leasedeck-mask-")
	if err != nil {
		return "", "", "", err
	}
	maskDir, maskFile = filepath.Join(dir, "d"), filepath.Join(dir, "f")
	if err = os.Mkdir(maskDir, 0); err == nil {
		err = os.WriteFile(maskFile, nil, 0)
	}
	if err == nil {
		err = os.Chmod(maskFile, 0)
	}
	if err != nil {
		os.RemoveAll(dir)
		return "", "", "", err
	}
	return dir, maskDir, maskFile, nil
}

// removeMasks removes the mask directory and the placeholders.
func (ch *Child) removeMasks() {
	ch.Plan.Cleanup()
	ch.Plan.Created = nil
	if ch.maskDir != "" {
		os.Chmod(filepath.Join(ch.maskDir, "d"), 0o700)
		os.RemoveAll(ch.maskDir)
		ch.maskDir = ""
	}
}
