package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gateFixture is one client's recorded gate payload (a shell call) and the
// member that names its event.
type gateFixture struct {
	client, file, eventKey, gateEvent, otherEvent string
}

var gateFixtures = []gateFixture{
	{"claude-code", "PreToolUse", "hook_event_name", "PreToolUse", "Stop"},
	{"codex", "PreToolUse", "hook_event_name", "PreToolUse", "Stop"},
	{"gemini", "BeforeTool", "hook_event_name", "BeforeTool", "AfterAgent"},
	{"qwen-code", "PreToolUse", "hook_event_name", "PreToolUse", "Stop"},
	{"copilot", "PreToolUse.Bash", "hook_event_name", "PreToolUse", "Stop"},
	{"vscode", "PreToolUse", "hookEventName", "PreToolUse", "Stop"},
	{"opencode", "tool.execute.before.bash", "hook_event_name", "tool.execute.before", "session.idle"},
	{"pi", "tool_call.bash", "hook_event_name", "tool_call", "agent_end"},
}

// refusedByClient reports whether a hook's answer refuses the call in the
// client's own terms: exit 2 with a reason (every one of these clients
// blocks on it), or exit 0 with the client's deny.
func refusedByClient(client string, r result) bool {
	if r.code == 2 && strings.TrimSpace(r.stderr) != "" {
		return true
	}
	if r.code != 0 {
		return false
	}
	out := strings.ReplaceAll(r.stdout, " ", "")
	switch client {
	case "gemini", "opencode", "pi":
		return strings.Contains(out, `"decision":"deny"`) || strings.Contains(out, `"decision":"block"`)
	}
	return strings.Contains(out, `"permissionDecision":"deny"`)
}

