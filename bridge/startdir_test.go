package bridge

import "testing"

// TestShellStartDir: a Bash call starts where the hook payload says the
// client's shell is; a cwd member the agent put in the tool input is not
// believed; Codex's workdir is relative to the payload's cwd.
func TestShellStartDir(t *testing.T) {
	cases := []struct {
		client, payload, want string
	}{
		{"claude-code", `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/ws/src","tool_name":"Bash","tool_input":{"command":"cat x","cwd":"/etc"}}`, "/ws/src"},
		{"claude-code", `{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Bash","tool_input":{"command":"cat x","cwd":"/etc"}}`, ""},
		{"codex", `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/ws","tool_name":"exec_command","tool_input":{"cmd":"cat x","workdir":"sub"}}`, "/ws/sub"},
		{"codex", `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/ws","tool_name":"exec_command","tool_input":{"cmd":"cat x","workdir":"/other"}}`, "/other"},
	}
	for _, tc := range cases {
		a, err := AdapterFor(tc.client)
		if err != nil {
			t.Fatal(err)
		}
		ev, err := a.Parse([]byte(tc.payload))
		if err != nil {
			t.Fatalf("%s: %v", tc.payload, err)
		}
		got, _ := ev.Tool.Input["cwd"].(string)
		if got != tc.want {
			t.Errorf("%s: cwd %q, want %q", tc.payload, got, tc.want)
		}
	}
}
