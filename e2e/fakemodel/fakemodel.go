// Package fakemodel holds scripted stand-ins for the model APIs the real
// agent clients speak, for end-to-end tests on loopback:
//
//   - [NewAnthropic]: the Anthropic Messages API (POST /v1/messages,
//     server-sent events) that Claude Code talks to through
//     ANTHROPIC_BASE_URL;
//   - [NewOpenAI]: the OpenAI Responses API (POST /v1/responses, server-sent
//     events) that Codex CLI talks to through a custom model provider;
//   - [NewGemini]: the Gemini API (POST /v1beta/models/M:streamGenerateContent
//     ?alt=sse) that Gemini CLI talks to through GOOGLE_GEMINI_BASE_URL;
//   - [NewChat]: the OpenAI Chat Completions API (POST …/chat/completions,
//     streamed chunks) that Qwen Code, Copilot CLI (BYOK), OpenCode and pi
//     talk to through a custom OpenAI-compatible endpoint.
//
// Each server plays [Script]s of tool calls. The script is chosen by a
// marker, [Marker](name), in the conversation's first user message, and the
// step by counting the tool results already in the request (the clients
// resend the whole history every time), so retries cannot desynchronise a
// script and subagents can run their own. Every request is recorded whole,
// so a test can assert what the model was told: [Server.ResultsAfter]
// returns the tool results the client sent back after a step.
//
// The servers listen on 127.0.0.1 only and never call anything.
package fakemodel

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Call is one tool call the model makes.
type Call struct {
	// Name is the tool's name as the client offers it (Claude Code "Bash",
	// Codex "exec_command", Gemini CLI "run_shell_command").
	Name string
	// Input is the tool's arguments.
	Input map[string]any
	// Raw is the input of a freeform custom tool (Codex apply_patch), sent
	// as-is instead of Input.
	Raw string
	// Custom marks a freeform custom tool call (OpenAI custom_tool_call).
	Custom bool
	// Namespace is the OpenAI tool namespace (Codex multi_agent_v1).
	Namespace string
}

// Step is one model turn: tool calls, or (with no calls) a final answer.
type Step struct {
	Calls []Call
	// Text is the final answer when there are no calls (default "Done.").
	Text string
	// Before runs once, before the server answers this step for the first
	// time: a test uses it to change the world mid-session (stop the
	// registry, restart it).
	Before func()
}

// Script is a named list of steps. After the last step the model answers
// "Done." for ever.
type Script struct {
	Name  string
	Steps []Step
}

// Marker is the text that selects a script when it appears in the first
// user message of a conversation.
func Marker(name string) string { return "[[script:" + name + "]]" }

var markerRe = regexp.MustCompile(`\[\[script:([A-Za-z0-9_.-]+)\]\]`)

// ToolResult is a tool result the client sent back to the model.
type ToolResult struct {
	// ID is the call id the result answers ("" when the API has none).
	ID string
	// Name is the tool name when the API names it (Gemini).
	Name string
	// Text is the result as the model sees it (for Gemini, the JSON of the
	// functionResponse's response object).
	Text string
	// IsError is the Anthropic is_error flag, or a Gemini "error" response.
	IsError bool
}

// Request is one recorded request.
type Request struct {
	Seq    int
	At     time.Time
	Method string
	Path   string
	Query  string
	Header http.Header
	Body   []byte
	// Script and Step say what the server played ("" and -1 for a side
	// request it answered with a plain text).
	Script string
	Step   int
	// Kind: "turn" (a scripted conversation), "side" (a utility call such
	// as a title or classifier request), "other" (not a model endpoint).
	Kind string
	// Results are the tool results in the request's last user turn.
	Results []ToolResult
}

// Server is a scripted model API on 127.0.0.1.
type Server struct {
	// URL is the base URL ("http://127.0.0.1:PORT").
	URL string
	srv *httptest.Server

	mu      sync.Mutex
	scripts map[string]Script
	reqs    []Request
	fired   map[string]bool
	handle  func(s *Server, w http.ResponseWriter, r *http.Request, body []byte) Request
}

