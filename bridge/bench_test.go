package bridge

import (
	"encoding/json"
	"testing"
)

// BenchmarkClaudePreToolUse is the pure part of one hook round trip: parse
// the payload, build and marshal the request, render an answer.
func BenchmarkClaudePreToolUse(b *testing.B) {
	data := recorded(b)["claude-code/PreToolUse"]
	a, _ := AdapterFor("claude-code")
	resp := Response{Op: "pre-tool", SchemaVersion: SchemaVersion, Decision: DecisionDeny, Reason: "outside the lease"}
	b.ReportAllocs()
	for b.Loop() {
		ev, err := a.Parse(data)
		if err != nil {
			b.Fatal(err)
		}
		req, _ := ev.Request("")
		if _, err := json.Marshal(req); err != nil {
			b.Fatal(err)
		}
		_ = Render(a, ev, VerdictFor(ev, resp))
	}
}
