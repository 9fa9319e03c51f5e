package fakemodel

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

func post(t *testing.T, url string, header map[string]string, body any) (*http.Response, string) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(string(b)))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var sb strings.Builder
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		sb.WriteString(sc.Text() + "\n")
	}
	return resp, sb.String()
}

// events parses "event:"/"data:" lines into (name, data) pairs.
func events(t *testing.T, body string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(body, "\n") {
		if d, ok := strings.CutPrefix(l, "data: "); ok {
			var m map[string]any
			if err := json.Unmarshal([]byte(d), &m); err != nil {
				t.Fatalf("data line is not JSON: %q", d)
			}
			out = append(out, m)
		}
	}
	return out
}

func TestAnthropicScript(t *testing.T) {
	var before atomic.Int32
	s := NewAnthropic(Script{Name: "main", Steps: []Step{
		{Calls: []Call{{Name: "Bash", Input: map[string]any{"command": "ls"}}}, Before: func() { before.Add(1) }},
		{Text: "All done."},
	}})
	defer s.Close()
	tools := []any{map[string]any{"name": "Bash"}}
	first := map[string]any{"model": "m", "stream": true, "tools": tools,
		"messages": []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "go " + Marker("main")}}}}}
	for i := 0; i < 2; i++ { // a retry plays the same step; Before runs once
		resp, body := post(t, s.URL+"/v1/messages?beta=true", nil, first)
		if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
			t.Fatalf("content type %q", ct)
		}
		if !strings.Contains(body, "event: message_start") || !strings.Contains(body, `"stop_reason":"tool_use"`) ||
			!strings.Contains(body, `"partial_json":"{\"command\":\"ls\"}"`) || !strings.Contains(body, CallID("main", 0, 0)) {
			t.Fatalf("stream:\n%s", body)
		}
	}
	if before.Load() != 1 {
		t.Fatalf("Before ran %d times", before.Load())
	}
	second := map[string]any{"model": "m", "stream": true, "tools": tools, "messages": []any{
		first["messages"].([]any)[0],
		map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": CallID("main", 0, 0), "name": "Bash", "input": map[string]any{}}}},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": CallID("main", 0, 0),
			"is_error": true, "content": "refused: because"}}},
	}}
	_, body := post(t, s.URL+"/v1/messages", nil, second)
	if !strings.Contains(body, `"text":"All done."`) || !strings.Contains(body, `"stop_reason":"end_turn"`) {
		t.Fatalf("final:\n%s", body)
	}
	rs, ok := s.ResultsAfter("main", 0)
	if !ok || len(rs) != 1 || rs[0].Text != "refused: because" || !rs[0].IsError || rs[0].ID != CallID("main", 0, 0) {
		t.Fatalf("results %v %+v", ok, rs)
	}
	// No tools, or no marker: a side request, answered with text, not JSON stream.
	_, body = post(t, s.URL+"/v1/messages", nil, map[string]any{"messages": []any{map[string]any{"role": "user", "content": "title please " + Marker("main")}}})
	if !strings.Contains(body, `"text":"ok"`) {
		t.Fatalf("side: %s", body)
	}
	if n := len(s.Turns("main")); n != 3 {
		t.Fatalf("%d scripted turns recorded", n)
	}
	if got := s.Requests()[3].Kind; got != "side" {
		t.Fatalf("kind %q", got)
	}
}

func TestOpenAIScript(t *testing.T) {
	s := NewOpenAI(Script{Name: "main", Steps: []Step{
		{Calls: []Call{{Name: "exec_command", Input: map[string]any{"cmd": "ls"}}}},
		{Calls: []Call{{Name: "apply_patch", Custom: true, Raw: "*** Begin Patch\n*** End Patch\n"}}},
	}})
	defer s.Close()
	user := map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "go " + Marker("main")}}}
	tools := []any{map[string]any{"type": "function", "name": "exec_command"}}
	_, body := post(t, s.URL+"/v1/responses", nil, map[string]any{"model": "gpt-5.5", "stream": true, "tools": tools, "input": []any{user}})
	evs := events(t, body)
	if len(evs) < 3 || evs[0]["type"] != "response.created" || evs[len(evs)-1]["type"] != "response.completed" {
		t.Fatalf("events: %s", body)
	}
	if !strings.Contains(body, `"arguments":"{\"cmd\":\"ls\"}"`) || !strings.Contains(body, `"call_id":"`+CallID("main", 0, 0)) {
		t.Fatalf("function call: %s", body)
	}
	input := []any{user,
		map[string]any{"type": "function_call", "call_id": CallID("main", 0, 0), "name": "exec_command", "arguments": "{}"},
		map[string]any{"type": "function_call_output", "call_id": CallID("main", 0, 0), "output": "Command blocked by PreToolUse hook: no."},
	}
	_, body = post(t, s.URL+"/v1/responses", nil, map[string]any{"stream": true, "tools": tools, "input": input})
	if !strings.Contains(body, `"type":"custom_tool_call"`) || !strings.Contains(body, `"input":"*** Begin Patch\n*** End Patch\n"`) {
		t.Fatalf("custom call: %s", body)
	}
	if rs, _ := s.ResultsAfter("main", 0); len(rs) != 1 || !strings.Contains(rs[0].Text, "blocked by PreToolUse hook") {
		t.Fatalf("results %+v", rs)
	}
	_, body = post(t, s.URL+"/v1/responses", map[string]string{"x-codex-turn-metadata": `{"thread_source":"guardian_review"}`},
		map[string]any{"stream": true, "tools": tools, "input": []any{user}})
	if !strings.Contains(body, `\"outcome\":\"allow\"`) {
		t.Fatalf("guardian: %s", body)
	}
	if resp, _ := post(t, s.URL+"/v1/models", nil, map[string]any{}); resp.StatusCode != 404 {
		t.Fatalf("unknown path: %d", resp.StatusCode)
	}
}

