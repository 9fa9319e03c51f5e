package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The cockpit end to end, in a real terminal: the built binary runs
// `leasedeck demo` inside tmux; the test reads the screen, approves a
// pending request and revokes a lease with keys, and checks both
// decisions in the journal and on screen.

type tmuxSession struct {
	t    *testing.T
	name string
}

func (s *tmuxSession) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", args...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (s *tmuxSession) screen() string { return s.tmux("capture-pane", "-p", "-t", s.name) }

func (s *tmuxSession) keys(keys ...string) {
	s.tmux(append([]string{"send-keys", "-t", s.name}, keys...)...)
}

func (s *tmuxSession) text(txt string) { s.tmux("send-keys", "-t", s.name, "-l", txt) }

// waitScreen waits until the screen satisfies ok, and returns it.
func (s *tmuxSession) waitScreen(what string, timeout time.Duration, ok func(string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(timeout)
	var last string
	for time.Now().Before(deadline) {
		last = s.screen()
		if ok(last) {
			return last
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.t.Fatalf("waited %v for %s; the screen:\n%s", timeout, what, last)
	return ""
}

func (s *tmuxSession) alive() bool {
	return exec.Command("tmux", "has-session", "-t", s.name).Run() == nil
}

// journalLines reads one journal file's records.
func journalLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var v map[string]any
		if json.Unmarshal(sc.Bytes(), &v) == nil {
			out = append(out, v)
		}
	}
	return out
}

func waitJournal(t *testing.T, path, what string, timeout time.Duration, match func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		for _, l := range journalLines(t, path) {
			if match(l) {
				return l
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no %s in %s after %v", what, path, timeout)
	return nil
}

func TestCockpitEndToEndInTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (CI installs it; locally: apt-get install -y tmux); skipping the terminal end-to-end test")
	}
	start := time.Now()
	info := filepath.Join(t.TempDir(), "demo.json")
	s := &tmuxSession{t: t, name: fmt.Sprintf("leasedeck-e2e-%d", os.Getpid())}
	exec.Command("tmux", "kill-session", "-t", s.name).Run()
	cmd := fmt.Sprintf("env %s=%s %s demo --agents 4 --pace 250ms", EnvDemoInfo, info, binary)
	s.tmux("new-session", "-d", "-s", s.name, "-x", "160", "-y", "48", cmd)
	t.Cleanup(func() {
		if s.alive() {
			exec.Command("tmux", "kill-session", "-t", s.name).Run()
		}
	})

	// The demo says where its temporary workspace is.
	var demo struct{ Workspace, Journal string }
	for deadline := time.Now().Add(15 * time.Second); ; {
		if b, err := os.ReadFile(info); err == nil && json.Unmarshal(b, &demo) == nil && demo.Journal != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the demo wrote no %s; the screen:\n%s", EnvDemoInfo, s.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
	audit := filepath.Join(demo.Journal, "audit.jsonl")
	leases := filepath.Join(demo.Journal, "leases.jsonl")

	// The tree fills in.
	s.waitScreen("the lease tree", 20*time.Second, func(sc string) bool {
		return strings.Contains(sc, "claude-code #1") && strings.Contains(sc, "codex-cli #2") && strings.Contains(sc, "EMBEDDED")
	})

	// An approval pops up; after the 400 ms guard, y approves it once.
	s.waitScreen("an approval request", 30*time.Second, func(sc string) bool { return strings.Contains(sc, "APPROVAL NEEDED") })
	decided := func(l map[string]any) bool {
		d, _ := l["details"].(map[string]any)
		return l["event_type"] == "leasedeck.approval.decided" && d["by"] == "cockpit" && d["outcome"] == "approved" && d["scope"] == "once"
	}
	var dec map[string]any
	for try := 0; try < 5 && dec == nil; try++ {
		// A key inside a new request's guard is ignored by design; on a
		// slow machine, try again rather than fail.
		time.Sleep(700 * time.Millisecond)
		s.keys("y")
		for deadline := time.Now().Add(3 * time.Second); dec == nil && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			for _, l := range journalLines(t, audit) {
				if decided(l) {
					dec = l
					break
				}
			}
		}
	}
	if dec == nil {
		t.Fatalf("y approved nothing; the screen:\n%s", s.screen())
	}
	s.waitScreen("the approval on screen", 10*time.Second, func(sc string) bool {
		return strings.Contains(sc, "approved once") || strings.Contains(sc, "approved once by cockpit")
	})
	t.Logf("approved %v", dec["summary"])

	// Revoke the first session with x and a typed reason. Approval
	// requests keep arriving; esc puts them aside first.
	const reason = "e2e: runaway agent"
	opened := false
	for try := 0; try < 8 && !opened; try++ {
		s.keys("Escape")
		time.Sleep(150 * time.Millisecond)
		s.keys("g")
		time.Sleep(100 * time.Millisecond)
		s.keys("x")
		deadline := time.Now().Add(2 * time.Second)
		for time.Now().Before(deadline) {
			if strings.Contains(s.screen(), "REVOKE LEASE") {
				opened = true
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	if !opened {
		t.Fatalf("x did not open the revoke confirmation:\n%s", s.screen())
	}
	sc := s.screen()
	if !strings.Contains(sc, "This closes") || !strings.Contains(sc, "live lease") {
		t.Errorf("the confirmation does not show the blast radius:\n%s", sc)
	}
	s.keys("Enter") // no reason yet: refused
	time.Sleep(200 * time.Millisecond)
	s.text(reason)
	s.keys("Enter")
	rev := waitJournal(t, leases, "the revocation", 10*time.Second, func(l map[string]any) bool {
		return l["event"] == "revoked" && l["reason"] == reason && l["by"] == "issuer"
	})
	s.waitScreen("the revocation on screen", 10*time.Second, func(sc string) bool {
		return strings.Contains(sc, "revoked") && strings.Contains(sc, "lease(s) from") && strings.Contains(sc, "⊘")
	})
	t.Logf("revoked %v", rev["lease_id"])

	// q asks first (this cockpit's registry governs live sessions); y
	// quits, and the demo removes its temporary workspace.
	s.keys("Escape")
	time.Sleep(100 * time.Millisecond)
	s.keys("q")
	s.waitScreen("the quit question", 10*time.Second, func(sc string) bool { return strings.Contains(sc, "QUIT AND STOP THE REGISTRY?") })
	s.keys("y")
	for deadline := time.Now().Add(10 * time.Second); s.alive(); {
		if time.Now().After(deadline) {
			t.Fatalf("q did not end the demo:\n%s", s.screen())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, err := os.Stat(demo.Workspace); !os.IsNotExist(err) {
		t.Errorf("the demo left its workspace behind: %s (%v)", demo.Workspace, err)
	}
	t.Logf("end to end in %v", time.Since(start).Round(time.Millisecond))
}
