package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// install writes the lean hook binary when it sits beside the leasedeck
// executable, falls back to `leasedeck hook` (saying so, with the command
// that installs it) when it does not, and moves the hooks onto it in place
// when it appears; doctor says which the hooks run. Both run the same
// hook: the installed command answers a gate.
func TestInstallWritesTheLeanHook(t *testing.T) {
	w := newWorkspace(t)
	w.serve()
	settings := filepath.Join(w.dir, ".claude", "settings.json")
	alone := filepath.Join(t.TempDir(), "leasedeck")
	if err := os.Link(binary, alone); err != nil {
		t.Fatal(err)
	}

	r := w.run("", "install", "claude-code", "--command-hooks", "--command", alone)
	b, _ := os.ReadFile(settings)
	if r.code != 0 || !strings.Contains(r.stderr, "no leasedeck-hook beside it") || !strings.Contains(r.stderr, "go install") ||
		!strings.Contains(string(b), alone+" hook claude-code --workspace") {
		t.Fatalf("install without a lean binary: exit %d\n%s\n%s", r.code, r.stderr, b)
	}
	if d := w.run("", "doctor"); !strings.Contains(d.stdout, "starts the whole leasedeck binary for every hook") || !strings.Contains(d.stdout, "cmd/leasedeck-hook") {
		t.Errorf("doctor with hooks on the whole binary:\n%s", d.stdout)
	}

	r = w.run("", "install", "claude-code", "--command-hooks", "--command", binary)
	b, _ = os.ReadFile(settings)
	if r.code != 0 || !strings.Contains(r.stderr, "the hooks will run "+hookBinary+"\n") {
		t.Fatalf("install beside the lean binary: exit %d\n%s", r.code, r.stderr)
	}
	if strings.Contains(string(b), alone) || strings.Count(string(b), hookBinary+" hook claude-code --workspace") < 5 {
		t.Fatalf("the hooks were not moved onto the lean binary in place:\n%s", b)
	}
	if d := w.run("", "doctor"); !strings.Contains(d.stdout, "the lean hook binary)") {
		t.Errorf("doctor with hooks on the lean binary:\n%s", d.stdout)
	}

	// The command as installed, run as the client runs it, gates a call.
	if r := w.runExe(hookBinary, w.payload("claude-code", "PreToolUse", nil), "hook", "claude-code", "--workspace", w.dir); r.code != 0 || !strings.Contains(r.stdout, `"permissionDecision":"allow"`) {
		t.Fatalf("the installed lean hook: %+v", r)
	}

	// A plugin client's plugin spawns the lean binary too.
	r = w.run("", "install", "opencode", "--command", binary)
	plugin, _ := os.ReadFile(filepath.Join(w.dir, ".opencode", "plugins", "leasedeck.js"))
	if r.code != 0 || !strings.Contains(string(plugin), hookBinary) {
		t.Fatalf("install opencode: exit %d\n%s\n%s", r.code, r.stderr, plugin)
	}
}

// The agent writes in the workspace: a leasedeck-hook planted in a PATH
// entry inside it is never what the hooks run, while one on PATH outside
// it is taken when install found leasedeck on PATH.
func TestInstallIgnoresAPlantedLeanHook(t *testing.T) {
	w := newWorkspace(t)
	settings := filepath.Join(w.dir, ".claude", "settings.json")
	bin := t.TempDir()
	if err := os.Link(binary, filepath.Join(bin, "leasedeck")); err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(w.dir, "node_modules", ".bin")
	os.MkdirAll(planted, 0o755)
	if err := os.WriteFile(filepath.Join(planted, "leasedeck-hook"), []byte("#!/bin/sh\necho '{}'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := w.env
	w.env = append(append([]string(nil), env...), "PATH="+planted+string(os.PathListSeparator)+bin)
	r := w.run("", "install", "claude-code", "--command-hooks")
	b, _ := os.ReadFile(settings)
	if r.code != 0 || strings.Contains(string(b), planted) || !strings.Contains(string(b), filepath.Join(bin, "leasedeck")+" hook claude-code") {
		t.Fatalf("install with a planted leasedeck-hook on PATH: exit %d\n%s\n%s", r.code, r.stderr, b)
	}

	lean := t.TempDir()
	if err := os.Link(hookBinary, filepath.Join(lean, "leasedeck-hook")); err != nil {
		t.Fatal(err)
	}
	w.env = append(append([]string(nil), env...), "PATH="+bin+string(os.PathListSeparator)+lean)
	r = w.run("", "install", "claude-code", "--command-hooks")
	b, _ = os.ReadFile(settings)
	if r.code != 0 || !strings.Contains(string(b), filepath.Join(lean, "leasedeck-hook")+" hook claude-code --workspace") {
		t.Fatalf("install with leasedeck-hook on PATH: exit %d\n%s\n%s", r.code, r.stderr, b)
	}
}
