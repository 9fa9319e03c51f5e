package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/hookhttp"
)

// endpoint is the HTTP hook endpoint the registry recorded.
func (w *wsEnv) endpoint() hookhttp.Endpoint {
	w.t.Helper()
	ep, err := hookhttp.Load(w.stateDir())
	if err != nil {
		w.t.Fatal(err)
	}
	return ep
}

type httpAnswer struct {
	status int
	body   string
}

// postHook POSTs a payload as Claude Code would (or as an agent might):
// to addr with the Host header host and the Authorization header auth.
func postHook(t *testing.T, method, addr, host, path, auth, payload string) httpAnswer {
	t.Helper()
	req, err := http.NewRequest(method, "http://"+addr+path, strings.NewReader(payload))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	req.Header.Set("Content-Type", "application/json")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return httpAnswer{resp.StatusCode, string(b)}
}

func decisionOf(t *testing.T, body string) (decision, reason string) {
	t.Helper()
	var out struct {
		HSO struct {
			Decision string `json:"permissionDecision"`
			Reason   string `json:"permissionDecisionReason"`
			PR       struct {
				Behavior string `json:"behavior"`
				Message  string `json:"message"`
			} `json:"decision"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatalf("the answer is not JSON: %v\n%s", err, body)
	}
	if out.HSO.PR.Behavior != "" {
		return out.HSO.PR.Behavior, out.HSO.PR.Message
	}
	return out.HSO.Decision, out.HSO.Reason
}

// The HTTP hook answers as the command hook does, from the same gate: an
// allowed call is allowed, a refused one refused with the gate's reason.
func TestHTTPHookDecidesAsTheCommandHook(t *testing.T) {
	w := newWorkspace(t)
	w.serve()
	ep := w.endpoint()
	auth := "Bearer " + ep.Token
	cases := []struct {
		name, payload string
		edit          func(m map[string]any)
		want, reason  string
	}{
		{"allowed bash", "PreToolUse", nil, "allow", ""},
		{"allowed write", "PreToolUse.Write", nil, "allow", ""},
		{"sudo", "PreToolUse", func(m map[string]any) {
			m["tool_input"] = map[string]any{"command": "sudo id"}
		}, "deny", "sudo"},
		{"write outside the workspace", "PreToolUse.Write", func(m map[string]any) {
			m["tool_input"].(map[string]any)["file_path"] = filepath.Join(filepath.Dir(w.dir), "outside.txt")
		}, "deny", "escapes the workspace"},
		{"PermissionRequest cannot approve a denied call", "PermissionRequest", func(m map[string]any) {
			m["tool_input"] = map[string]any{"command": "sudo id"}
			m["permission_suggestions"] = []any{map[string]any{"type": "setMode", "mode": "bypassPermissions"}}
		}, "deny", "sudo"},
		{"a payload naming another cwd is still this workspace's", "PreToolUse.Write", func(m map[string]any) {
			m["cwd"] = filepath.Dir(w.dir)
			m["tool_input"].(map[string]any)["file_path"] = filepath.Join(filepath.Dir(w.dir), "elsewhere.txt")
		}, "deny", "escapes the workspace"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			payload := w.payload("claude-code", c.payload, c.edit)
			cmd := w.hook("claude-code", payload)
			a := postHook(t, http.MethodPost, ep.Addr(), ep.Addr(), hookhttp.Path+"?timeout=8", auth, payload)
			if a.status != http.StatusOK {
				t.Fatalf("status %d: %s", a.status, a.body)
			}
			got, why := decisionOf(t, a.body)
			viaCmd, _ := decisionOf(t, cmd.stdout)
			if got != c.want || viaCmd != c.want || !strings.Contains(why, c.reason) {
				t.Errorf("HTTP hook %s (%q), command hook %s; want %s (%q)\nHTTP: %s\ncommand: %+v", got, why, viaCmd, c.want, c.reason, a.body, cmd)
			}
		})
	}
	// A payload that is not one fails closed, in the client's own form.
	a := postHook(t, http.MethodPost, ep.Addr(), ep.Addr(), hookhttp.Path, auth, `{"hook_event_name":"PreToolUse","tool_name":`)
	if d, _ := decisionOf(t, a.body); a.status != http.StatusOK || d != "deny" {
		t.Errorf("a broken PreToolUse: %d %s", a.status, a.body)
	}
}

// Nobody but the hook configuration install wrote may use the endpoint:
// no token, another token (another workspace's), another scheme, another
// Host (a web page that rebound a name to 127.0.0.1), another method or
// path. Each is refused with a non-2xx status, which Claude Code, told to
// block on failure, treats as a refusal, and none reaches the registry.
func TestHTTPHookRefusesStrangers(t *testing.T) {
	w := newWorkspace(t)
	w.serve()
	other := newWorkspace(t)
	other.serve()
	ep, otherEP := w.endpoint(), other.endpoint()
	if ep.Port == otherEP.Port || ep.Token == otherEP.Token {
		t.Fatalf("two workspaces share an endpoint: %+v %+v", ep, otherEP)
	}
	payload := w.payload("claude-code", "PreToolUse", nil)
	before := w.audit()
	cases := []struct {
		name, method, host, path, auth string
		want                           int
	}{
		{"no token", http.MethodPost, ep.Addr(), hookhttp.Path, "", http.StatusUnauthorized},
		{"another workspace's token", http.MethodPost, ep.Addr(), hookhttp.Path, "Bearer " + otherEP.Token, http.StatusUnauthorized},
		{"the token without Bearer", http.MethodPost, ep.Addr(), hookhttp.Path, ep.Token, http.StatusUnauthorized},
		{"basic auth", http.MethodPost, ep.Addr(), hookhttp.Path, "Basic " + ep.Token, http.StatusUnauthorized},
		{"a prefix of the token", http.MethodPost, ep.Addr(), hookhttp.Path, "Bearer " + ep.Token[:40], http.StatusUnauthorized},
		{"a rebound name", http.MethodPost, "attacker.example:" + ep.Addr()[strings.LastIndex(ep.Addr(), ":")+1:], hookhttp.Path, "Bearer " + ep.Token, http.StatusMisdirectedRequest},
		{"localhost", http.MethodPost, "localhost", hookhttp.Path, "Bearer " + ep.Token, http.StatusMisdirectedRequest},
		{"GET", http.MethodGet, ep.Addr(), hookhttp.Path, "Bearer " + ep.Token, http.StatusMethodNotAllowed},
		{"another path", http.MethodPost, ep.Addr(), "/hooks/codex", "Bearer " + ep.Token, http.StatusNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := postHook(t, c.method, ep.Addr(), c.host, c.path, c.auth, payload)
			if a.status != c.want || strings.Contains(a.body, "permissionDecision") {
				t.Errorf("status %d (want %d): %s", a.status, c.want, a.body)
			}
		})
	}
	if after := w.audit(); after != before {
		t.Errorf("a refused request reached the registry: the journal grew by\n%s", strings.TrimPrefix(after, before))
	}
}

// A confined run cannot reach the HTTP hooks (its tree connects only to
// the egress proxy) and they carry no run ticket: run refuses up front,
// saying how to install hooks it can use, rather than start a tree whose
// every call would be refused.
func TestRunRefusesHTTPHooks(t *testing.T) {
	w := newWorkspace(t)
	if r := w.run("", "install", "claude-code", "--command", binary); r.code != 0 {
		t.Fatalf("install: %+v", r)
	}
	r := w.run("", "run", "--client", "claude-code", "--", "true")
	if r.code != exitRefused || !strings.Contains(r.stderr, "--command-hooks") {
		t.Fatalf("run with HTTP hooks installed: %+v", r)
	}
	if r := w.run("", "install", "claude-code", "--command", binary, "--command-hooks"); r.code != 0 {
		t.Fatalf("install --command-hooks: %+v", r)
	}
	if r := w.run("", "run", "--client", "claude-code", "--", "true"); strings.Contains(r.stderr, "HTTP hooks") {
		t.Fatalf("run still refuses after --command-hooks: %+v", r)
	}
}

// A local process with no token that holds more connections to the HTTP
// hook endpoint than it keeps open cannot shut Claude Code's hooks out:
// once they have been idle a moment, a hook's new connection makes room
// and is answered (here, an allow the lease gives), and the journal stays
// valid. Before, every hook was refused while the connections were held,
// and Claude Code blocked every call.
func TestHTTPHookOutlivesASquatter(t *testing.T) {
	w := newWorkspace(t)
	w.serve()
	ep := w.endpoint()
	for range hookhttp.MaxConnections + 64 {
		c, err := net.Dial("tcp4", ep.Addr())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	payload := w.payload("claude-code", "PreToolUse", nil)
	// Well within the server's 10 s header timeout, which alone would
	// free the held connections eventually.
	deadline := time.Now().Add(5 * time.Second)
	for {
		a, err := tryPost(ep, payload)
		if err == nil {
			if a.status != http.StatusOK {
				t.Fatalf("status %d: %s", a.status, a.body)
			}
			if d, _ := decisionOf(t, a.body); d != "allow" {
				t.Fatalf("decision %q: %s", d, a.body)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no hook answered while the connections were held: %v", err)
		}
		time.Sleep(50 * time.Millisecond) // until the held connections are old enough to make room
	}
	if r := w.run("", "journal", "verify"); r.code != 0 {
		t.Fatalf("journal verify: %+v", r)
	}
}

// tryPost POSTs a hook with the token, returning the transport's error.
func tryPost(ep hookhttp.Endpoint, payload string) (httpAnswer, error) {
	req, err := http.NewRequest(http.MethodPost, ep.Base()+"?timeout=30", strings.NewReader(payload))
	if err != nil {
		return httpAnswer{}, err
	}
	req.Header.Set("Authorization", "Bearer "+ep.Token)
	resp, err := (&http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	if err != nil {
		return httpAnswer{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return httpAnswer{resp.StatusCode, string(b)}, err
}
