package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// install from a `go run` build (a binary inside Go's build cache, removed
// after the run) must not write that path into the client's hooks.
func TestInstallRefusesGoRunBinary(t *testing.T) {
	w := newWorkspace(t)
	tmp := filepath.Join(t.TempDir(), "go-build2718", "b001", "exe")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	gorun := filepath.Join(tmp, "leasedeck")
	if err := os.WriteFile(gorun, data, 0o755); err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(w.dir, ".claude", "settings.json")
	for _, args := range [][]string{{"install", "claude-code"}, {"install", "claude-code", "--command", gorun}} {
		cmd := exec.Command(gorun, args...)
		cmd.Dir = w.dir
		cmd.Env = append(w.env, "PATH="+t.TempDir()) // no leasedeck on PATH
		out, err := cmd.CombinedOutput()
		ee, _ := err.(*exec.ExitError)
		if ee == nil || ee.ExitCode() != exitRefused || !strings.Contains(string(out), "go install github.com/leasedeck/leasedeck/cmd/leasedeck") {
			t.Fatalf("%v from a go run build: %v\n%s", args, err, out)
		}
		if _, err := os.Stat(settings); err == nil {
			t.Fatalf("%v wrote %s", args, settings)
		}
	}
	r := w.run("", "install", "claude-code", "--command", binary)
	if r.code != 0 || !strings.Contains(r.stderr, "the hooks will run "+binary) {
		t.Fatalf("install --command %s: exit %d\n%s", binary, r.code, r.stderr)
	}
}
