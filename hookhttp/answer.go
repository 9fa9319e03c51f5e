package hookhttp

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/leasedeck/leasedeck/bridge"
)

// httpBody turns the command hook's answer (stdout, stderr, exit code)
// into the JSON body of a 200, which is all an HTTP hook can say: an exit
// 2 (the blocking exit: a PreToolUse refused because the session's lease
// is closed) becomes that event's JSON refusal, and a non-blocking error
// (exit 1) becomes a message to the user that decides nothing, as exit 1
// does. No answer at all is `{}`, a 2xx with no decision.
func httpBody(ev *bridge.Event, out bridge.Output) []byte {
	reason := strings.TrimSpace(string(out.Stderr))
	switch out.ExitCode {
	case 0:
		if len(bytes.TrimSpace(out.Stdout)) == 0 {
			return []byte("{}\n")
		}
		return out.Stdout
	case 2:
		if ev.Native == "PreToolUse" {
			return encode(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "PreToolUse",
				"permissionDecision": "deny", "permissionDecisionReason": nonEmpty(reason, "blocked by leasedeck")}})
		}
		return encode(map[string]any{"decision": "block", "reason": nonEmpty(reason, "blocked by leasedeck")})
	}
	if reason == "" {
		return []byte("{}\n")
	}
	return encode(map[string]any{"systemMessage": reason})
}

func encode(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return b.Bytes()
}

func nonEmpty(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
