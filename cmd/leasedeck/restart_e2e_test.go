package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// hookCall is one `leasedeck hook claude-code` PreToolUse as a client
// makes it, and what the hook answered.
type hookCall struct {
	command  string
	decision string
	reason   string
	err      error
}

// claudeHook runs one PreToolUse for `command` in session through the
// built binary, as Claude Code would, with the client's hook timeout.
func (w *wsEnv) claudeHook(session, command string, timeoutSec int) hookCall {
	stdin := w.payload("claude-code", "PreToolUse", func(m map[string]any) {
		m["session_id"] = session
		m["tool_input"] = map[string]any{"command": command}
	})
	cmd := exec.Command(binary, "hook", "claude-code", "--workspace", w.dir, "--timeout", fmt.Sprint(timeoutSec))
	var out, errb bytes.Buffer
	cmd.Dir, cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = w.dir, w.env, strings.NewReader(stdin), &out, &errb
	c := hookCall{command: command}
	if err := cmd.Run(); err != nil {
		c.err = fmt.Errorf("%v: %s", err, errb.String())
		return c
	}
	var ans struct {
		Hook struct {
			Decision string `json:"permissionDecision"`
			Reason   string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(out.Bytes(), &ans); err != nil {
		c.err = fmt.Errorf("answer is not JSON: %q", out.String())
		return c
	}
	c.decision, c.reason = ans.Hook.Decision, ans.Hook.Reason
	return c
}

// kill ends the running serve with sig and waits for it to be gone (a
// SIGKILL leaves its socket file behind, as a crash does).
func (w *wsEnv) kill(sig syscall.Signal) {
	w.t.Helper()
	if err := w.serv.Process.Signal(sig); err != nil {
		w.t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { w.serv.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		w.serv.Process.Kill()
		w.t.Fatalf("serve did not end on %v", sig)
	}
	w.serv = nil
}

// auditSummaries counts the gate lines of the audit journal by decision
// and summary.
func (w *wsEnv) auditSummaries(t *testing.T) map[string]int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(w.dir, ".leasedeck", "journal", "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, line := range bytes.Split(b, []byte("\n")) {
		var ev struct {
			Type    string `json:"event_type"`
			Summary string `json:"summary"`
		}
		if json.Unmarshal(line, &ev) == nil && strings.HasPrefix(ev.Type, "leasedeck.gate.") {
			out[ev.Type+" "+ev.Summary]++
		}
	}
	return out
}

// A restart of the registry while 8 clients are calling loses no call:
// each hook that starts while `serve` is gone waits for it, each hook
// whose connection the stop (SIGTERM) or the crash (SIGKILL) cut asks the
// registry that comes back, and every call is answered "allow" with its
// audit line in the journal.
func TestRestartWhileEightClientsCallLosesNoCall(t *testing.T) {
	w := newWorkspace(t)
	w.serve()
	const clients = 8
	var calls atomic.Int64
	stop := make(chan struct{})
	var mu sync.Mutex
	var results []hookCall
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				c := w.claudeHook(fmt.Sprintf("restart-session-%d", i), fmt.Sprintf("echo c%d-%d", i, n), 20)
				mu.Lock()
				results = append(results, c)
				mu.Unlock()
				calls.Add(1)
			}
		}()
	}
	// Each restart comes once the clients have made calls against the
	// registry that is up (the counter moves only when a hook ends).
	progress := func(more int64) {
		t.Helper()
		want := calls.Load() + more
		deadline := time.Now().Add(60 * time.Second)
		for calls.Load() < want {
			if time.Now().After(deadline) {
				t.Fatalf("the clients made no progress: %d calls, waiting for %d", calls.Load(), want)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	const restarts = 10
	for r := range restarts {
		sig := syscall.SIGTERM
		if r%2 == 1 {
			sig = syscall.SIGKILL
		}
		progress(2 * clients)
		w.kill(sig)
		w.serve()
	}
	progress(2 * clients)
	close(stop)
	wg.Wait()

	journaled := w.auditSummaries(t)
	lost := 0
	for _, c := range results {
		if c.err != nil || c.decision != "allow" {
			lost++
			if lost <= 5 {
				t.Errorf("call %q: %s (%s) %v", c.command, c.decision, c.reason, c.err)
			}
			continue
		}
		if journaled["leasedeck.gate.allowed Bash: "+c.command] == 0 {
			t.Errorf("call %q was answered allow but its audit line is not in the journal", c.command)
		}
	}
	if lost > 0 {
		t.Errorf("%d of %d calls across %d restarts were not answered allow", lost, len(results), restarts)
	}
	if r := w.run("", "journal", "verify"); r.code != 0 {
		t.Fatalf("journal verify after the restarts: %+v", r)
	}
	t.Logf("%d calls from %d clients across %d restarts (SIGTERM and SIGKILL in turn)", len(results), clients, restarts)
}