// A tool call's payload that leasedeck cannot read whole, or whose event
// it does not know, is refused in the client's own form by both programs
// that run hooks: never answered with an allow, nor with a non-blocking
// error that the client reads as "run it" (Claude Code, Codex and Gemini
// CLI run the tool on exit 1; Qwen Code on anything but a refusal).
func TestHookPayloadsLeasedeckCannotReadAreRefused(t *testing.T) {
	w := newWorkspace(t)
	w.serve()
	if err := os.WriteFile(filepath.Join(w.dir, ".env"), []byte("SECRET=1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	padding := strings.Repeat("x", 64<<20+1)
	for _, f := range gateFixtures {
		base := func(edit func(m map[string]any)) string {
			return w.payload(f.client, f.file, func(m map[string]any) {
				m["tool_input"].(map[string]any)["command"] = "cat .env"
				if edit != nil {
					edit(m)
				}
			})
		}
		// The same payload with its event named twice, a harmless event
		// first: not JSON this reader accepts, and the name it finds first
		// is not the gate's.
		dup := base(nil)
		dup = strings.Replace(dup, `"`+f.eventKey+`":`, `"`+f.eventKey+`":"`+f.otherEvent+`","`+f.eventKey+`":`, 1)
		attacks := []struct{ name, stdin string }{
			{"larger than the hook reads", base(func(m map[string]any) {
				m["tool_input"].(map[string]any)["description"] = padding
			})},
			{"an event it does not know", base(func(m map[string]any) { m[f.eventKey] = f.gateEvent + "V2" })},
			{"no event name", base(func(m map[string]any) { delete(m, f.eventKey) })},
			{"an event name that is a number", base(func(m map[string]any) { m[f.eventKey] = 7 })},
			{"broken, a harmless event named first", dup},
		}
		for _, a := range attacks {
			for _, exe := range hookPrograms() {
				r := w.hookOn(exe, f.client, a.stdin)
				if !refusedByClient(f.client, r) {
					t.Errorf("%s %s: %s: not refused: exit %d\nstdout: %.300s\nstderr: %.300s", filepath.Base(exe), f.client, a.name, r.code, r.stdout, r.stderr)
				}
			}
		}
	}
	if r := w.run("", "journal", "verify"); r.code != 0 {
		t.Fatalf("journal verify: %+v", r)
	}
}

// The payload helper must have produced what the attacks think it did.
func TestGateFixturesNameTheirEvent(t *testing.T) {
	for _, f := range gateFixtures {
		b, err := os.ReadFile(filepath.Join(payloadDir, f.client, f.file+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if m[f.eventKey] != f.gateEvent {
			t.Errorf("%s/%s: %s is %v, not %s", f.client, f.file, f.eventKey, m[f.eventKey], f.gateEvent)
		}
		if _, ok := m["tool_input"].(map[string]any); !ok {
			t.Errorf("%s/%s: no tool_input object", f.client, f.file)
		}
	}
}

// A tool input that names the file or directory twice, in members that
// different versions of the client read (Gemini CLI's file_path and the
// older absolute_path, dir_path and directory; VS Code's filePath and
// path), differently, or in a member of the wrong type, is refused: the
// gate would check one while the client may use the other.
func TestHookRefusesATwiceNamedPath(t *testing.T) {
	w := newWorkspace(t)
	w.serve()
	if err := os.WriteFile(filepath.Join(w.dir, ".env"), []byte("SECRET=1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(w.dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(w.dir, ".env")
	cases := []struct {
		client, file, tool string
		input              map[string]any
	}{
		{"gemini", "BeforeTool", "read_file", map[string]any{"file_path": "README.md", "absolute_path": secret}},
		{"gemini", "BeforeTool", "read_file", map[string]any{"file_path": "README.md", "path": ".env"}},
		{"gemini", "BeforeTool", "write_file", map[string]any{"file_path": "src/ok.txt", "absolute_path": filepath.Join(w.dir, ".claude", "settings.json"), "content": "{}"}},
		{"gemini", "BeforeTool", "run_shell_command", map[string]any{"command": "cat .env", "dir_path": "src", "directory": "."}},
		{"gemini", "BeforeTool", "run_shell_command", map[string]any{"command": "cat .env", "dir_path": []any{"src"}}},
		{"gemini", "BeforeTool", "grep_search", map[string]any{"pattern": "SECRET", "dir_path": "src", "path": "."}},
		{"qwen-code", "PreToolUse", "write_file", map[string]any{"file_path": "src/ok.txt", "absolute_path": secret, "content": "x"}},
		{"qwen-code", "PreToolUse", "run_shell_command", map[string]any{"command": "cat .env", "dir_path": "src", "directory": "."}},
		{"vscode", "PreToolUse", "read_file", map[string]any{"filePath": "README.md", "path": secret}},
		{"vscode", "PreToolUse", "run_in_terminal", map[string]any{"command": "ls", "cmd": "cat .env"}},
		{"copilot", "PreToolUse.Bash", "view", map[string]any{"path": "README.md", "file_path": secret}},
		{"codex", "PreToolUse", "exec_command", map[string]any{"command": "ls", "cmd": "cat .env"}},
	}
	for _, c := range cases {
		stdin := w.payload(c.client, c.file, func(m map[string]any) {
			m["tool_name"] = c.tool
			m["tool_input"] = c.input
		})
		r := w.hook(c.client, stdin)
		if !refusedByClient(c.client, r) {
			t.Errorf("%s %s %v: not refused: exit %d\nstdout: %.300s\nstderr: %.300s", c.client, c.tool, c.input, r.code, r.stdout, r.stderr)
		}
	}
}

// A payload that names no event leasedeck can read and no tool may still
// be the client's pre-tool hook (every event runs the same command, so the
// hook cannot tell which one called it): both programs that run hooks
// answer it with the blocking form, exit 2 with the reason on stderr,
// which every client reads as a refusal on its gate, never with the exit 1
// that Claude Code, Codex and Gemini CLI read as "go on" (Copilot CLI
// alone keeps exit 1, which blocks its preToolUse). With a registry
// running and without one.
func TestHookPayloadsWithNoEventAreRefused(t *testing.T) {
	w := newWorkspace(t)
	payloads := []struct{ name, stdin string }{
		{"empty", ""},
		{"white space", " \n\t "},
		{"not JSON", "this is not json"},
		{"an array", `[1,2,3]`},
		{"a string", `"PreToolUse"`},
		{"null", `null`},
		{"an empty object", `{}`},
		{"no event and no tool", `{"session_id":"s","cwd":"/tmp","transcript_path":"/tmp/t.jsonl"}`},
		{"an event name that is a number", `{"session_id":"s","hook_event_name":7,"hookEventName":7}`},
		{"an event name that is an object", `{"session_id":"s","hook_event_name":{"name":"PreToolUse"}}`},
		{"cut before its event", `{"session_id":"s","transcript_path":"/tmp/t.js`},
		{"a duplicate member", `{"session_id":"s","session_id":"t"}`},
	}
	for _, served := range []bool{false, true} {
		if served {
			w.serve()
		}
		for _, f := range gateFixtures {
			for _, p := range payloads {
				for _, exe := range hookPrograms() {
					r := w.hookOn(exe, f.client, p.stdin)
					want := 2
					if f.client == "copilot" {
						// Copilot CLI blocks its preToolUse on any non-zero
						// exit, and sends subagentStart with no event name.
						want = 1
					}
					if r.code != want || strings.TrimSpace(r.stderr) == "" {
						t.Errorf("%s %s: %s (registry running: %v): exit %d, want %d with the reason on stderr\nstdout: %.300s\nstderr: %.300s",
							filepath.Base(exe), f.client, p.name, served, r.code, want, r.stdout, r.stderr)
					}
				}
			}
		}
	}
}
