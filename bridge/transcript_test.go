package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leasedeck/leasedeck/registry/wire"
)

const transcripts = "testdata/claude-code/transcripts"

type usage struct{ in, out, cache int64 }

func usageOf(t *testing.T, tel *Telemetry) *usage {
	t.Helper()
	if tel == nil {
		return nil
	}
	if tel.Source != "provider_reported" || tel.InputTokens == nil || tel.OutputTokens == nil || tel.CacheTokens == nil {
		t.Fatalf("telemetry %+v", tel)
	}
	return &usage{*tel.InputTokens, *tel.OutputTokens, *tel.CacheTokens}
}

func TestTranscriptUsage(t *testing.T) {
	for _, c := range []struct {
		file, prompt string
		want         *usage
	}{
		// msg_a (written once per content block, counted once) + msg_b.
		{"two-turns.jsonl", "p1", &usage{300, 30, 6}},
		// msg_c + msg_d; the malformed line and the meta entry are skipped.
		{"two-turns.jsonl", "p2", &usage{700, 70, 10}},
		{"two-turns.jsonl", "", &usage{700, 70, 10}},
		// The entries carry promptIds, none this one: the turn is not
		// written yet, and an earlier turn's usage is not its.
		{"two-turns.jsonl", "p3", nil},
		// No promptId anywhere: after the last genuine prompt, deduped by
		// requestId; the entry without usage adds nothing.
		{"no-prompt-id.jsonl", "", &usage{30, 3, 4}},
		{"no-prompt-id.jsonl", "p9", &usage{30, 3, 4}},
		// A subagent's own transcript: its whole run.
		{"subagent.jsonl", "", &usage{240, 60, 0}},
		{"no-usage.jsonl", "p1", nil},
	} {
		tel, err := TranscriptUsage(filepath.Join(transcripts, c.file), c.prompt)
		if err != nil {
			t.Fatalf("%s %q: %v", c.file, c.prompt, err)
		}
		got := usageOf(t, tel)
		if (got == nil) != (c.want == nil) || (got != nil && *got != *c.want) {
			t.Errorf("%s %q: got %+v, want %+v", c.file, c.prompt, got, c.want)
		}
	}
	if tel, _ := TranscriptUsage(filepath.Join(transcripts, "two-turns.jsonl"), "p2"); tel == nil || tel.Model != "claude-test" {
		t.Errorf("model: %+v", tel)
	}
}

func TestTranscriptUsageUnreadable(t *testing.T) {
	if _, err := TranscriptUsage(filepath.Join(t.TempDir(), "missing.jsonl"), ""); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing transcript: %v", err)
	}
	if _, err := TranscriptUsage(t.TempDir(), ""); err == nil {
		t.Error("a directory read as a transcript")
	}
	if _, err := TranscriptUsage("", ""); err == nil {
		t.Error("empty path")
	}
}

