//go:build linux

package confine

import (
	"errors"
	"fmt"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// MinABI is the oldest Landlock ABI run accepts: 4 is the first with TCP
// connect rules, without which the egress proxy could be bypassed.
const MinABI = 4

// maxConfigABI is the newest ABI whose rules run asks for. Later ABIs
// restrict more (pathname Unix sockets at 9, UDP at 10) and need rules
// this code has not been tested with; asking for 8 on a newer kernel
// keeps behaviour the same as on the kernels it was tested on.
const maxConfigABI = 8

// ABI answers the running kernel's Landlock ABI version, or why there is
// none (not built in, disabled at boot).
func ABI() (int, error) {
	v, err := ll.LandlockGetABIVersion()
	if err != nil {
		return 0, fmt.Errorf("the kernel has no usable Landlock (%v); it needs Linux 5.13 or later with landlock in the lsm= list", err)
	}
	if v < 1 {
		return 0, errors.New("the kernel reports no Landlock support")
	}
	return v, nil
}

// CheckABI refuses a kernel too old to hold the network part.
func CheckABI(abi int) error {
	if abi < MinABI {
		return fmt.Errorf("the kernel's Landlock ABI is %d; TCP connect rules need ABI %d (Linux 6.7 or later)", abi, MinABI)
	}
	return nil
}

// configFor is the exact Landlock configuration for abi (never best
// effort: a right that cannot be restricted is refused, not dropped).
func configFor(abi int) (landlock.Config, error) {
	if err := CheckABI(abi); err != nil {
		return landlock.Config{}, err
	}
	if abi > maxConfigABI {
		abi = maxConfigABI
	}
	return []landlock.Config{landlock.V4, landlock.V5, landlock.V6, landlock.V7, landlock.V8}[abi-MinABI], nil
}

const (
	fileRights = ll.AccessFSExecute | ll.AccessFSWriteFile | ll.AccessFSReadFile | ll.AccessFSTruncate | ll.AccessFSIoctlDev
	writeRight = ll.AccessFSWriteFile | ll.AccessFSTruncate | ll.AccessFSMakeReg | ll.AccessFSMakeDir |
		ll.AccessFSMakeSym | ll.AccessFSMakeSock | ll.AccessFSMakeFifo | ll.AccessFSRemoveFile |
		ll.AccessFSRemoveDir | ll.AccessFSRefer
)

// rights maps an Access class onto Landlock rights.
func rights(a Access, file bool) landlock.AccessFSSet {
	var r landlock.AccessFSSet
	if a&Read != 0 {
		r |= ll.AccessFSReadFile | ll.AccessFSReadDir
	}
	if a&listOnly != 0 {
		r |= ll.AccessFSReadDir
	}
	if a&Write != 0 {
		r |= writeRight
	}
	if a&Exec != 0 {
		r |= ll.AccessFSExecute
	}
	if a&Dev != 0 {
		r |= ll.AccessFSReadFile | ll.AccessFSWriteFile | ll.AccessFSTruncate | ll.AccessFSIoctlDev
	}
	if file {
		r &= fileRights
	}
	return r
}

// restrictThread applies the plan to the calling OS thread, which the
// caller has locked and from which it then forks or execs the command
// (a Landlock domain, like no_new_privs, belongs to a thread and is
// inherited by what it starts): the plan's rules for the file system, and
// TCP connect only to the given ports (TCP bind to none).
//
// One thread, not all of them: go-landlock's all-threads path (libpsx on
// kernels before ABI 8) finds the process's threads in /proc/<pid>/task,
// which inside a new PID namespace names another process, and never
// returns.
func restrictThread(p Plan, abi int, connectPorts []uint16) error {
	cfg, err := configFor(abi)
	if err != nil {
		return err
	}
	handled := cfg.HandledAccessFS
	rules := make([]landlock.Rule, 0, len(p.Rules)+len(connectPorts))
	for _, r := range p.Rules {
		acc := rights(r.Access, r.File) & handled
		if acc == 0 {
			continue
		}
		rules = append(rules, landlock.PathAccess(acc, r.Path).IgnoreIfMissing())
	}
	for _, port := range connectPorts {
		rules = append(rules, landlock.ConnectTCP(port))
	}
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	if fd < 0 {
		return errors.New("landlock: the kernel took no ruleset")
	}
	defer unix.Close(fd)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("landlock_restrict_self: %w", err)
	}
	return nil
}
