package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// NewChat serves the OpenAI Chat Completions API the way the clients that
// take a custom OpenAI-compatible endpoint use it (Qwen Code, Copilot CLI
// in BYOK mode, OpenCode, pi): POST …/chat/completions under any path
// prefix, with "stream": true answered as "data: <chunk>" lines ending in
// "data: [DONE]" (one chunk with the whole tool_calls delta, one with the
// finish_reason, one with usage), and a non-streaming request as one JSON
// chat.completion. GET …/models lists one model.
//
// The step of a scripted request is the number of assistant messages with
// tool_calls already in its messages. A request that offers no tools (a
// title request) or carries no script marker in a user message is a side
// request, answered with a short text; it consumes no step. The tool
// results of a request are its "tool" messages after the last assistant
// message.
func NewChat(scripts ...Script) *Server {
	return newServer(chatHandle, scripts)
}

type chatMessage struct {
	Role       string `json:"role"`
	Content    any    `json:"content"`
	ToolCallID string `json:"tool_call_id"`
	ToolCalls  []struct {
		ID string `json:"id"`
	} `json:"tool_calls"`
}

// ChatCallID is the id the chat stand-in gives call i of a step.
func ChatCallID(script string, step, i int) string {
	return fmt.Sprintf("call_%s_%d_%d", strings.NewReplacer("-", "_", ".", "_").Replace(script), step, i)
}

func chatHandle(s *Server, w http.ResponseWriter, r *http.Request, body []byte) Request {
	rec := Request{Kind: "other", Step: -1}
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models"):
		writeJSON(w, 200, map[string]any{"object": "list", "data": []any{map[string]any{"id": "fake-model", "object": "model", "owned_by": "fakemodel"}}})
		return rec
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/chat/completions"):
	default:
		writeJSON(w, 404, map[string]any{"error": map[string]any{"message": "not here", "type": "invalid_request_error"}})
		return rec
	}
	var req struct {
		Model    string        `json:"model"`
		Stream   bool          `json:"stream"`
		Messages []chatMessage `json:"messages"`
		Tools    []any         `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSON(w, 400, map[string]any{"error": map[string]any{"message": err.Error(), "type": "invalid_request_error"}})
		return rec
	}
	var userTexts []string
	calls, lastAssistant := 0, -1
	for i, m := range req.Messages {
		switch m.Role {
		case "user":
			userTexts = append(userTexts, textOf(m.Content))
		case "assistant":
			lastAssistant = i
			if len(m.ToolCalls) > 0 {
				calls++
			}
		}
	}
	for _, m := range req.Messages[lastAssistant+1:] {
		if m.Role == "tool" {
			rec.Results = append(rec.Results, ToolResult{ID: m.ToolCallID, Text: textOf(m.Content)})
		}
	}
	rec.Kind = "side"
	step := Step{Text: "ok"}
	if name := scriptOf(userTexts...); name != "" && len(req.Tools) > 0 {
		if st, ok := s.step(name, calls); ok {
			rec.Kind, rec.Script, rec.Step, step = "turn", name, calls, st
		}
	}
	model := req.Model
	if model == "" {
		model = "fake-model"
	}
	var toolCalls []any
	for i, c := range step.Calls {
		in := c.Input
		if in == nil {
			in = map[string]any{}
		}
		toolCalls = append(toolCalls, map[string]any{"index": i, "id": ChatCallID(rec.Script, rec.Step, i), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": mustJSON(in)}})
	}
	finish := "stop"
	if len(toolCalls) > 0 {
		finish = "tool_calls"
	}
	usage := map[string]any{"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150}
	id := fmt.Sprintf("chatcmpl_%s_%d_%d", rec.Script, rec.Step, len(s.Requests()))
	if !req.Stream {
		msg := map[string]any{"role": "assistant", "content": nil}
		if len(toolCalls) > 0 {
			msg["tool_calls"] = toolCalls
		} else {
			msg["content"] = step.Text
		}
		writeJSON(w, 200, map[string]any{"id": id, "object": "chat.completion", "created": 0, "model": model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return rec
	}
	chunk := func(choices []any, extra map[string]any) map[string]any {
		c := map[string]any{"id": id, "object": "chat.completion.chunk", "created": 0, "model": model, "choices": choices}
		for k, v := range extra {
			c[k] = v
		}
		return c
	}
	delta := map[string]any{"role": "assistant", "content": nil}
	if len(toolCalls) > 0 {
		delta["tool_calls"] = toolCalls
	} else {
		delta["content"] = step.Text
	}
	e := newSSE(w)
	e.event("", chunk([]any{map[string]any{"index": 0, "delta": delta, "finish_reason": nil}}, nil))
	e.event("", chunk([]any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": finish}}, nil))
	e.event("", chunk([]any{}, map[string]any{"usage": usage}))
	fmt.Fprint(w, "data: [DONE]\n\n")
	if e.f != nil {
		e.f.Flush()
	}
	return rec
}
