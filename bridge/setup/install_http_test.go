package setup

import (
	"strings"
	"testing"
)

func httpOpts() InstallOptions {
	o := installOpts("claude-code")
	o.FailClosed = true
	o.HTTP = &HTTPHooks{Base: "http://127.0.0.1:43117" + ClaudeHTTPPath, Token: strings.Repeat("ab", 32), NoProxy: "corp.example, 127.0.0.1"}
	return o
}

// HTTP hooks for every event but SessionStart, which stays the command
// hook; the gates and the turn's prompt block on failure; the token is in
// the header; loopback never goes through a proxy, and the user's own
// exceptions are kept.
func TestInstallHTTPHooks(t *testing.T) {
	existing := []byte(`{"env":{"NO_PROXY":"intranet.local"},"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"my-own-check"}]}]}}`)
	res, err := Install("claude-code", existing, httpOpts())
	if err != nil {
		t.Fatal(err)
	}
	m := decodeStd(t, res.Bytes)
	hooks := m["hooks"].(map[string]any)
	for _, spec := range claudeEvents() {
		groups := hooks[spec.Native].([]any)
		last := groups[len(groups)-1].(map[string]any)["hooks"].([]any)[0].(map[string]any)
		switch {
		case spec.Native == "SessionStart":
			if last["type"] != "command" || last["command"] != "leasedeck hook claude-code" {
				t.Errorf("SessionStart: %v", last)
			}
		default:
			if last["type"] != "http" || !strings.HasPrefix(last["url"].(string), "http://127.0.0.1:43117/hooks/claude-code?timeout=") {
				t.Errorf("%s: %v", spec.Native, last)
			}
			if h := last["headers"].(map[string]any); h["Authorization"] != "Bearer "+strings.Repeat("ab", 32) {
				t.Errorf("%s headers: %v", spec.Native, h)
			}
			blocks := last["onFailure"] == "block"
			if want := spec.Gate || spec.Native == "UserPromptSubmit"; blocks != want {
				t.Errorf("%s onFailure block %v, want %v", spec.Native, blocks, want)
			}
			if _, ok := last["command"]; ok {
				t.Errorf("%s: an HTTP hook with a command: %v", spec.Native, last)
			}
		}
	}
	if !strings.Contains(string(res.Bytes), "my-own-check") {
		t.Errorf("the user's hook was dropped:\n%s", res.Bytes)
	}
	env := m["env"].(map[string]any)
	for _, k := range []string{"NO_PROXY", "no_proxy"} {
		if env[k] != "intranet.local,corp.example,127.0.0.1,localhost,::1" && k == "NO_PROXY" {
			t.Errorf("env.%s = %v", k, env[k])
		}
		if !strings.Contains(env[k].(string), "127.0.0.1") {
			t.Errorf("env.%s = %v", k, env[k])
		}
	}
	if !HasHTTPHooks(res.Bytes) || HasHTTPHooks(existing) {
		t.Error("HasHTTPHooks")
	}
	again, err := Install("claude-code", res.Bytes, httpOpts())
	if err != nil || again.Changed || string(again.Bytes) != string(res.Bytes) {
		t.Errorf("a second install changed the file: %v %+v", err, again)
	}
}

// Switching between command and HTTP hooks replaces leasedeck's entries
// whole, both ways, leaving no member of the other kind; a port that
// changed (the state directory was lost) is brought up to date, not
// doubled.
func TestInstallSwitchesHookKind(t *testing.T) {
	cmd, err := Install("claude-code", nil, installOpts("claude-code"))
	if err != nil {
		t.Fatal(err)
	}
	toHTTP, err := Install("claude-code", cmd.Bytes, httpOpts())
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(toHTTP.Bytes), `"type": "http"`); n != len(claudeEvents())-1 {
		t.Errorf("%d HTTP hooks after switching, want %d:\n%s", n, len(claudeEvents())-1, toHTTP.Bytes)
	}
	if n := strings.Count(string(toHTTP.Bytes), `"command": `); n != 1 {
		t.Errorf("%d commands left after switching to HTTP, want 1 (SessionStart):\n%s", n, toHTTP.Bytes)
	}
	moved := httpOpts()
	moved.HTTP.Base = "http://127.0.0.1:50000" + ClaudeHTTPPath
	portChanged, err := Install("claude-code", toHTTP.Bytes, moved)
	if err != nil || strings.Contains(string(portChanged.Bytes), ":43117") {
		t.Errorf("the old port stayed: %v\n%s", err, portChanged.Bytes)
	}
	back, err := Install("claude-code", portChanged.Bytes, installOpts("claude-code"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(back.Bytes), `"http"`) || strings.Contains(string(back.Bytes), "Authorization") {
		t.Errorf("HTTP hook members left after switching back:\n%s", back.Bytes)
	}
	if n := strings.Count(string(back.Bytes), `"command": "leasedeck hook claude-code"`); n != len(claudeEvents()) {
		t.Errorf("%d command hooks after switching back, want %d", n, len(claudeEvents()))
	}
}

func TestIsOurHTTPHook(t *testing.T) {
	for u, want := range map[string]bool{
		"http://127.0.0.1:43117/hooks/claude-code?timeout=150": true,
		"http://127.0.0.1:1/hooks/claude-code":                 true,
		"http://127.0.0.1:x/hooks/claude-code":                 false,
		"http://localhost:43117/hooks/claude-code":             false,
		"https://hooks.example.com/hooks/claude-code":          false,
		"http://127.0.0.1:43117/other":                         false,
	} {
		h := &jsonObject{}
		h.set("type", "http")
		h.set("url", u)
		if got := isOurHTTPHook(h); got != want {
			t.Errorf("%s: %v, want %v", u, got, want)
		}
	}
}
