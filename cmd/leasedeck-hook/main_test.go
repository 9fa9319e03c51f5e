package main

import (
	"debug/elf"
	"go/ast"
	"go/parser"
	"go/token"
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

// No package the hook links compiles a regular expression when the
// program starts (a package-level regexp.MustCompile, or one in an init
// function): every hook process would pay for it. They compile on first
// use (sync.OnceValue), by the hook that needs one.
func TestHookCompilesNoRegexpAtStart(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{join .GoFiles \" \"}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 3 || !strings.HasPrefix(f[0], "github.com/leasedeck/leasedeck/") {
			continue
		}
		for _, name := range strings.Fields(f[2]) {
			checked++
			for _, at := range startCompiles(t, filepath.Join(f[1], name)) {
				t.Errorf("%s: a regular expression compiled when the program starts (make it lazy: sync.OnceValue)", at)
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d files checked", checked)
	}
}

// startCompiles lists the regexp compilations in a file's package-level
// variables and init functions.
func startCompiles(t *testing.T, path string) []string {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	look := func(n ast.Node) {
		ast.Inspect(n, func(n ast.Node) bool {
			if _, ok := n.(*ast.FuncLit); ok {
				return false // runs when called, not at start
			}
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, isIdent := sel.X.(*ast.Ident); isIdent && x.Name == "regexp" && strings.Contains(sel.Sel.Name, "Compile") {
				found = append(found, fset.Position(call.Pos()).String())
			}
			return true
		})
	}
	for _, d := range file.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Tok == token.VAR {
				look(d)
			}
		case *ast.FuncDecl:
			if d.Name.Name == "init" && d.Recv == nil {
				look(d.Body)
			}
		}
	}
	return found
}