func newServer(h func(s *Server, w http.ResponseWriter, r *http.Request, body []byte) Request, scripts []Script) *Server {
	s := &Server{scripts: map[string]Script{}, fired: map[string]bool{}, handle: h}
	for _, sc := range scripts {
		s.scripts[sc.Name] = sc
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serveHTTP)) // binds 127.0.0.1:0
	s.URL = s.srv.URL
	return s
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// AddScript adds or replaces a script.
func (s *Server) AddScript(sc Script) {
	s.mu.Lock()
	s.scripts[sc.Name] = sc
	s.mu.Unlock()
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	rec := s.handle(s, w, r, body)
	rec.At, rec.Method, rec.Path, rec.Query, rec.Header, rec.Body = time.Now(), r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Clone(), body
	s.mu.Lock()
	rec.Seq = len(s.reqs)
	s.reqs = append(s.reqs, rec)
	s.mu.Unlock()
}

// step finds the step to play and runs its Before hook the first time.
func (s *Server) step(script string, n int) (Step, bool) {
	s.mu.Lock()
	sc, ok := s.scripts[script]
	if !ok {
		s.mu.Unlock()
		return Step{}, false
	}
	if n >= len(sc.Steps) {
		s.mu.Unlock()
		return Step{Text: "Done."}, true
	}
	st := sc.Steps[n]
	key := fmt.Sprintf("%s/%d", script, n)
	first := !s.fired[key]
	s.fired[key] = true
	s.mu.Unlock()
	if first && st.Before != nil {
		st.Before()
	}
	if len(st.Calls) == 0 && st.Text == "" {
		st.Text = "Done."
	}
	return st, true
}

// Requests returns every request recorded so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Turns returns the scripted requests of one script, in arrival order.
func (s *Server) Turns(script string) []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Kind == "turn" && r.Script == script {
			out = append(out, r)
		}
	}
	return out
}

// ResultsAfter returns the tool results the client sent back for step n of
// a script: those in the first request that asked for step n+1. ok is
// false when no such request arrived.
func (s *Server) ResultsAfter(script string, n int) ([]ToolResult, bool) {
	for _, r := range s.Turns(script) {
		if r.Step == n+1 {
			return r.Results, true
		}
	}
	return nil, false
}

// Reset forgets the recorded requests and which Before hooks ran.
func (s *Server) Reset() {
	s.mu.Lock()
	s.reqs, s.fired = nil, map[string]bool{}
	s.mu.Unlock()
}

func scriptOf(texts ...string) string {
	for _, t := range texts {
		if m := markerRe.FindStringSubmatch(t); m != nil {
			return m[1]
		}
	}
	return ""
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

// sse writes server-sent events and flushes after each.
type sse struct {
	w http.ResponseWriter
	f http.Flusher
}

func newSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return &sse{w: w, f: f}
}

// event writes "event: name" (when name is not empty) and one data line.
func (e *sse) event(name string, data any) {
	b, _ := json.Marshal(data)
	if name != "" {
		fmt.Fprintf(e.w, "event: %s\n", name)
	}
	fmt.Fprintf(e.w, "data: %s\n\n", b)
	if e.f != nil {
		e.f.Flush()
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// textOf flattens a content value (a string, or blocks with "text") to text.
func textOf(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		var parts []string
		for _, e := range x {
			switch b := e.(type) {
			case map[string]any:
				if t, ok := b["text"].(string); ok {
					parts = append(parts, t)
				} else if c, ok := b["content"]; ok {
					parts = append(parts, textOf(c))
				}
			case string:
				parts = append(parts, b)
			}
		}
		return strings.Join(parts, "\n")
	case map[string]any:
		if t, ok := x["text"].(string); ok {
			return t
		}
	}
	return ""
}
