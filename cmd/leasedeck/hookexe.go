package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
)

// hookProgram is the lean hook binary (cmd/leasedeck-hook): the same words
// as `leasedeck hook`, the same code, a fraction of the start-up, which a
// command hook pays on every tool call.
const hookProgram = "leasedeck-hook"

// hookProgramFile is hookProgram's file name on this OS.
func hookProgramFile() string {
	if runtime.GOOS == "windows" {
		return hookProgram + ".exe"
	}
	return hookProgram
}

// isHookProgram reports whether exe is the lean hook binary.
func isHookProgram(exe string) bool {
	base := filepath.Base(exe)
	return base == hookProgram || base == hookProgram+".exe"
}

// hookExecutable is the program the hooks run for the leasedeck
// executable exe: exe itself when it is the lean hook binary, else the
// lean binary beside it, else (searchPath: exe was found on PATH) the one
// on PATH, else exe (`leasedeck hook`, the whole binary). lean says which.
// A lean binary inside the workspace root is never taken: the agent
// writes there (a leasedeck-hook planted in a PATH entry such as
// node_modules/.bin would run every hook).
func hookExecutable(exe, root string, searchPath bool) (prog string, lean bool) {
	if isHookProgram(exe) {
		return exe, true
	}
	usable := func(p string) bool {
		return isExecutableFile(p) && (root == "" || !within(resolvedPath(p), resolvedPath(root)))
	}
	if beside := filepath.Join(filepath.Dir(exe), hookProgramFile()); usable(beside) {
		return beside, true
	}
	if searchPath {
		// LookPath refuses a match in a relative PATH entry (ErrDot).
		if p, err := exec.LookPath(hookProgram); err == nil && filepath.IsAbs(p) && usable(p) {
			return p, true
		}
	}
	return exe, false
}

func isExecutableFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && (runtime.GOOS == "windows" || st.Mode().Perm()&0o111 != 0)
}

// hookInstallLine is the command that installs the lean hook binary: the
// module's own at this binary's version, or from the source tree for a
// development build.
func hookInstallLine() string {
	info, ok := debug.ReadBuildInfo()
	if !ok || info.Main.Path == "" || info.Main.Version == "" || info.Main.Version == "(devel)" {
		return "go install ./cmd/" + hookProgram + " (in leasedeck's source tree, beside ./cmd/leasedeck)"
	}
	return "go install " + strings.TrimSuffix(info.Main.Path, "/") + "/cmd/" + hookProgram + "@" + info.Main.Version
}

// installExecutable is the program install writes into the hooks: the
// lean hook binary when there is one beside the leasedeck executable
// (--command, else leasedeck on PATH, else this binary), else that
// executable's `hook`; leasedeckExe is the executable itself, whose
// older hook lines install replaces. A `go run` build is refused.
func installExecutable(command, client, root string, e *env) (leasedeckExe, exe string, ok bool) {
	leasedeckExe, fromPath := command, false
	if leasedeckExe == "" {
		leasedeckExe, fromPath = defaultExecutableFrom()
	}
	exe, lean := hookExecutable(leasedeckExe, root, fromPath)
	if inGoBuildCache(exe) {
		// A `go run` binary is deleted after the run: hooks naming it would
		// fail later and leave the client ungoverned.
		e.errorf("install: %s is a temporary 'go run' build; the hooks need a binary that stays. Run\n  go install %s\nand then 'leasedeck install %s', or pass --command PATH", exe, mainPackage(), client)
		return "", "", false
	}
	if lean {
		fmt.Fprintf(e.stderr, "the hooks will run %s\n", exe)
	} else {
		fmt.Fprintf(e.stderr, "the hooks will run %s hook: no %s beside it, so every hook pays the whole binary's start-up; install it with\n  %s\nand run 'leasedeck install %s' again\n", exe, hookProgram, hookInstallLine(), client)
	}
	return leasedeckExe, exe, true
}