// TestTranscriptUsageTail: only the last 8 MiB are read (the cut first
// line is skipped), and a line too long to be an entry is skipped whole.
func TestTranscriptUsageTail(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"type":"user","promptId":"p1","message":{"role":"user","content":"x"}}` + "\n")
	b.WriteString(`{"type":"assistant","message":{"id":"m0","role":"assistant","usage":{"input_tokens":1000000,"output_tokens":1}}}` + "\n")
	filler := `{"type":"attachment","pad":"` + strings.Repeat("a", 1<<20) + `"}` + "\n"
	for i := 0; i < 9; i++ {
		b.WriteString(filler)
	}
	b.WriteString(`{"type":"user","promptId":"p1","message":{"role":"user","content":[{"type":"tool_result","content":"` + strings.Repeat("b", maxTranscriptLine) + `"}]}}` + "\n")
	b.WriteString(`{"type":"assistant","message":{"id":"m1","role":"assistant","usage":{"input_tokens":5,"output_tokens":2}}}` + "\n")
	b.WriteString(`{"type":"assistant","message":{"id":"m2","role":"assistant","usage":{"input_tokens":7,"output_tokens":3}}}`) // no final newline
	if b.Len() <= maxTranscriptTail {
		t.Fatal("test transcript too small")
	}
	path := filepath.Join(t.TempDir(), "big.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	// The turn's first user entry and m0 are outside the tail, and its
	// in-tail user entry is too long to read: no entry in the tail
	// carries a promptId or is a prompt, so all the tail's usage counts.
	for _, p := range []string{"p1", ""} {
		tel, err := TranscriptUsage(path, p)
		if err != nil {
			t.Fatal(err)
		}
		if got := usageOf(t, tel); got == nil || *got != (usage{12, 5, 0}) {
			t.Errorf("tail %q: %+v", p, got)
		}
	}
}

func claudePayload(t *testing.T, m map[string]any) []byte {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestClaudeStopReadsTranscript(t *testing.T) {
	a, _ := AdapterFor("claude-code")
	abs, _ := filepath.Abs(filepath.Join(transcripts, "two-turns.jsonl"))
	ev, err := a.Parse(claudePayload(t, map[string]any{"hook_event_name": "Stop", "session_id": "s", "cwd": "/w",
		"prompt_id": "p1", "transcript_path": abs, "stop_hook_active": false, "last_assistant_message": "done"}))
	if err != nil {
		t.Fatal(err)
	}
	if got := usageOf(t, ev.Telemetry); got == nil || *got != (usage{300, 30, 6}) {
		t.Errorf("Stop telemetry %+v", got)
	}

	sub, _ := filepath.Abs(filepath.Join(transcripts, "subagent.jsonl"))
	ev, err = a.Parse(claudePayload(t, map[string]any{"hook_event_name": "SubagentStop", "session_id": "s", "cwd": "/w",
		"prompt_id": "parent-prompt", "agent_id": "a1", "agent_type": "general-purpose",
		"transcript_path": abs, "agent_transcript_path": sub}))
	if err != nil {
		t.Fatal(err)
	}
	if got := usageOf(t, ev.Telemetry); got == nil || *got != (usage{240, 60, 0}) {
		t.Errorf("SubagentStop telemetry %+v (the subagent's transcript, not the parent's)", got)
	}

	// A SubagentStop without its own transcript gets nothing from the parent's.
	ev, err = a.Parse(claudePayload(t, map[string]any{"hook_event_name": "SubagentStop", "session_id": "s",
		"agent_id": "a1", "transcript_path": abs}))
	if err != nil || ev.Telemetry != nil {
		t.Errorf("SubagentStop without agent_transcript_path: %+v %v", ev.Telemetry, err)
	}

	// A missing transcript: no telemetry, no error, a warning.
	ev, err = a.Parse(claudePayload(t, map[string]any{"hook_event_name": "Stop", "session_id": "s",
		"transcript_path": filepath.Join(t.TempDir(), "gone.jsonl")}))
	if err != nil || ev.Telemetry != nil || ev.Op != OpFinalize {
		t.Fatalf("missing transcript: %+v %v", ev, err)
	}
	out := Render(a, ev, VerdictFor(ev, Response{Op: "finalize", Decision: DecisionNonCertified}))
	if out.ExitCode != 0 || !strings.Contains(string(out.Stdout), "no token usage for this turn") {
		t.Errorf("missing transcript output: %d %s %s", out.ExitCode, out.Stdout, out.Stderr)
	}

	// Codex shares the payload shape but not the transcript format.
	c, _ := AdapterFor("codex")
	ev, err = c.Parse(claudePayload(t, map[string]any{"hook_event_name": "Stop", "session_id": "s", "turn_id": "p1",
		"transcript_path": abs}))
	if err != nil || ev.Telemetry != nil {
		t.Errorf("codex Stop: %+v %v", ev.Telemetry, err)
	}
}

// recordingCaller records the telemetry calls turnTelemetry makes; no
// other op is expected of it (the embedded nil Caller panics if one is).
type recordingCaller struct {
	Caller
	calls []wire.TelemetryParams
}

func (r *recordingCaller) Telemetry(_ context.Context, p wire.TelemetryParams) (wire.TelemetryResult, error) {
	r.calls = append(r.calls, p)
	return wire.TelemetryResult{}, nil
}

func TestTurnTelemetry(t *testing.T) {
	in, out, cache := int64(300), int64(30), int64(6)
	req := Request{Op: OpFinalize, InputTokens: &in, OutputTokens: &out, CacheTokens: &cache, CostSource: "provider_reported"}
	var c recordingCaller
	if w := turnTelemetry(&c, req, "adm"); len(w) != 0 {
		t.Errorf("warnings %v", w)
	}
	if len(c.calls) != 1 || c.calls[0].AdmissionID != "adm" || c.calls[0].Source != "provider_reported" ||
		c.calls[0].Tokens == nil || *c.calls[0].Tokens != 336 || c.calls[0].CostUSD != nil {
		t.Errorf("calls %v", c.calls)
	}
	c.calls = nil
	turnTelemetry(&c, Request{Op: OpFinalize}, "adm")
	if len(c.calls) != 0 {
		t.Errorf("a finalize without usage sent %v", c.calls)
	}
}
