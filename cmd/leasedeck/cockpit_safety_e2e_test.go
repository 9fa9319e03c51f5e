package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The cockpit's safety in a real terminal: the built binary runs
// `leasedeck demo` in tmux, and the test types and reads the screen as a
// person would — typing through an arriving request, reading a held
// call in full, denying many requests at once from the approvals view,
// reading a revoked lease's story, and quitting while sessions are live.
// Every decision is checked in the journal.

// demoSession starts the demo in tmux and returns it with its journal.
func demoSession(t *testing.T, agents int) (s *tmuxSession, audit, leases string) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (CI installs it; locally: apt-get install -y tmux); skipping the terminal end-to-end test")
	}
	info := filepath.Join(t.TempDir(), "demo.json")
	s = &tmuxSession{t: t, name: fmt.Sprintf("leasedeck-e2e-%s-%d", strings.ToLower(t.Name()), os.Getpid())}
	exec.Command("tmux", "kill-session", "-t", s.name).Run()
	cmd := fmt.Sprintf("env %s=%s %s demo --agents %d --pace 250ms", EnvDemoInfo, info, binary, agents)
	s.tmux("new-session", "-d", "-s", s.name, "-x", "160", "-y", "48", cmd)
	t.Cleanup(func() {
		if s.alive() {
			exec.Command("tmux", "kill-session", "-t", s.name).Run()
		}
	})
	var demo struct{ Journal string }
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if b, err := os.ReadFile(info); err == nil && json.Unmarshal(b, &demo) == nil && demo.Journal != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the demo wrote no %s; the screen:\n%s", EnvDemoInfo, s.screen())
		}
	}
	s.waitScreen("the lease tree", 20*time.Second, func(sc string) bool { return strings.Contains(sc, "claude-code #1") })
	// The demo removes its workspace when it ends: hard links keep the
	// journal files (the writer appends to the same inodes) readable
	// after the quit.
	keep := t.TempDir()
	for _, name := range []string{"audit.jsonl", "leases.jsonl"} {
		if err := os.Link(filepath.Join(demo.Journal, name), filepath.Join(keep, name)); err != nil {
			t.Fatalf("keeping the journal: %v", err)
		}
	}
	return s, filepath.Join(keep, "audit.jsonl"), filepath.Join(keep, "leases.jsonl")
}

func eventsOf(t *testing.T, path, eventType string) []map[string]any {
	var out []map[string]any
	for _, l := range journalLines(t, path) {
		if l["event_type"] == eventType {
			out = append(out, l)
		}
	}
	return out
}

func TestCockpitTypingThroughAnArrivingRequestDecidesNothing(t *testing.T) {
	s, audit, _ := demoSession(t, 4)
	// Type filters, as fast as a person does, until requests have
	// arrived, then twice more: every key lands in the filter, none in a
	// request.
	typeRound := func() {
		for _, part := range []string{"/status:ready", "Enter", "/tool:WebFetch", "Enter", "/tool:Bash", "Enter"} {
			if part == "Enter" {
				s.keys("Enter")
				continue
			}
			for _, r := range part {
				s.text(string(r))
			}
		}
	}
	rounds, after := 0, -1
	for deadline := time.Now().Add(45 * time.Second); after < 2; rounds++ {
		if time.Now().After(deadline) {
			t.Fatalf("no approval request arrived while typing; the screen:\n%s", s.screen())
		}
		typeRound()
		if after >= 0 || len(eventsOf(t, audit, "leasedeck.approval.requested")) > 0 {
			after++
		}
	}
	if got := eventsOf(t, audit, "leasedeck.approval.decided"); len(got) != 0 {
		t.Fatalf("typing decided %d request(s): %v\nthe screen:\n%s", len(got), got, s.screen())
	}
	// Every key reached the filter (the terminal may still be catching
	// up with them).
	s.waitScreen("the last filter", 10*time.Second, func(sc string) bool {
		return strings.Contains(sc, `filter "tool:Bash"`) || strings.Contains(sc, "filter: tool:Bash")
	})
	// Once the keyboard is still, the request opens by itself.
	s.waitScreen("the request once the keyboard is still", 10*time.Second, func(sc string) bool { return strings.Contains(sc, "APPROVAL NEEDED") })
	if got := eventsOf(t, audit, "leasedeck.approval.decided"); len(got) != 0 {
		t.Fatalf("decided without a key: %v", got)
	}
	t.Logf("%d rounds of typing, no decision", rounds)
}

