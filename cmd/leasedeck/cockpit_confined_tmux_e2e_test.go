package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The cockpit in a real terminal shows how each lease is held (a
// `leasedeck run` confined by the kernel: ▣ in the tree, Landlock and the
// rest in the detail pane) and lists calls asked in the client (policy
// approvals.where "client") apart from the requests it can decide.
func TestCockpitShowsConfinementAndClientAsksInTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (CI installs it; locally: apt-get install -y tmux); skipping the terminal end-to-end test")
	}
	if runtime.GOOS != "linux" {
		t.Skip("confined runs are Linux only")
	}
	w := newWorkspace(t)
	w.setApproveIn("client")
	s := &tmuxSession{t: t, name: fmt.Sprintf("leasedeck-conf-%d", os.Getpid())}
	exec.Command("tmux", "kill-session", "-t", s.name).Run()
	env := []string{"env", "-u", "LEASEDECK_WORKSPACE", "XDG_CONFIG_HOME=" + w.cfg, "XDG_STATE_HOME=" + w.state, "TERM=xterm-256color", binary}
	s.tmux(append([]string{"new-session", "-d", "-s", s.name, "-x", "160", "-y", "48", "-c", w.dir}, env...)...)
	t.Cleanup(func() { exec.Command("tmux", "kill-session", "-t", s.name).Run() })
	s.waitScreen("the embedded registry", 20*time.Second, func(sc string) bool { return strings.Contains(sc, "EMBEDDED") })

	// A confined run, as a person starts one in another terminal.
	run := exec.Command(binary, "run", "--client", "claude-code", "--", "sleep", "60")
	run.Dir, run.Env = w.dir, w.env
	stderr, _ := run.StderrPipe()
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { run.Process.Signal(syscall.SIGTERM); run.Wait() })
	first := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		if sc.Scan() {
			first <- sc.Text()
		}
		for sc.Scan() {
		}
	}()
	var said string
	select {
	case said = <-first:
	case <-time.After(20 * time.Second):
		t.Fatal("leasedeck run said nothing")
	}
	if !strings.Contains(said, "confined by Landlock") {
		t.Skipf("this kernel cannot confine: %s", said)
	}
	s.waitScreen("the confined run's glyph", 15*time.Second, func(sc string) bool { return strings.Contains(sc, "▣ claude-code") })

	// Two held calls of a hook session, asked in the client: the user
	// allowed the first there; the second is still waiting.
	pre := func(id, command string) {
		r := w.hook("claude-code", w.payload("claude-code", "PreToolUse", func(m map[string]any) {
			m["tool_input"] = map[string]any{"command": command}
			m["tool_use_id"] = id
		}))
		if !strings.Contains(r.stdout, `"permissionDecision":"ask"`) {
			t.Fatalf("%s was not asked in the client: %+v", id, r)
		}
	}
	pre("toolu_T1", "rm -rf build")
	w.hook("claude-code", w.payload("claude-code", "PostToolUse", func(m map[string]any) {
		m["tool_input"] = map[string]any{"command": "rm -rf build"}
		m["tool_use_id"] = "toolu_T1"
	}))
	pre("toolu_T2", "rm -rf dist")
	sc := s.waitScreen("the hook session's row", 15*time.Second, func(sc string) bool { return strings.Contains(sc, "· claude-code") })

	// The detail pane of the run's lease says what holds it.
	for i := 0; i < 4 && !strings.Contains(sc, "confined in the kernel: Landlock ABI"); i++ {
		s.keys("Down")
		time.Sleep(300 * time.Millisecond)
		sc = s.screen()
	}
	if !strings.Contains(sc, "confined in the kernel: Landlock ABI") || !strings.Contains(sc, "mount namespace") {
		t.Errorf("no lease's detail pane says how it is confined:\n%s", sc)
	}

	// The approvals view: nothing to decide, two calls asked in the client.
	s.keys("a")
	sc = s.waitScreen("the asked-in-the-client rows", 10*time.Second, func(sc string) bool {
		return strings.Contains(sc, "ASKED IN THE CLIENT") && strings.Contains(sc, "allowed by the user") && strings.Contains(sc, "waiting (outcome unknown)")
	})
	if !strings.Contains(sc, "0 waiting") || !strings.Contains(sc, "nothing is waiting for a human") {
		t.Errorf("a call asked in the client is listed as a request the cockpit can decide:\n%s", sc)
	}
	s.keys("Escape")
}
