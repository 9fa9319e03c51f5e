package main

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// forbidden are packages the hook's start-up must not pay for: net and
// os/user make a cgo build link dynamically (the loader and libc cost
// about a millisecond per hook), the shell parser, the terminal UI and the
// registry's internals are large and run work at start-up. A hook links
// the bridge, the wire client and the handshake; nothing else of the
// registry.
func forbidden(pkg string) bool {
	switch {
	case pkg == "net", pkg == "os/user", pkg == "runtime/cgo", pkg == "plugin":
		return true
	case strings.HasPrefix(pkg, "mvdan.cc/sh"), strings.Contains(pkg, "charm"), strings.HasPrefix(pkg, "github.com/muesli"):
		return true
	case strings.HasPrefix(pkg, "github.com/leasedeck/leasedeck/tui"), strings.HasPrefix(pkg, "github.com/leasedeck/leasedeck/journal"):
		return true
	case strings.HasPrefix(pkg, "github.com/leasedeck/leasedeck/registry"):
		return pkg != "github.com/leasedeck/leasedeck/registry/wire"
	case pkg == "github.com/leasedeck/leasedeck/workspace", pkg == "github.com/leasedeck/leasedeck/bridge/setup":
		return true
	}
	return false
}

// The hook binary's dependency graph holds none of the forbidden
// packages, on every OS it is built for (Windows dials with net: it has
// no other way to a Unix socket, and no dynamic-loader cost to avoid).
func TestHookDependenciesStayLean(t *testing.T) {
	for _, goos := range []string{"linux", "darwin", "windows"} {
		cmd := exec.Command("go", "list", "-deps", ".")
		cmd.Env = append(os.Environ(), "GOOS="+goos, "CGO_ENABLED=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go list (%s): %v\n%s", goos, err, out)
		}
		deps := strings.Fields(string(out))
		if len(deps) < 20 {
			t.Fatalf("go list (%s) listed only %d packages: %s", goos, len(deps), out)
		}
		for _, d := range deps {
			if forbidden(d) && !(goos == "windows" && d == "net") {
				t.Errorf("%s: the hook binary imports %s (go list -deps ./cmd/leasedeck-hook shows why: go mod why -m, or go list -f '{{.ImportPath}} {{.Imports}}' -deps)", goos, d)
			}
		}
	}
}

// Built the way `go install` builds it (cgo on, the default), the hook
// binary is static on Linux: no program interpreter to load before Go's
// runtime starts.
func TestHookBinaryIsStatic(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("not on this OS: the check reads an ELF program header")
	}
	exe := filepath.Join(t.TempDir(), "leasedeck-hook")
	cmd := exec.Command("go", "build", "-o", exe, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Fatalf("%s has a program interpreter (PT_INTERP): it is linked dynamically", exe)
		}
	}
}