func TestGeminiScript(t *testing.T) {
	s := NewGemini(Script{Name: "main", Steps: []Step{
		{Calls: []Call{{Name: "run_shell_command", Input: map[string]any{"command": "ls"}}}},
	}})
	defer s.Close()
	user := map[string]any{"role": "user", "parts": []any{map[string]any{"text": "<session_context>…"}, map[string]any{"text": "go " + Marker("main")}}}
	tools := []any{map[string]any{"functionDeclarations": []any{map[string]any{"name": "run_shell_command"}}}}
	url := s.URL + "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
	_, body := post(t, url, nil, map[string]any{"contents": []any{user}, "tools": tools})
	evs := events(t, body)
	if len(evs) != 1 || !strings.Contains(body, `"functionCall":{"args":{"command":"ls"}`) || !strings.Contains(body, `"modelVersion":"gemini-2.5-flash"`) {
		t.Fatalf("stream: %s", body)
	}
	contents := []any{user,
		map[string]any{"role": "model", "parts": []any{map[string]any{"functionCall": map[string]any{"name": "run_shell_command", "args": map[string]any{}}}}},
		map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{"id": "x1", "name": "run_shell_command",
			"response": map[string]any{"error": "Tool execution blocked: no"}}}}},
	}
	_, body = post(t, url, nil, map[string]any{"contents": contents, "tools": tools})
	if !strings.Contains(body, `"text":"Done."`) || !strings.Contains(body, `"finishReason":"STOP"`) {
		t.Fatalf("final: %s", body)
	}
	rs, _ := s.ResultsAfter("main", 0)
	if len(rs) != 1 || !rs[0].IsError || !strings.Contains(rs[0].Text, "Tool execution blocked: no") {
		t.Fatalf("results %+v", rs)
	}
	_, body = post(t, s.URL+"/v1beta/models/gemini-3.5-flash-lite:generateContent", nil, map[string]any{"contents": []any{user}})
	if !strings.Contains(body, "complexity_score") {
		t.Fatalf("classifier: %s", body)
	}
}

func TestChatScript(t *testing.T) {
	s := NewChat(Script{Name: "main", Steps: []Step{
		{Calls: []Call{{Name: "run_shell_command", Input: map[string]any{"command": "ls"}}, {Name: "read_file", Input: map[string]any{"file_path": "a"}}}},
		{Text: "All done."},
	}})
	defer s.Close()
	user := map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "go " + Marker("main")}}}
	tools := []any{map[string]any{"type": "function", "function": map[string]any{"name": "run_shell_command"}}}
	resp, body := post(t, s.URL+"/api/v1/chat/completions", nil, map[string]any{"model": "fake-model", "stream": true,
		"stream_options": map[string]any{"include_usage": true}, "tools": tools, "messages": []any{user}})
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	if !strings.HasSuffix(strings.TrimSpace(body), "data: [DONE]") {
		t.Fatalf("stream does not end with [DONE]:\n%s", body)
	}
	evs := events(t, strings.TrimSuffix(strings.TrimSpace(body), "data: [DONE]"))
	if len(evs) != 3 || !strings.Contains(body, `"arguments":"{\"command\":\"ls\"}"`) || !strings.Contains(body, `"id":"`+ChatCallID("main", 0, 1)+`"`) ||
		!strings.Contains(body, `"finish_reason":"tool_calls"`) || !strings.Contains(body, `"usage":{`) {
		t.Fatalf("tool-call stream:\n%s", body)
	}
	msgs := []any{map[string]any{"role": "system", "content": "sys"}, user,
		map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": ChatCallID("main", 0, 0), "type": "function"},
			map[string]any{"id": ChatCallID("main", 0, 1), "type": "function"}}},
		map[string]any{"role": "tool", "tool_call_id": ChatCallID("main", 0, 0), "content": "Denied by preToolUse hook: no"},
		map[string]any{"role": "tool", "tool_call_id": ChatCallID("main", 0, 1), "content": "a's text"},
	}
	_, body = post(t, s.URL+"/v1/chat/completions", nil, map[string]any{"stream": true, "tools": tools, "messages": msgs})
	if !strings.Contains(body, `"content":"All done."`) || !strings.Contains(body, `"finish_reason":"stop"`) {
		t.Fatalf("final:\n%s", body)
	}
	rs, ok := s.ResultsAfter("main", 0)
	if !ok || len(rs) != 2 || rs[0].ID != ChatCallID("main", 0, 0) || rs[0].Text != "Denied by preToolUse hook: no" || rs[1].Text != "a's text" {
		t.Fatalf("results %v %+v", ok, rs)
	}
	// A title request offers no tools: plain text, no step consumed, not streamed when not asked.
	_, body = post(t, s.URL+"/v1/chat/completions", nil, map[string]any{"messages": []any{user}})
	if !strings.Contains(body, `"object":"chat.completion"`) || !strings.Contains(body, `"content":"ok"`) {
		t.Fatalf("side: %s", body)
	}
	if n := len(s.Turns("main")); n != 2 {
		t.Fatalf("%d scripted turns", n)
	}
	if resp, _ := post(t, s.URL+"/v1/responses", nil, map[string]any{}); resp.StatusCode != 404 {
		t.Fatalf("unknown path: %d", resp.StatusCode)
	}
}
