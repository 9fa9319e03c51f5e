package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPluginFailsClosed runs the plugin `leasedeck install opencode`
// writes under Node (the same JavaScript OpenCode runs) against hooks that
// fail in every way a hook can: only an exit 0 with an allow runs the
// call, and a hook that never answers is killed at the plugin's own
// timeout. pi's extension is the same code in TypeScript; TestPi covers it
// in the real client.
func TestPluginFailsClosed(t *testing.T) {
	requireE2E(t)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH")
	}
	e := newEnv(t)
	dir := filepath.Join(e.root, "hooks")
	os.MkdirAll(dir, 0o755)
	seen := filepath.Join(dir, "payload.json")
	hooks := map[string]string{
		"allow":    `printf '{"decision":"allow"}'`,
		"none":     `printf '{"decision":"none","warnings":["leasedeck: observe mode"]}'`,
		"deny":     `printf '{"decision":"deny","reason":"write to x is outside allow.write_paths"}'`,
		"block":    `printf '{"decision":"block","reason":"lease revoked"}'`,
		"exit3":    `printf '{"decision":"allow"}'; exit 3`,
		"exit2":    `echo 'refused on stderr' >&2; exit 2`,
		"garbage":  `echo 'not json'`,
		"empty":    `true`,
		"nodecide": `printf '{"reason":"no decision"}'`,
		"null":     `printf 'null'`,
		"sleeps":   `exec sleep 30`,
	}
	const driver = `const m = await import("file://" + process.argv.at(-1));
const h = await m.Leasedeck({ directory: "/home/u/proj" });
const t0 = Date.now();
try { await h["tool.execute.before"]({ tool: "bash", sessionID: "ses_1", callID: "call_1" }, { args: { command: "ls" } }); console.log("RAN") }
catch (e) { console.log("REFUSED " + e.message) }
console.log("MS " + (Date.now() - t0));`
	for name, body := range hooks {
		script := filepath.Join(dir, name+".sh")
		os.WriteFile(script, []byte("#!/bin/sh\ncat > "+seen+"\n"+body+"\n"), 0o755)
	}
	hooks["missing"] = ""
	for name := range hooks {
		t.Run(name, func(t *testing.T) {
			exe := filepath.Join(dir, name+".sh")
			r := e.leasedeck("", "install", "opencode", "--dry-run", "--command", exe)
			if r.code != 0 || !strings.Contains(r.stdout, "tool.execute.before") {
				t.Fatalf("install --dry-run: %+v", r)
			}
			// The installed timeout is the hook's (minutes); one second
			// here, to see the plugin kill a hook that never answers.
			src := strings.Replace(r.stdout, "const TIMEOUT_MS = ", "const TIMEOUT_MS = 1000 || ", 1)
			plugin := filepath.Join(dir, name+".mjs")
			os.WriteFile(plugin, []byte(src), 0o644)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			out, err := exec.CommandContext(ctx, node, "--input-type=module", "-e", driver, plugin).CombinedOutput()
			if err != nil {
				t.Fatalf("node: %v\n%s", err, out)
			}
			got := string(out)
			ran := strings.Contains(got, "RAN")
			if want := name == "allow" || name == "none"; ran != want {
				t.Fatalf("hook %s: ran=%v, want %v\n%s", name, ran, want, got)
			}
			for n, reason := range map[string]string{"deny": "outside allow.write_paths", "block": "lease revoked", "exit3": "exited 3",
				"exit2": "refused on stderr", "garbage": "unreadable", "empty": "unreadable", "missing": "could not run",
				"sleeps": "did not answer within 1 s", "nodecide": "no decision", "null": "leasedeck: refused"} {
				if n == name && !strings.Contains(got, reason) {
					t.Errorf("hook %s: the refusal does not say %q:\n%s", name, reason, got)
				}
			}
		})
	}
	b, err := os.ReadFile(seen)
	if err != nil || !contains(string(b), `"hook_event_name":"tool.execute.before","session_id":"ses_1","cwd":"/home/u/proj","tool_name":"bash","tool_use_id":"call_1","tool_input":{"command":"ls"}`) {
		t.Errorf("the payload the hook got: %v %s", err, b)
	}
}
