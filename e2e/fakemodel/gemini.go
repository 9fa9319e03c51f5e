package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// NewGemini serves the Gemini API as Gemini CLI uses it with
// GOOGLE_GEMINI_BASE_URL: POST /v1beta/models/{model}:streamGenerateContent
// ?alt=sse, answered with "data: <GenerateContentResponse>" lines, and
// POST …:generateContent (the router's classifier call), answered with a
// JSON body. countTokens and GET …/models are answered too.
//
// The step of a scripted request is the number of model turns in its
// contents that hold a functionCall.
func NewGemini(scripts ...Script) *Server {
	return newServer(geminiHandle, scripts)
}

type geminiPart struct {
	Text         string `json:"text,omitempty"`
	FunctionCall *struct {
		Name string `json:"name"`
	} `json:"functionCall,omitempty"`
	FunctionResponse *struct {
		ID       string         `json:"id"`
		Name     string         `json:"name"`
		Response map[string]any `json:"response"`
	} `json:"functionResponse,omitempty"`
}

func geminiHandle(s *Server, w http.ResponseWriter, r *http.Request, body []byte) Request {
	rec := Request{Kind: "other", Step: -1}
	path := r.URL.Path
	switch {
	case r.Method == http.MethodGet && strings.Contains(path, "/models"):
		writeJSON(w, 200, map[string]any{"models": []any{map[string]any{"name": "models/gemini-2.5-flash"}}})
		return rec
	case r.Method == http.MethodPost && strings.HasSuffix(path, ":countTokens"):
		writeJSON(w, 200, map[string]any{"totalTokens": 100})
		return rec
	case r.Method == http.MethodPost && strings.HasSuffix(path, ":generateContent"):
		rec.Kind = "side"
		writeJSON(w, 200, map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model",
			"parts": []any{map[string]any{"text": `{"complexity_reasoning":"scripted","complexity_score":10}`}}},
			"finishReason": "STOP", "index": 0}}})
		return rec
	case r.Method == http.MethodPost && strings.HasSuffix(path, ":streamGenerateContent"):
	default:
		writeJSON(w, 404, map[string]any{"error": map[string]any{"code": 404, "message": "not here", "status": "NOT_FOUND"}})
		return rec
	}
	model := path[strings.LastIndex(path, "/")+1 : strings.LastIndex(path, ":")]
	var req struct {
		Contents []struct {
			Role  string       `json:"role"`
			Parts []geminiPart `json:"parts"`
		} `json:"contents"`
		Tools []any `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSON(w, 400, map[string]any{"error": map[string]any{"code": 400, "message": err.Error(), "status": "INVALID_ARGUMENT"}})
		return rec
	}
	var userTexts []string
	calls := 0
	for _, c := range req.Contents {
		hasCall := false
		for _, p := range c.Parts {
			if c.Role == "user" && p.Text != "" {
				userTexts = append(userTexts, p.Text)
			}
			if p.FunctionCall != nil {
				hasCall = true
			}
		}
		if c.Role == "model" && hasCall {
			calls++
		}
	}
	if n := len(req.Contents); n > 0 && req.Contents[n-1].Role == "user" {
		for _, p := range req.Contents[n-1].Parts {
			if fr := p.FunctionResponse; fr != nil {
				_, isErr := fr.Response["error"]
				rec.Results = append(rec.Results, ToolResult{ID: fr.ID, Name: fr.Name, Text: mustJSON(fr.Response), IsError: isErr})
			}
		}
	}
	rec.Kind = "side"
	step := Step{Text: "ok"}
	if name := scriptOf(userTexts...); name != "" && len(req.Tools) > 0 {
		if st, ok := s.step(name, calls); ok {
			rec.Kind, rec.Script, rec.Step, step = "turn", name, calls, st
		}
	}
	var parts []any
	if len(step.Calls) == 0 {
		parts = append(parts, map[string]any{"text": step.Text})
	}
	for i, c := range step.Calls {
		in := c.Input
		if in == nil {
			in = map[string]any{}
		}
		parts = append(parts, map[string]any{"functionCall": map[string]any{"name": c.Name, "args": in, "id": CallID(rec.Script, rec.Step, i)}})
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	ev := map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": 120, "candidatesTokenCount": 30, "totalTokenCount": 150},
		"modelVersion":  model,
	}
	fmt.Fprintf(w, "data: %s\r\n\r\n", mustJSON(ev))
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	return rec
}
