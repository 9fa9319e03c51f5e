// Command barehook is the floor a hook's start-up is measured against: a
// Go program that reads a Claude Code hook payload, parses it and prints
// an allow, and does nothing else (no registry, no journal).
package main

import (
	"encoding/json"
	"io"
	"os"
)

func main() {
	data, err := io.ReadAll(os.Stdin)
	if err != nil {
		os.Exit(1)
	}
	var payload struct {
		HookEventName string `json:"hook_event_name"`
	}
	if err := json.Unmarshal(data, &payload); err != nil {
		os.Exit(1)
	}
	out, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": payload.HookEventName, "permissionDecision": "allow"}})
	os.Stdout.Write(append(out, '\n'))
}
