package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/e2e/fakemodel"
)

// The cockpit path of issue 7: a call named in approvals waits, and a human
// decides it from the cockpit (the built binary with no arguments, in a
// real terminal under tmux) attached to the `leasedeck serve` the real
// Claude Code's hooks talk to.

const cockpitDenyReason = "cockpit says no: no network from this session"

// cockpitScreen is a cockpit running in its own tmux server. Its methods
// return errors rather than failing the test: they run on a goroutine
// while the client runs on the test's.
type cockpitScreen struct {
	socket, name string
}

func (c *cockpitScreen) tmux(args ...string) (string, error) {
	out, err := exec.Command("tmux", append([]string{"-S", c.socket}, args...)...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("tmux %v: %v: %s", args, err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}

func (c *cockpitScreen) screen() string {
	out, err := c.tmux("capture-pane", "-p", "-t", c.name)
	if err != nil {
		return err.Error()
	}
	return out
}

func (c *cockpitScreen) keys(keys ...string) error {
	_, err := c.tmux(append([]string{"send-keys", "-t", c.name}, keys...)...)
	return err
}

func (c *cockpitScreen) text(s string) error {
	_, err := c.tmux("send-keys", "-t", c.name, "-l", s)
	return err
}

// wait polls the screen until ok holds, and returns it.
func (c *cockpitScreen) wait(what string, timeout time.Duration, ok func(string) bool) (string, error) {
	deadline := time.Now().Add(timeout)
	for {
		sc := c.screen()
		if ok(sc) {
			return sc, nil
		}
		if time.Now().After(deadline) {
			return sc, fmt.Errorf("waited %s for %s; the screen:\n%s", timeout, what, sc)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// startCockpit runs the cockpit in the workspace under tmux, with the
// workspace's environment (so it finds the operator token), and waits
// until it has attached to the running registry.
func startCockpit(t *testing.T, e *env) *cockpitScreen {
	t.Helper()
	// Its own tmux server, on a socket of its own: nothing is shared with
	// the user's tmux or another test.
	c := &cockpitScreen{socket: filepath.Join(os.TempDir(), fmt.Sprintf("leasedeck-e2e-tmux-%d-%d", os.Getpid(), time.Now().UnixNano())), name: "cockpit"}
	var vars []string
	for _, v := range e.vars {
		if strings.HasPrefix(v, "TERM=") {
			continue // the cockpit draws into tmux's terminal
		}
		vars = append(vars, shellQuote(v))
	}
	vars = append(vars, "TERM=xterm-256color")
	cmd := fmt.Sprintf("cd %s && exec env -i %s %s", shellQuote(e.ws), strings.Join(vars, " "), shellQuote(binary))
	if _, err := c.tmux("new-session", "-d", "-s", c.name, "-x", "160", "-y", "48", cmd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.tmux("kill-server")
		os.Remove(c.socket)
	})
	if sc, err := c.wait("the cockpit to attach to `leasedeck serve`", 15*time.Second, func(sc string) bool {
		return strings.Contains(sc, "attached to pid")
	}); err != nil {
		t.Fatal(err)
	} else if !strings.Contains(sc, fmt.Sprint(e.servePID())) {
		t.Fatalf("the cockpit is not attached to leasedeck serve (pid %d):\n%s", e.servePID(), sc)
	}
	return c
}

func (e *env) servePID() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.serve == nil || e.serve.Process == nil {
		return 0
	}
	return e.serve.Process.Pid
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// approvalModal waits for the approval modal showing a call whose summary
// contains call, and for the key guard to pass.
func (c *cockpitScreen) approvalModal(call string) (string, error) {
	sc, err := c.wait("the approval modal for "+call, 30*time.Second, func(sc string) bool {
		return strings.Contains(sc, "APPROVAL NEEDED") && strings.Contains(sc, call)
	})
	if err != nil {
		return sc, err
	}
	// The modal ignores keys for 400 ms after it pops up.
	time.Sleep(600 * time.Millisecond)
	return c.wait("the key guard to pass", 5*time.Second, func(sc string) bool {
		return !strings.Contains(sc, "keys ignored for a moment")
	})
}

// decided waits for the audit journal's decision on the approval whose
// summary contains call.
func (e *env) decided(call string, timeout time.Duration) (map[string]any, error) {
	deadline := time.Now().Add(timeout)
	for {
		for _, l := range strings.Split(e.readAudit(), "\n") {
			if !strings.Contains(l, `"event_type":"leasedeck.approval.decided"`) {
				continue
			}
			var rec map[string]any
			if json.Unmarshal([]byte(l), &rec) != nil {
				continue
			}
			if s, _ := rec["summary"].(string); strings.Contains(s, call) {
				return rec, nil
			}
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("no leasedeck.approval.decided for %q in the audit journal after %s", call, timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// readAudit reads the audit journal without failing the test (it is
// called off the test's goroutine).
func (e *env) readAudit() string {
	b, _ := os.ReadFile(e.path(".leasedeck/journal/audit.jsonl"))
	return string(b)
}

// TestCockpitApprovesAndDenies runs the real Claude Code through a session
// of two held calls while a cockpit is attached to the registry: the human
// approves the first with y and denies the second with n, a typed reason
// and enter.
func TestCockpitApprovesAndDenies(t *testing.T) {
	requireE2E(t)
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not on PATH (CI installs it; locally: apt-get install -y tmux); skipping the cockpit end-to-end test")
	}
	claude := client(t, claudeClient)
	start := time.Now()
	e := governedWorkspace(t, "claude-code")
	e.install("claude-code")
	cockpit := startCockpit(t, e)

	const (
		approveCall = "rm -rf build"
		denyCall    = "curl -s -o src/fetched.txt http://127.0.0.1:9/"
	)
	srv := fakemodel.NewAnthropic(fakemodel.Script{Name: "main", Steps: []fakemodel.Step{
		{Calls: []fakemodel.Call{bash(approveCall)}},
		{Calls: []fakemodel.Call{bash(denyCall)}},
		{Text: "All done."},
	}})
	defer srv.Close()

	// The human at the cockpit, on its own goroutine: what it saw and
	// what went wrong come back on done.
	type seen struct {
		buildWhilePending bool // build/ still there when the modal showed
		approveModal      string
		denyModal         string
		err               error
	}
	done := make(chan seen, 1)
	go func() {
		var s seen
		defer func() {
			if s.err != nil {
				// Unstick the client: with the registry gone, the
				// waiting hook fails closed at once.
				e.stopRegistry()
			}
			done <- s
		}()
		if s.approveModal, s.err = cockpit.approvalModal(approveCall); s.err != nil {
			return
		}
		s.buildWhilePending = exists(e.path("build/artifact.o"))
		if s.err = cockpit.keys("y"); s.err != nil {
			return
		}
		if _, s.err = e.decided(approveCall, 10*time.Second); s.err != nil {
			s.err = fmt.Errorf("%v; the screen:\n%s", s.err, cockpit.screen())
			return
		}
		if s.denyModal, s.err = cockpit.approvalModal("curl"); s.err != nil {
			return
		}
		if s.err = cockpit.keys("n"); s.err != nil {
			return
		}
		if _, s.err = cockpit.wait("the deny reason prompt", 5*time.Second, func(sc string) bool {
			return strings.Contains(sc, "Deny reason")
		}); s.err != nil {
			return
		}
		if s.err = cockpit.text(cockpitDenyReason); s.err != nil {
			return
		}
		if _, s.err = cockpit.wait("the typed reason", 5*time.Second, func(sc string) bool {
			return contains(sc, cockpitDenyReason)
		}); s.err != nil {
			return
		}
		if s.err = cockpit.keys("Enter"); s.err != nil {
			return
		}
		if _, s.err = e.decided("curl", 10*time.Second); s.err != nil {
			s.err = fmt.Errorf("%v; the screen:\n%s", s.err, cockpit.screen())
		}
	}()

	run := e.runClient(2*time.Minute, claudeVars(e, srv.URL), claude, "-p", "Clean up. "+fakemodel.Marker("main"), "--model", "claude-sonnet-4-5")
	var got seen
	select {
	case got = <-done:
	case <-time.After(30 * time.Second):
		got.err = errors.New("the cockpit driver did not finish")
	}
	t.Logf("claude -p: exit %d in %s", run.code, run.took.Round(time.Millisecond))
	if testing.Verbose() {
		t.Logf("the approval modal for %s:\n%s", approveCall, got.approveModal)
		t.Logf("the approval modal for the curl:\n%s", got.denyModal)
	}
	if got.err != nil {
		t.Fatalf("at the cockpit: %v\nclaude stdout: %s\nstderr: %s", got.err, tail(run.stdout, 1000), tail(run.stderr, 1000))
	}
	if run.code != 0 {
		t.Fatalf("claude -p exit %d\nstdout: %s\nstderr: %s", run.code, run.stdout, run.stderr)
	}
	if !strings.Contains(run.stdout, "All done.") {
		t.Errorf("the session did not reach the end of its script; stdout: %s", run.stdout)
	}
	result := func(step int) fakemodel.ToolResult {
		t.Helper()
		rs, ok := srv.ResultsAfter("main", step)
		if !ok || len(rs) != 1 || rs[0].ID != fakemodel.CallID("main", step, 0) {
			t.Fatalf("step %d: want one tool result for %s in the model's next request, got %+v (requests: %d)", step, fakemodel.CallID("main", step, 0), rs, len(srv.Requests()))
		}
		return rs[0]
	}
	decision := func(call string) (details map[string]any, reasoning string) {
		t.Helper()
		rec, err := e.decided(call, 0)
		if err != nil {
			t.Fatal(err)
		}
		details, _ = rec["details"].(map[string]any)
		reasoning, _ = rec["reasoning"].(string)
		return details, reasoning
	}

	t.Run("approved from the cockpit, then runs", func(t *testing.T) {
		for _, want := range []string{"claude-code", "Bash", "command:rm"} {
			if !strings.Contains(got.approveModal, want) {
				t.Errorf("the approval modal does not show %q:\n%s", want, got.approveModal)
			}
		}
		if !got.buildWhilePending {
			t.Error("build/ was already gone while the approval was on screen: the call did not wait")
		}
		d, _ := decision(approveCall)
		if d["outcome"] != "approved" || d["by"] != "cockpit" || d["scope"] != "once" {
			t.Errorf("the decision in the audit journal: %v", d)
		}
		if n := len(e.auditLines(`"event_type":"leasedeck.approval.decided"`, `"by":"cockpit"`, `"outcome":"approved"`)); n != 1 {
			t.Errorf("%d approvals by the cockpit in the audit journal, want 1", n)
		}
		r := result(0)
		if r.IsError {
			t.Errorf("the approved call reported an error to the model: %s", r.Text)
		}
		if exists(e.path("build")) {
			t.Errorf("build/ still exists after the approved rm -rf build (result: %s)", r.Text)
		}
	})

	t.Run("denied from the cockpit with a reason", func(t *testing.T) {
		if !strings.Contains(got.denyModal, "command:curl") {
			t.Errorf("the approval modal does not name command:curl:\n%s", got.denyModal)
		}
		d, reasoning := decision("curl")
		if d["outcome"] != "denied" || d["by"] != "cockpit" || reasoning != cockpitDenyReason {
			t.Errorf("the decision in the audit journal: %v, reasoning %q", d, reasoning)
		}
		r := result(1)
		if !contains(r.Text, cockpitDenyReason) {
			t.Errorf("the model's next request does not carry the cockpit's reason:\n%s", r.Text)
		}
		if !r.IsError {
			t.Errorf("the denied call's tool result is not an error: %s", r.Text)
		}
		if exists(e.path("src/fetched.txt")) {
			t.Error("the denied curl ran: src/fetched.txt exists")
		}
		if b, err := os.ReadFile(e.path("src/hello.txt")); err != nil || string(b) != "hello from the workspace\n" {
			t.Errorf("src/hello.txt changed: %v %q", err, b)
		}
	})

	t.Run("the cockpit shows both decisions", func(t *testing.T) {
		if _, err := cockpit.wait("no approval left on screen", 5*time.Second, func(sc string) bool {
			return !strings.Contains(sc, "APPROVAL NEEDED") && strings.Contains(sc, "attached to pid")
		}); err != nil {
			t.Error(err)
		}
		if r := e.leasedeck("", "approvals", "--json"); r.code != 0 || strings.TrimSpace(r.stdout) != "[]" && strings.TrimSpace(r.stdout) != "null" {
			t.Errorf("approvals still pending: %+v", r)
		}
		e.checkJournal()
	})
	t.Logf("cockpit end to end in %s", time.Since(start).Round(time.Millisecond))
}
