package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/hookhttp"
	"github.com/leasedeck/leasedeck/registry/wire"
)

// Claude Code's HTTP hooks are served by the registry, a bounded number at
// once (hookhttp.MaxInFlight), and a hook waiting for a human holds its
// place. An agent that reads the endpoint's token can post calls that need
// a human from as many sessions as it likes (each its own lease tree, so
// the cap per tree does not stop it): at most half of those places wait,
// every call past that is denied at once (journaled), and another
// session's hook is answered.
func TestHTTPHooksHeldForAHumanLeaveRoomForOthers(t *testing.T) {
	w := newWorkspace(t)
	w.serve()
	ep := w.endpoint()
	watch, err := wire.Dial(w.sock(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close()
	type answer struct {
		status int
		body   string
	}
	post := func(payload string) answer {
		req, _ := http.NewRequest(http.MethodPost, "http://"+ep.Addr()+hookhttp.Path+"?timeout=60", strings.NewReader(payload))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+ep.Token)
		resp, err := (&http.Client{Timeout: 90 * time.Second}).Do(req)
		if err != nil {
			return answer{0, err.Error()}
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return answer{resp.StatusCode, string(b)}
	}
	call := func(session, command string) string {
		return w.payload("claude-code", "PreToolUse", func(m map[string]any) {
			m["session_id"] = session
			m["tool_input"] = map[string]any{"command": command}
		})
	}
	answers := make(chan answer, 256)
	sent, answered, held := 0, 0, 0
	for s := range 16 {
		// The session begins with an ordinary call, as a client's would.
		if a := post(call(fmt.Sprintf("flooding-session-%d", s), "ls")); !strings.Contains(a.body, `"allow"`) {
			t.Fatalf("session %d begins: %d %s", s, a.status, a.body)
		}
		for k := range 5 { // the cap per lease
			payload := call(fmt.Sprintf("flooding-session-%d", s), fmt.Sprintf("rm -rf src/%d", k))
			go func() { answers <- post(payload) }()
			sent++
		}
		// Every call sent is held (pending) or answered before the next
		// session's.
		for deadline := time.Now().Add(30 * time.Second); ; {
			for drained := false; !drained; {
				select {
				case a := <-answers:
					answered++
					if a.status != http.StatusOK || !strings.Contains(a.body, `"deny"`) || !strings.Contains(a.body, "HTTP hooks") {
						victim := post(call("other-session", "ls"))
						t.Fatalf("call %d, past the cap: %d %s (want a deny naming the HTTP hooks' cap, at once); another session's hook now gets: %d %s",
							sent, a.status, a.body, victim.status, victim.body)
					}
				default:
					drained = true
				}
			}
			watch.SetDeadline(time.Now().Add(10 * time.Second))
			st, err := watch.Status(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if held = st.PendingApprovals; held+answered == sent {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("after %d calls: %d held, %d answered", sent, held, answered)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	if held != hookhttp.MaxInFlight/2 {
		t.Fatalf("%d calls: %d held, %d answered; want %d held", sent, held, answered, hookhttp.MaxInFlight/2)
	}
	a := post(call("other-session", "ls"))
	if d, why := decisionOf(t, a.body); a.status != http.StatusOK || d != "allow" {
		t.Fatalf("another session's ordinary call: %d %s %s", a.status, d, why)
	}
}
