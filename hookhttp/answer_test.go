package hookhttp

import (
	"encoding/json"
	"testing"

	"github.com/leasedeck/leasedeck/bridge"
)

// Every command-hook answer becomes a 2xx JSON body that means the same to
// Claude Code: exit 2 refuses, exit 1 decides nothing, silence is {}.
func TestHTTPBody(t *testing.T) {
	pre := &bridge.Event{Native: "PreToolUse"}
	stop := &bridge.Event{Native: "UserPromptSubmit"}
	cases := []struct {
		name string
		ev   *bridge.Event
		out  bridge.Output
		want string
	}{
		{"json as is", pre, bridge.Output{Stdout: []byte(`{"a":1}` + "\n")}, `{"a":1}`},
		{"silence", pre, bridge.Output{}, `{}`},
		{"blocking exit on a gate", pre, bridge.Output{Stderr: []byte("closed <lease>\n"), ExitCode: 2},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"closed <lease>"}}`},
		{"blocking exit elsewhere", stop, bridge.Output{Stderr: []byte("no"), ExitCode: 2}, `{"decision":"block","reason":"no"}`},
		{"blocking exit without a reason", stop, bridge.Output{ExitCode: 2}, `{"decision":"block","reason":"blocked by leasedeck"}`},
		{"non-blocking error", pre, bridge.Output{Stderr: []byte("unreadable"), ExitCode: 1}, `{"systemMessage":"unreadable"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := httpBody(c.ev, c.out)
			var g, w any
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatalf("not JSON: %s", got)
			}
			json.Unmarshal([]byte(c.want), &w)
			gb, _ := json.Marshal(g)
			wb, _ := json.Marshal(w)
			if string(gb) != string(wb) {
				t.Errorf("got %s, want %s", gb, wb)
			}
		})
	}
}