func TestCockpitApprovalsViewAndQuit(t *testing.T) {
	s, audit, leases := demoSession(t, 4)

	// A held call is shown whole: the comment on its own numbered line,
	// the rm on the next, the program the gate derived above them. Find
	// it in the approvals view and open it.
	waitJournal(t, audit, "the rm request", 60*time.Second, func(l map[string]any) bool {
		c, _ := l["call"].(map[string]any)
		return l["event_type"] == "leasedeck.approval.requested" && strings.Contains(fmt.Sprint(c["text"]), "rm -rf build/")
	})
	time.Sleep(time.Second) // a pause: the next key is deliberate, not typing
	s.keys("a")
	s.waitScreen("the approvals view", 10*time.Second, func(sc string) bool { return strings.Contains(sc, "APPROVALS —") })
	s.keys("/")
	s.text("release build")
	s.keys("Enter", "Enter")
	sc := s.waitScreen("the rm request in full", 10*time.Second, func(sc string) bool {
		return strings.Contains(sc, "2│ rm -rf build/ dist/") && strings.Contains(sc, "1│ # clean the outputs")
	})
	for _, want := range []string{"runs    rm", "rule    the lease's approvals list names command:rm", "Y covers from now on"} {
		if !strings.Contains(sc, want) {
			t.Errorf("the request lacks %q:\n%s", want, sc)
		}
	}
	s.keys("Escape") // back to the view
	s.waitScreen("the approvals view again", 15*time.Second, func(sc string) bool { return strings.Contains(sc, "APPROVALS —") })
	time.Sleep(300 * time.Millisecond) // two escapes at once read as alt+esc
	s.keys("Escape")                   // close it
	s.waitScreen("the view closed", 15*time.Second, func(sc string) bool { return !strings.Contains(sc, "APPROVALS —") })

	// The approvals view lists every pending request; * marks them all
	// and D denies them with one reason.
	s.waitScreen("two pending requests", 60*time.Second, func(sc string) bool {
		return strings.Contains(sc, "⚑ 2 pending") || strings.Contains(sc, "⚑ 3 pending") || strings.Contains(sc, "⚑ 4 pending")
	})
	time.Sleep(time.Second) // a pause: the next key is deliberate, not typing
	s.keys("a")
	sc = s.waitScreen("the approvals view", 10*time.Second, func(sc string) bool { return strings.Contains(sc, "APPROVALS —") })
	if !strings.Contains(sc, "AGE") || !strings.Contains(sc, "LEFT") || !strings.Contains(sc, "AGENT") {
		t.Errorf("the approvals view has no columns:\n%s", sc)
	}
	s.keys("*")
	s.keys("D")
	const reason = "e2e: not during the freeze"
	s.waitScreen("the bulk deny prompt", 15*time.Second, func(sc string) bool { return strings.Contains(sc, "one reason for every agent") })
	s.text(reason)
	s.keys("Enter")
	var denied []map[string]any
	for deadline := time.Now().Add(10 * time.Second); len(denied) < 2 && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		denied = denied[:0]
		for _, l := range eventsOf(t, audit, "leasedeck.approval.decided") {
			d, _ := l["details"].(map[string]any)
			if d["outcome"] == "denied" && d["by"] == "cockpit" && l["reasoning"] == reason {
				denied = append(denied, l)
			}
		}
	}
	if len(denied) < 2 {
		t.Fatalf("the bulk deny denied %d request(s); the screen:\n%s", len(denied), s.screen())
	}
	s.keys("Escape")

	// Revoke the first session, then read its story in the detail pane.
	const why = "e2e: runaway agent"
	opened := false
	for try := 0; try < 8 && !opened; try++ {
		time.Sleep(time.Second)
		s.keys("Escape")
		time.Sleep(time.Second)
		s.keys("g")
		time.Sleep(200 * time.Millisecond)
		s.keys("x")
		for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline) && !opened; time.Sleep(100 * time.Millisecond) {
			opened = strings.Contains(s.screen(), "REVOKE LEASE")
		}
	}
	if !opened {
		t.Fatalf("x did not open the revoke confirmation:\n%s", s.screen())
	}
	s.text(why)
	s.keys("Enter")
	waitJournal(t, leases, "the revocation", 10*time.Second, func(l map[string]any) bool { return l["event"] == "revoked" && l["reason"] == why })
	sc = s.waitScreen("the revoked lease's story", 10*time.Second, func(sc string) bool {
		return strings.Contains(sc, "⊘ REVOKED") && strings.Contains(sc, why)
	})
	for _, want := range []string{"by   the operator", "why  " + why} {
		if !strings.Contains(sc, want) {
			t.Errorf("the revoked lease does not say %q:\n%s", want, sc)
		}
	}

	// q asks first, with what is affected; esc stays; q and y quit, and
	// the waiting agents are told the truth.
	time.Sleep(time.Second)
	s.keys("Escape")
	time.Sleep(time.Second)
	s.keys("q")
	sc = s.waitScreen("the quit question", 10*time.Second, func(sc string) bool { return strings.Contains(sc, "QUIT AND STOP THE REGISTRY?") })
	if !strings.Contains(sc, "live session(s)") || !strings.Contains(sc, "approval request(s) are waiting") {
		t.Errorf("the quit question does not say what is affected:\n%s", sc)
	}
	s.keys("Escape")
	s.waitScreen("the cockpit again after esc", 15*time.Second, func(sc string) bool {
		return !strings.Contains(sc, "QUIT AND STOP") && strings.Contains(sc, "Leases")
	})
	// Quit with a request waiting, so that its agent is told.
	s.waitScreen("a pending request", 60*time.Second, func(sc string) bool { return !strings.Contains(sc, "⚑ 0 pending") })
	time.Sleep(time.Second)
	s.keys("Escape")
	time.Sleep(time.Second)
	s.keys("q")
	s.waitScreen("the quit question", 10*time.Second, func(sc string) bool { return strings.Contains(sc, "QUIT AND STOP THE REGISTRY?") })
	s.keys("y")
	for deadline := time.Now().Add(15 * time.Second); s.alive(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("y did not quit:\n%s", s.screen())
		}
	}
	told := false
	for _, l := range journalLines(t, audit) {
		if l["event_type"] == "leasedeck.approval.decided" && strings.HasPrefix(fmt.Sprint(l["reasoning"]), "the cockpit's registry stopped") {
			told = true
		}
	}
	if !told {
		t.Error("no waiting agent was told the cockpit's registry stopped")
	}
}

