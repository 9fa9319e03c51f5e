//go:build linux

package confine

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// The stage is leasedeck re-executed as the first process of the
// confined tree. In a private user, mount and PID namespace it makes the
// plan's binds, drops its capabilities, applies Landlock and then runs
// the command as its child, staying as the namespace's init: when it
// exits, the kernel kills every process left in the namespace, so a
// revoked lease's tree cannot outlive it. Without the namespaces it
// applies Landlock and execs the command in its place.
//
// Protocol: fd 3 carries one JSON stageConfig line, then (once the
// parent has recorded the confinement) one byte to go on; fd 4 is where
// the stage answers "ok" or "error: …" before running the command.
const (
	configFD = 3
	statusFD = 4
)

type stageConfig struct {
	Plan      Plan     `json:"plan"`
	ABI       int      `json:"abi"`
	Ports     []uint16 `json:"ports"`
	Namespace bool     `json:"namespace"`
	MaskDir   string   `json:"mask_dir,omitempty"`
	MaskFile  string   `json:"mask_file,omitempty"`
	Path      string   `json:"path"`
	Argv      []string `json:"argv"`
	Env       []string `json:"env"`
	Dir       string   `json:"dir"`
}

// stageExit is the stage's exit code when confinement could not be set
// up; the parent learns the reason from the status pipe.
const stageExit = 125

// RunStage is the stage's entry point (leasedeck's main calls it when
// os.Args[1] is StageArg). It never returns to a caller that could run
// unconfined: it exits.
func RunStage() {
	runtime.LockOSThread()
	status := os.NewFile(statusFD, "status")
	cfgFile := os.NewFile(configFD, "config")
	fail := func(err error) {
		fmt.Fprintf(status, "error: %v\n", err)
		os.Exit(stageExit)
	}
	if status == nil || cfgFile == nil {
		fmt.Fprintln(os.Stderr, "leasedeck: the confinement stage is started by 'leasedeck run' only")
		os.Exit(2)
	}
	unix.CloseOnExec(statusFD)
	unix.CloseOnExec(configFD)
	r := bufio.NewReader(io.LimitReader(cfgFile, 16<<20))
	line, err := r.ReadBytes('\n')
	if err != nil {
		fail(fmt.Errorf("reading the confinement: %v", err))
	}
	var cfg stageConfig
	if err := json.Unmarshal(line, &cfg); err != nil {
		fail(fmt.Errorf("reading the confinement: %v", err))
	}
	if cfg.Namespace {
		if err := mountBinds(cfg); err != nil {
			fail(err)
		}
		if err := dropCapabilities(); err != nil {
			fail(err)
		}
	}
	if err := restrictThread(cfg.Plan, cfg.ABI, cfg.Ports); err != nil {
		fail(err)
	}
	fmt.Fprintln(status, "ok")
	if b, err := r.ReadByte(); err != nil || b != 'g' {
		os.Exit(stageExit) // the parent did not confirm: run nothing
	}
	status.Close()
	if !cfg.Namespace {
		err := syscall.Exec(cfg.Path, cfg.Argv, cfg.Env)
		fmt.Fprintf(os.Stderr, "leasedeck run: cannot start %s: %v\n", cfg.Argv[0], err)
		os.Exit(127)
	}
	os.Exit(initLoop(cfg))
}

// initLoop runs the command as the namespace's init would: it forwards
// SIGTERM and SIGHUP to every process in the namespace, reaps orphans,
// and ends with the command's exit status once the command has exited.
func initLoop(cfg stageConfig) int {
	sigs := make(chan os.Signal, 8)
	// SIGINT and SIGQUIT reach the command from the terminal directly
	// (same process group); they are caught here only so the stage
	// survives them. Caught, not ignored: an ignored signal would stay
	// ignored in the command.
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGCHLD)
	cmd := exec.Command(cfg.Path)
	cmd.Args, cmd.Env, cmd.Dir = cfg.Argv, cfg.Env, cfg.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "leasedeck run: cannot start %s: %v\n", cfg.Argv[0], err)
		return 127
	}
	main := cmd.Process.Pid
	for sig := range sigs {
		switch sig {
		case syscall.SIGTERM, syscall.SIGHUP:
			syscall.Kill(-1, sig.(syscall.Signal)) // every process in the namespace but this one
		case syscall.SIGCHLD:
			if code, done := reap(main); done {
				syscall.Kill(-1, syscall.SIGKILL)
				return code
			}
		}
	}
	return 0
}

// reap collects every exited child; done is true once main has exited.
func reap(main int) (int, bool) {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return 0, false
		}
		if pid == main {
			return exitCode(ws), true
		}
	}
}

func exitCode(ws syscall.WaitStatus) int {
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// mountBinds makes the mount tree private, then binds each protected path
// read-only onto itself and each hidden path under a read-only mask.
func mountBinds(cfg stageConfig) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("private mount namespace: %w", err)
	}
	for _, b := range cfg.Plan.Binds {
		src := b.Path
		if b.Mask {
			src = cfg.MaskFile
			if b.Dir {
				src = cfg.MaskDir
			}
		}
		if err := unix.Mount(src, b.Path, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("bind %s over %s: %w", src, b.Path, err)
		}
		// A remount inside a user namespace must keep the flags the
		// kernel locked on the original mount (nosuid, nodev, …).
		var st unix.Statfs_t
		if err := unix.Statfs(b.Path, &st); err != nil {
			return fmt.Errorf("statfs %s: %w", b.Path, err)
		}
		flags := uintptr(unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY) | lockedFlags(st.Flags)
		if err := unix.Mount("", b.Path, "", flags, ""); err != nil {
			return fmt.Errorf("read-only remount of %s: %w", b.Path, err)
		}
	}
	return nil
}

func lockedFlags(st int64) uintptr {
	var f uintptr
	for _, m := range []struct {
		st    int64
		mount uintptr
	}{{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV}, {unix.ST_NOEXEC, unix.MS_NOEXEC},
		{unix.ST_NOATIME, unix.MS_NOATIME}, {unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME}} {
		if st&m.st != 0 {
			f |= m.mount
		}
	}
	return f
}

// Securebits (linux/securebits.h): with NOROOT set and locked, uid 0 gains
// no capabilities at exec, so the command runs with none even where the
// user is root (a mask's mode 000 then holds).
const (
	secbitNoRoot             = 1 << 0
	secbitNoRootLocked       = 1 << 1
	secbitNoAmbientRaise     = 1 << 6
	secbitNoAmbientRaiseLock = 1 << 7
)

// dropCapabilities leaves the command no capability in the namespace:
// ambient set cleared, and, where the stage holds CAP_SETPCAP (the user
// is root), the bounding set emptied and root's exec-time capabilities
// switched off.
func dropCapabilities() error {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clearing ambient capabilities: %w", err)
	}
	if os.Geteuid() != 0 {
		return nil // a non-root uid gains nothing at exec once ambient is clear
	}
	for c := 0; c <= 63; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("dropping capability %d: %w", c, err)
		}
	}
	bits := secbitNoRoot | secbitNoRootLocked | secbitNoAmbientRaise | secbitNoAmbientRaiseLock
	if err := unix.Prctl(unix.PR_SET_SECUREBITS, uintptr(bits), 0, 0, 0); err != nil {
		return fmt.Errorf("securebits: %w", err)
	}
	return nil
}
