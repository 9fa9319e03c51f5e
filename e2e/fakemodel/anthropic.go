package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// NewAnthropic serves the Anthropic Messages API: POST /v1/messages,
// answered as a server-sent-event stream when the request asks for one
// (message_start; per block content_block_start, content_block_delta with
// text_delta or input_json_delta, content_block_stop; message_delta with
// stop_reason tool_use or end_turn; message_stop), else as one JSON
// message. POST /v1/messages/count_tokens answers a fixed count.
//
// A request that offers no tools, or whose first user message carries no
// script marker, is a side request (title, classifier…): answered with a
// short text. The step of a scripted request is the number of assistant
// messages already in its history.
func NewAnthropic(scripts ...Script) *Server {
	return newServer(anthropicHandle, scripts)
}

type anthropicRequest struct {
	Model    string            `json:"model"`
	Stream   bool              `json:"stream"`
	Tools    []json.RawMessage `json:"tools"`
	Messages []struct {
		Role    string `json:"role"`
		Content any    `json:"content"`
	} `json:"messages"`
}

func anthropicHandle(s *Server, w http.ResponseWriter, r *http.Request, body []byte) Request {
	rec := Request{Kind: "other", Step: -1}
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/v1/messages/count_tokens"):
		writeJSON(w, 200, map[string]any{"input_tokens": 100})
		return rec
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/v1/messages"):
	default:
		writeJSON(w, 404, map[string]any{"type": "error", "error": map[string]any{"type": "not_found_error", "message": "not here"}})
		return rec
	}
	var req anthropicRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSON(w, 400, map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": err.Error()}})
		return rec
	}
	first := ""
	assistants := 0
	for _, m := range req.Messages {
		if m.Role == "user" && first == "" {
			first = textOf(m.Content)
		}
		if m.Role == "assistant" {
			assistants++
		}
	}
	if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == "user" {
		rec.Results = anthropicResults(req.Messages[n-1].Content)
	}
	rec.Kind = "side"
	step := Step{Text: "ok"}
	if name := scriptOf(first); name != "" && len(req.Tools) > 0 {
		if st, ok := s.step(name, assistants); ok {
			rec.Kind, rec.Script, rec.Step, step = "turn", name, assistants, st
		}
	}
	id := fmt.Sprintf("msg_%s_%d", rec.Script, rec.Step)
	model := req.Model
	if model == "" {
		model = "claude-fake"
	}
	blocks := anthropicBlocks(step, rec)
	stop := "end_turn"
	if len(step.Calls) > 0 {
		stop = "tool_use"
	}
	usage := map[string]any{"input_tokens": 120, "output_tokens": 30, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	if !req.Stream {
		writeAnthropicMessage(w, id, model, stop, usage, blocks)
	} else {
		streamAnthropicMessage(w, id, model, stop, blocks)
	}
	return rec
}

// anthropicBlock is one content block of a scripted answer.
type anthropicBlock struct {
	kind  string // text | tool_use
	text  string
	id    string
	name  string
	input map[string]any
}

// anthropicBlocks lays out a step as content blocks: its text, or its
// calls after any text.
func anthropicBlocks(step Step, rec Request) []anthropicBlock {
	if len(step.Calls) == 0 {
		return []anthropicBlock{{kind: "text", text: step.Text}}
	}
	var blocks []anthropicBlock
	if step.Text != "" {
		blocks = append(blocks, anthropicBlock{kind: "text", text: step.Text})
	}
	for i, c := range step.Calls {
		in := c.Input
		if in == nil {
			in = map[string]any{}
		}
		blocks = append(blocks, anthropicBlock{kind: "tool_use", id: CallID(rec.Script, rec.Step, i), name: c.Name, input: in})
	}
	return blocks
}

// writeAnthropicMessage answers a request that did not ask to stream.
func writeAnthropicMessage(w http.ResponseWriter, id, model, stop string, usage map[string]any, blocks []anthropicBlock) {
	var content []any
	for _, b := range blocks {
		if b.kind == "text" {
			content = append(content, map[string]any{"type": "text", "text": b.text})
		} else {
			content = append(content, map[string]any{"type": "tool_use", "id": b.id, "name": b.name, "input": b.input})
		}
	}
	writeJSON(w, 200, map[string]any{"id": id, "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
}

// streamAnthropicMessage answers as the Messages API streams: server-sent
// events, one start/delta/stop triple per block.
func streamAnthropicMessage(w http.ResponseWriter, id, model, stop string, blocks []anthropicBlock) {
	e := newSSE(w)
	e.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 120, "output_tokens": 1}}})
	for i, b := range blocks {
		if b.kind == "text" {
			e.event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "text_delta", "text": b.text}})
		} else {
			e.event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b.id, "name": b.name, "input": map[string]any{}}})
			e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": mustJSON(b.input)}})
		}
		e.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	e.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 30}})
	e.event("message_stop", map[string]any{"type": "message_stop"})
}

// CallID is the id the fake gives call i of a script step
// ("toolu_<script>_<step>_<i>"; Codex uses it as call_id too).
func CallID(script string, step, i int) string {
	return fmt.Sprintf("toolu_%s_%d_%d", strings.NewReplacer("-", "_", ".", "_").Replace(script), step, i)
}

func anthropicResults(content any) []ToolResult {
	blocks, _ := content.([]any)
	var out []ToolResult
	for _, b := range blocks {
		m, _ := b.(map[string]any)
		if m["type"] != "tool_result" {
			continue
		}
		id, _ := m["tool_use_id"].(string)
		isErr, _ := m["is_error"].(bool)
		out = append(out, ToolResult{ID: id, Text: textOf(m["content"]), IsError: isErr})
	}
	return out
}