// Quitting a cockpit whose registry governs a live session, asking for a
// registry to keep serving: the waiting call is denied with the truth, a
// background `leasedeck serve` takes over the workspace, and the next
// cockpit or CLI call finds it.
func TestCockpitQuitKeepsARegistryInTheBackground(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (CI installs it; locally: apt-get install -y tmux); skipping the terminal end-to-end test")
	}
	w := newWorkspace(t)
	s := &tmuxSession{t: t, name: fmt.Sprintf("leasedeck-e2e-bg-%d", os.Getpid())}
	exec.Command("tmux", "kill-session", "-t", s.name).Run()
	env := fmt.Sprintf("XDG_CONFIG_HOME=%s XDG_STATE_HOME=%s LEASEDECK_WORKSPACE=", w.cfg, w.state)
	// The pane outlives the cockpit so that what it printed can be read.
	s.tmux("new-session", "-d", "-s", s.name, "-x", "160", "-y", "48", fmt.Sprintf("cd %s && env %s %s; sleep 60", w.dir, env, binary))
	t.Cleanup(func() { exec.Command("tmux", "kill-session", "-t", s.name).Run() })
	s.waitScreen("the empty cockpit", 20*time.Second, func(sc string) bool { return strings.Contains(sc, "leasedeck install claude-code") })

	if r := w.hook("claude-code", w.payload("claude-code", "SessionStart", nil)); r.code != 0 || !strings.Contains(r.stdout, "governs this session") {
		t.Fatalf("SessionStart: %+v", r)
	}
	held := make(chan string, 1)
	go func() {
		pre := w.payload("claude-code", "PreToolUse", func(m map[string]any) {
			m["tool_name"] = "Bash"
			m["tool_input"] = map[string]any{"command": "rm -rf build/"}
		})
		cmd := exec.Command(binary, "hook", "claude-code", "--workspace", w.dir, "--timeout", "60")
		cmd.Dir, cmd.Env, cmd.Stdin = w.dir, w.env, strings.NewReader(pre)
		out, _ := cmd.Output()
		held <- string(out)
	}()
	s.waitScreen("the held call", 20*time.Second, func(sc string) bool { return strings.Contains(sc, "APPROVAL NEEDED") })
	time.Sleep(time.Second) // a pause: the next key is deliberate
	s.keys("q")
	sc := s.waitScreen("the quit question", 10*time.Second, func(sc string) bool { return strings.Contains(sc, "QUIT AND STOP THE REGISTRY?") })
	if !strings.Contains(sc, "governs 1 live session(s)") || !strings.Contains(sc, "b quit, keep a registry") {
		t.Errorf("the question does not say what is affected, or offers no background registry:\n%s", sc)
	}
	s.keys("b")
	sc = s.waitScreen("the background registry's pid", 30*time.Second, func(sc string) bool { return strings.Contains(sc, "stop it with: kill ") })
	var pid int
	if i := strings.Index(sc, "stop it with: kill "); i >= 0 {
		fmt.Sscanf(sc[i+len("stop it with: kill "):], "%d", &pid)
	}
	if pid <= 0 {
		t.Fatalf("no pid in:\n%s", sc)
	}
	t.Cleanup(func() {
		if p, err := os.FindProcess(pid); err == nil {
			p.Signal(os.Interrupt)
		}
	})
	select {
	case out := <-held:
		if !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "the cockpit's registry stopped") {
			t.Errorf("the waiting agent was not told the truth: %s", out)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the held call was never answered")
	}
	if r := w.run("", "status"); r.code != 0 || !strings.Contains(r.stdout+r.stderr, fmt.Sprint(pid)) {
		t.Errorf("no registry answers after the cockpit quit: %+v", r)
	}
	// The session goes on under the background registry.
	if r := w.hook("claude-code", w.payload("claude-code", "PreToolUse", nil)); r.code != 0 || strings.Contains(r.stdout, "registry unreachable") {
		t.Errorf("the session's next call found no registry: %+v", r)
	}
}
