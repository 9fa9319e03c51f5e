package bridge

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestParseRequestValid(t *testing.T) {
	for _, in := range []string{
		`{"op":"begin","client":"claude-code","prompt":"hi","session":"s","turn":null,"integration_mode":"project_hook"}`,
		`{"op":"begin","client":"unknown","prompt":""}`,
		`{"op":"pre-tool","admission_id":"a1","tool":"Bash","tool_input":{"command":"ls"},"project":"/w"}`,
		`{"op":"post-tool","admission_id":"a1","tool":"Bash","status":"success","duration_ms":12,"result":{"sha256":"x"}}`,
		`{"op":"telemetry","admission_id":"a1","model":"m","input_tokens":1,"output_tokens":2,"cache_tokens":null,"cost_amount":0.5,"cost_currency":"USD","cost_source":"provider_reported"}`,
		`{"op":"finalize","admission_id":"a1","stop_reason":"completed","changed_files":["a.go"]}`,
		`{"op":"abort","reason":"user_interrupt"}`,
		`{"op":"abort","admission_id":null}`,
	} {
		r, err := ParseRequest([]byte(in))
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if err := r.Validate(); err != nil {
			t.Errorf("%s: re-validate: %v", in, err)
		}
		b, _ := json.Marshal(r)
		if _, err := ParseRequest(b); err != nil {
			t.Errorf("%s: round trip %s: %v", in, b, err)
		}
	}
}

func TestParseRequestMembers(t *testing.T) {
	r, err := ParseRequest([]byte(`{"op":"telemetry","admission_id":"a","input_tokens":7,"cost_amount":1.25,"future":{"x":1},
		"hook":{"client":"gemini","event":"AfterModel","agent_id":"ag"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if r.InputTokens == nil || *r.InputTokens != 7 || r.CostAmount == nil || *r.CostAmount != 1.25 {
		t.Errorf("numbers: %+v", r)
	}
	if r.Hook == nil || r.Hook.Client != "gemini" || r.Hook.AgentID != "ag" {
		t.Errorf("hook: %+v", r.Hook)
	}
	if _, ok := r.Extra["future"]; !ok {
		t.Errorf("unknown member dropped: %v", r.Extra)
	}
	b, _ := json.Marshal(r)
	if !strings.Contains(string(b), `"future":{"x":1}`) {
		t.Errorf("unknown member not re-sent: %s", b)
	}
}

func TestParseRequestInvalid(t *testing.T) {
	for in, pointer := range map[string]string{
		`{"op":"begin","client":"claude-code"}`:                             `prompt`,
		`{"op":"begin","client":"gemini","prompt":"x"}`:                     `/client`,
		`{"op":"pre-tool","tool":"Bash"}`:                                   `admission_id`,
		`{"op":"post-tool","admission_id":"a","tool":"B","duration_ms":-1}`: `/duration_ms`,
		`{"op":"post-tool","admission_id":"a","tool":"B","status":"ok"}`:    `/status`,
		`{"op":"launch"}`: `/op`,
		`{}`:              `op`,
		`{"op":"telemetry","admission_id":"a","cost_source":"guess"}`: `/cost_source`,
	} {
		_, err := ParseRequest([]byte(in))
		var ve *ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("%s: err = %v", in, err)
			continue
		}
		if !strings.Contains(err.Error(), pointer) {
			t.Errorf("%s: %v does not name %s", in, err, pointer)
		}
	}
	if _, err := ParseRequest(nil); !errors.Is(err, ErrEmptyInput) {
		t.Errorf("empty: %v", err)
	}
	for _, in := range []string{`not json`, `{"op":"begin","op":"abort"}`, `{"op":"abort"} trailing`, `[]`} {
		if _, err := ParseRequest([]byte(in)); err == nil {
			t.Errorf("%s: no error", in)
		}
	}
}

func TestResponseValidate(t *testing.T) {
	good := []Response{
		{Op: "pre-tool", SchemaVersion: SchemaVersion, Decision: DecisionAllow},
		{Op: "begin", SchemaVersion: SchemaVersion, Decision: DecisionAllow, AdmissionID: "a", Context: "scope", Warnings: []string{"w"},
			IntegrationMode: ModeProjectHook, CertificationStrength: ModeProjectHook, TelemetryQuality: "partial"},
		{Op: "finalize", SchemaVersion: SchemaVersion, Decision: DecisionNonCertified, Reason: "telemetry incomplete"},
	}
	for _, r := range good {
		if err := r.Validate(); err != nil {
			t.Errorf("%+v: %v", r, err)
		}
	}
	bad := []Response{
		{Op: "pre-tool", SchemaVersion: SchemaVersion, Decision: "ask"},
		{Op: "pre-tool", Decision: DecisionAllow, SchemaVersion: SchemaVersion, TelemetryQuality: "great"},
		{Op: "pre-tool", Decision: DecisionAllow, SchemaVersion: SchemaVersion, CertificationStrength: "strong"},
	}
	for _, r := range bad {
		if err := r.Validate(); err == nil {
			t.Errorf("%+v: no error", r)
		}
	}
}

func TestErrorResponse(t *testing.T) {
	for _, c := range []struct{ op, msg string }{
		{"", ""},
		{"pre-tool", "registry said no"},
		{"weird\nop", "line one\nline two with ghp_aB3cD6eF9gH2iJ5kL8mN1oP4qR7sT0uV3wX6y"},
		{"begin", strings.Repeat("long ", 2000)},
	} {
		r := ErrorResponse(c.op, c.msg)
		if err := r.Validate(); err != nil {
			t.Errorf("%q: %v", c.op, err)
		}
		if r.Decision != DecisionError || strings.ContainsAny(r.Reason, "\n\r") || strings.Contains(r.Reason, "ghp_") || r.Op == "" {
			t.Errorf("%q: %+v", c.op, r)
		}
	}
}

func TestParseResponse(t *testing.T) {
	r, err := ParseResponse([]byte(`{"op":"pre-tool","schema_version":"1.0","decision":"deny","reason":"outside","admission_id":null,"context":null,"warnings":["a"]}`))
	if err != nil || r.Decision != DecisionDeny || r.Reason != "outside" || len(r.Warnings) != 1 {
		t.Errorf("%+v %v", r, err)
	}
	if _, err := ParseResponse([]byte(`{"op":"pre-tool","decision":"maybe","schema_version":"1"}`)); err == nil || !strings.Contains(err.Error(), "/decision") {
		t.Errorf("bad decision: %v", err)
	}
	if _, err := ParseResponse([]byte(" ")); !errors.Is(err, ErrEmptyInput) {
		t.Errorf("empty: %v", err)
	}
}

func TestEventRequestWithoutOp(t *testing.T) {
	var ev *Event
	if _, err := ev.Request("a"); err == nil {
		t.Error("nil event: no error")
	}
	if _, err := (&Event{Op: OpPreTool}).Request("a"); err == nil {
		t.Error("pre-tool without a tool: no error")
	}
}
