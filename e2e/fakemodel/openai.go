package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// NewOpenAI serves the OpenAI Responses API as Codex CLI uses it with a
// custom model provider (wire_api = "responses"): POST /v1/responses with
// stream true, answered with server-sent events (response.created, one
// response.output_item.done per output item — function_call,
// custom_tool_call or an assistant message — and response.completed).
//
// The step of a scripted request is the number of *_call_output items in
// its input (the whole history is resent every time). Compaction requests
// (x-codex-turn-metadata request_kind "compaction") get a summary text,
// the automatic approval reviewer (thread_source "guardian_review") a
// JSON "allow" assessment, and anything without a script marker a short
// text.
func NewOpenAI(scripts ...Script) *Server {
	return newServer(openaiHandle, scripts)
}

type openaiItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	CallID  string          `json:"call_id"`
	Output  json.RawMessage `json:"output"`
}

func openaiHandle(s *Server, w http.ResponseWriter, r *http.Request, body []byte) Request {
	rec := Request{Kind: "other", Step: -1}
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") {
		writeJSON(w, 404, map[string]any{"error": map[string]any{"message": "not here", "type": "invalid_request_error"}})
		return rec
	}
	var req struct {
		Model string       `json:"model"`
		Input []openaiItem `json:"input"`
		Tools []any        `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSON(w, 400, map[string]any{"error": map[string]any{"message": err.Error(), "type": "invalid_request_error"}})
		return rec
	}
	var meta struct {
		RequestKind  string `json:"request_kind"`
		ThreadSource string `json:"thread_source"`
	}
	json.Unmarshal([]byte(r.Header.Get("x-codex-turn-metadata")), &meta)

	var userTexts []string
	outputs := 0
	for _, it := range req.Input {
		switch {
		case it.Type == "message" && it.Role == "user":
			var c any
			json.Unmarshal(it.Content, &c)
			userTexts = append(userTexts, textOf(c))
		case strings.HasSuffix(it.Type, "_call_output"):
			outputs++
		}
	}
	rec.Kind = "side"
	step := Step{Text: "ok"}
	switch {
	case meta.RequestKind == "compaction":
		step.Text = "Summary: the scripted session so far."
	case meta.ThreadSource == "guardian_review":
		step.Text = `{"risk_level":"low","user_authorization":"high","outcome":"allow","rationale":"scripted reviewer"}`
	default:
		if name := scriptOf(userTexts...); name != "" && len(req.Tools) > 0 {
			if st, ok := s.step(name, outputs); ok {
				rec.Kind, rec.Script, rec.Step, step = "turn", name, outputs, st
			}
		}
	}
	if rec.Kind == "turn" && outputs > 0 {
		prefix := CallID(rec.Script, outputs-1, 0)
		prefix = prefix[:strings.LastIndex(prefix, "_")+1]
		for _, it := range req.Input {
			if strings.HasSuffix(it.Type, "_call_output") && strings.HasPrefix(it.CallID, prefix) {
				var out any
				json.Unmarshal(it.Output, &out)
				rec.Results = append(rec.Results, ToolResult{ID: it.CallID, Text: textOf(out)})
			}
		}
	}

	id := fmt.Sprintf("resp_%s_%d_%d", rec.Script, rec.Step, len(s.Requests()))
	e := newSSE(w)
	e.event("response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": id, "status": "in_progress"}})
	var items []map[string]any
	if len(step.Calls) == 0 {
		items = append(items, map[string]any{"type": "message", "id": "msg_" + id, "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": step.Text}}})
	}
	for i, c := range step.Calls {
		cid := CallID(rec.Script, rec.Step, i)
		if c.Custom {
			items = append(items, map[string]any{"type": "custom_tool_call", "id": fmt.Sprintf("ctc_%s", cid),
				"call_id": cid, "name": c.Name, "input": c.Raw})
			continue
		}
		in := c.Input
		if in == nil {
			in = map[string]any{}
		}
		item := map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%s", cid), "call_id": cid,
			"name": c.Name, "arguments": mustJSON(in)}
		if c.Namespace != "" {
			item["namespace"] = c.Namespace
		}
		items = append(items, item)
	}
	for i, it := range items {
		e.event("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": i, "item": it})
		e.event("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": i, "item": it})
	}
	e.event("response.completed", map[string]any{"type": "response.completed", "response": map[string]any{"id": id,
		"usage": map[string]any{"input_tokens": 120, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": 30, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 150}}})
	return rec
}
