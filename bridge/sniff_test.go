package bridge

import (
	"strings"
	"testing"
)

// A payload leasedeck cannot read whole is answered as the event it names;
// when it names a gate anywhere, or names a tool call and no event the
// adapter knows, it is a gate, so its answer refuses.
func TestSniffEventReadsABrokenToolCallAsAGate(t *testing.T) {
	cases := []struct {
		name, client, stdin, native string
		gate                        bool
	}{
		{"a gate", "claude-code", `{"hook_event_name":"PreToolUse","tool_name":"Bash",`, "PreToolUse", true},
		{"a harmless event named first", "claude-code", `{"hook_event_name":"Stop","hook_event_name" : "PreToolUse",}`, "PreToolUse", true},
		{"a post-tool report", "claude-code", `{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_response":`, "PostToolUse", false},
		{"no event, a tool", "codex", `{"session_id":"s","tool_name":"Bash","tool_input":{`, "", true},
		{"an event name that is a number, a tool", "gemini", `{"hook_event_name":7,"tool_name":"run_shell_command"`, "", true},
		{"an unknown event, a tool", "qwen-code", `{"hook_event_name":"PreToolUseV2","tool_input":{`, "", true},
		{"an observed event, a tool", "claude-code", `{"hook_event_name":"Notification","tool_input":{`, "", true},
		{"a plugin's gate", "opencode", `{"hook_event_name":"session.idle","hook_event_name":"tool.execute.before"`, "tool.execute.before", true},
		{"VS Code's key", "vscode", `{"hookEventName":"PreToolUse"`, "PreToolUse", true},
		{"an escaped key inside a string is not a key", "claude-code", `{"hook_event_name":"Stop","x":"\"tool_name\": 1"`, "Stop", false},
		{"nothing to go on", "claude-code", `{"a":`, "", false},
	}
	for _, c := range cases {
		a, err := AdapterFor(c.client)
		if err != nil {
			t.Fatal(err)
		}
		ev := sniffEvent(a.Name(), a.Events(), []byte(c.stdin))
		gate := ev != nil && ev.Gate
		native := ""
		if ev != nil {
			native = ev.Native
		}
		if gate != c.gate || native != c.native {
			t.Errorf("%s: sniffed %+v, want native %q gate %v", c.name, ev, c.native, c.gate)
		}
		out := Render(a, ev, FailVerdict("enforce", ev, "unreadable"))
		if c.gate && out.ExitCode != 2 && !strings.Contains(string(out.Stdout), "deny") {
			t.Errorf("%s: a broken gate is answered %+v", c.name, out)
		}
	}
}

// The scan is linear: a payload full of the keys it looks for is read at
// the cost of a copy, not of a pattern match at each of them.
func TestSniffNamesManyKeys(t *testing.T) {
	data := []byte(strings.Repeat(`"hook_event_name":"Stop",`, 1<<16) + `"hook_event_name":"PreToolUse"`)
	names := sniffNames(data, eventNameKeys)
	if len(names) != 1<<16+1 || names[len(names)-1] != "PreToolUse" {
		t.Fatalf("%d names, last %q", len(names), names[len(names)-1])
	}
}
