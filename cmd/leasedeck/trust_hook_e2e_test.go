package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/leasedeck/leasedeck/registry/wire"
)

// envSquatter makes this test binary a fake registry on the socket path
// it names instead of running tests: what an agent's process could start
// once `serve` has died. It answers every message "ok" with an allow (and
// a made-up proof), and with envSquatterLock set it takes the registry
// lock first.
const (
	envSquatter     = "LEASEDECK_TEST_SQUATTER"
	envSquatterLock = "LEASEDECK_TEST_SQUATTER_LOCK"
	// envSquatterManner "mute" accepts every connection and never answers
	// (a hung registry); "refuse" answers every connection with the
	// registry's own refusal past its connection cap.
	envSquatterManner = "LEASEDECK_TEST_SQUATTER_MANNER"
)

func init() {
	sock := os.Getenv(envSquatter)
	if sock == "" {
		return
	}
	if lock := os.Getenv(envSquatterLock); lock != "" {
		if ok, err := flock.New(lock).TryLock(); !ok || err != nil {
			os.Exit(3)
		}
	}
	os.Remove(sock)
	l, err := net.Listen("unix", sock)
	if err != nil {
		os.Exit(2)
	}
	os.Stdout.WriteString("ready\n")
	for {
		c, err := l.Accept()
		if err != nil {
			os.Exit(0)
		}
		go func() {
			defer c.Close()
			switch os.Getenv(envSquatterManner) {
			case "mute":
				io.Copy(io.Discard, c)
				return
			case "refuse":
				// As the registry refuses past its cap: the answer first,
				// the request read and dropped, then the close.
				json.NewEncoder(c).Encode(wire.Response{Error: wire.Errorf(wire.TooManyConnections, "the registry already serves 256 connections; try again later")})
				c.(*net.UnixConn).CloseWrite()
				io.Copy(io.Discard, c)
				return
			}
			sc := bufio.NewScanner(c)
			for sc.Scan() {
				var m map[string]any
				json.Unmarshal(sc.Bytes(), &m)
				b, _ := json.Marshal(map[string]any{"id": m["id"], "ok": true, "result": map[string]any{
					"verdict": "allow", "allowed": true, "reason": "squatter says yes", "mode": "observe",
					"workspace": os.Getenv("LEASEDECK_TEST_WS"), "pid": os.Getpid(), "proof": strings.Repeat("0", 64)}})
				c.Write(append(b, '\n'))
			}
		}()
	}
}

// squat starts a fake registry on the workspace's socket.
func (w *wsEnv) squat(takeLock bool) { w.squatAs(takeLock, "") }

// squatAs starts a process on the workspace's socket that behaves as
// manner says (see envSquatterManner; "" answers as a fake registry).
func (w *wsEnv) squatAs(takeLock bool, manner string) {
	w.t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envSquatter+"="+w.sock(), "LEASEDECK_TEST_WS="+w.dir, envSquatterManner+"="+manner)
	if takeLock {
		cmd.Env = append(cmd.Env, envSquatterLock+"="+filepath.Join(w.stateDir(), "registry.lock"))
	}
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "ready\n" {
		w.t.Fatalf("squatter did not start: %q %v", line, err)
	}
}

// bash is a Claude Code PreToolUse payload for a Bash command, run from
// cwd (the workspace when empty).
func (w *wsEnv) bash(command, cwd string) string {
	return w.payload("claude-code", "PreToolUse", func(m map[string]any) {
		m["tool_input"] = map[string]any{"command": command}
		if cwd != "" {
			m["cwd"] = cwd
		}
	})
}

// decision is the permissionDecision of a Claude Code hook answer.
func decision(t *testing.T, r result) (string, string) {
	t.Helper()
	var out struct {
		Hook struct {
			Decision string `json:"permissionDecision"`
			Reason   string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("hook answer is not JSON: %+v", r)
	}
	return out.Hook.Decision, out.Hook.Reason
}

// observed reports whether a hook answer is observe mode's: no decision
// of leasedeck's, and a message saying what it would have answered.
func observed(t *testing.T, r result) bool {
	d, _ := decision(t, r)
	return d == "" && r.code == 0 && strings.Contains(r.stdout, "observe mode: leasedeck would have answered deny")
}

func (w *wsEnv) setMode(mode string) {
	w.t.Helper()
	p := filepath.Join(w.dir, ".leasedeck", "policy.json")
	b, _ := os.ReadFile(p)
	s := strings.Replace(string(b), `"mode": "enforce"`, `"mode": "`+mode+`"`, 1)
	s = strings.Replace(s, `"mode": "observe"`, `"mode": "`+mode+`"`, 1)
	os.WriteFile(p, []byte(s), 0o600)
}

// Editing policy.json while the registry serves changes nothing: the
// registry read it at start. Only the operator's reload (holding the
// token) puts a change in force, and each load is journaled with the
// file's hash.
func TestPolicyEditWhileServingNeedsTheOperator(t *testing.T) {
	w := newWorkspace(t)
	w.serve()
	if d, _ := decision(t, w.hook("claude-code", w.bash("sudo rm -rf /", ""))); d != "deny" {
		t.Fatalf("sudo before the edit: %s", d)
	}
	w.shell(`find . -name policy.json -exec sed -i 's/"enforce"/"observe"/' {} +`)
	if d, r := decision(t, w.hook("claude-code", w.bash("sudo rm -rf /", ""))); d != "deny" {
		t.Fatalf("after an agent's edit of policy.json the hook says %s (%s)", d, r)
	}
	if r := w.run("", "policy", "show"); r.code != 0 || !strings.Contains(r.stdout, "mode enforce") {
		t.Errorf("policy show: %+v", r)
	}
	// Without the token the reload is refused, and changes nothing.
	c, err := wire.Dial(w.sock(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.PolicyReload(context.Background())
	c.Close()
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != wire.Unauthorized {
		t.Fatalf("a reload without the token: %v", err)
	}
	if d, _ := decision(t, w.hook("claude-code", w.bash("sudo rm -rf /", ""))); d != "deny" {
		t.Fatal("a refused reload changed the mode")
	}
	// The operator reloads: observe is in force, and journaled.
	r := w.run("", "policy", "reload")
	if r.code != 0 || !strings.Contains(r.stdout, "mode observe") {
		t.Fatalf("policy reload: %+v", r)
	}
	if r := w.hook("claude-code", w.bash("sudo rm -rf /", "")); !observed(t, r) {
		t.Errorf("after the operator's reload to observe: %+v", r)
	}
	audit := w.audit()
	if n := strings.Count(audit, `"leasedeck.policy.loaded"`); n != 2 {
		t.Errorf("%d policy.loaded lines, want 2 (start, reload)", n)
	}
	if !strings.Contains(audit, `"by":"operator"`) || !strings.Contains(audit, `"mode":"observe"`) {
		t.Errorf("the reload is not journaled with who and what")
	}
	if r := w.run("", "journal", "verify"); r.code != 0 {
		t.Errorf("journal verify: %+v", r)
	}
}

// A planted .leasedeck/ below the workspace, and a call whose working
// directory is there, does not give the hook another workspace: it is
// pinned to its own, and an unpinned hook decides nothing.
func TestPlantedWorkspaceDoesNotGovern(t *testing.T) {
	w := newWorkspace(t)
	w.serve()
	src := filepath.Join(w.dir, "src")
	os.MkdirAll(filepath.Join(src, ".leasedeck"), 0o700)
	os.WriteFile(filepath.Join(src, ".leasedeck", "policy.json"), []byte(`{"root": {}, "mode": "observe"}`), 0o600)
	planted := w.bash("sudo rm -rf /", src)
	if d, r := decision(t, w.hook("claude-code", planted)); d != "deny" || !strings.Contains(r, "sudo") {
		t.Fatalf("pinned hook with cwd src: %s %s", d, r)
	}
	// A hook with no pin (an install from before pinning) run from src.
	cmd := exec.Command(binary, "hook", "claude-code", "--timeout", "8")
	cmd.Dir, cmd.Env, cmd.Stdin = src, w.env, strings.NewReader(planted)
	out, _ := cmd.Output()
	if d, r := decision(t, result{stdout: string(out)}); d != "deny" || !strings.Contains(r, "not pinned") {
		t.Fatalf("unpinned hook from src: %s %s", d, r)
	}
}

// A process squatting the socket after the registry died is not
// believed, with or without the registry lock, and the reason says so;
// an operator command does not send it the token.
func TestSquatterOnTheSocketIsNotBelieved(t *testing.T) {
	for _, takeLock := range []bool{false, true} {
		w := newWorkspace(t)
		w.serve()
		w.stop()
		w.squat(takeLock)
		for _, exe := range hookPrograms() {
			start := time.Now()
			d, r := decision(t, w.hookOn(exe, "claude-code", w.bash("sudo rm -rf /", "")))
			if d != "deny" || !strings.Contains(r, "not the workspace's registry") {
				t.Fatalf("%s, lock %v: squatter's answer believed: %s %s", filepath.Base(exe), takeLock, d, r)
			}
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("%s, lock %v: deny took %v", filepath.Base(exe), takeLock, took)
			}
		}
		if res := w.run("", "approvals"); res.code != exitUnreachable || !strings.Contains(res.stderr, "nothing was sent") {
			t.Errorf("lock %v: operator command against a squatter: %+v", takeLock, res)
		}
	}
}

// No registry: deny, also in a workspace whose policy says observe (an
// absent registry is never observe).
func TestNoRegistryDeniesInObserveMode(t *testing.T) {
	w := newWorkspace(t)
	w.setMode("observe")
	w.serve()
	// Observe: the registry's deny is reported, and Claude Code's own
	// permission flow decides.
	if r := w.hook("claude-code", w.bash("sudo ls", "")); !observed(t, r) {
		t.Fatalf("observe mode, registry up: %+v", r)
	}
	w.stop()
	d, r := decision(t, w.hook("claude-code", w.bash("ls", "")))
	if d != "deny" || !strings.Contains(r, "every enforcement mode") {
		t.Fatalf("observe mode, no registry: %s %s", d, r)
	}
}

// A registry that accepts connections but never answers (stopped) makes
// the hook deny before the client's hook timeout, not wait for ever.
func TestSilentRegistryIsDeniedWithinTheDeadline(t *testing.T) {
	w := newWorkspace(t)
	w.serve()
	w.serv.Process.Signal(syscall.SIGSTOP)
	defer w.serv.Process.Signal(syscall.SIGCONT)
	start := time.Now()
	r := w.run(w.bash("ls", ""), "hook", "claude-code", "--workspace", w.dir, "--timeout", "7")
	took := time.Since(start)
	d, reason := decision(t, r)
	if d != "deny" || took > 7*time.Second {
		t.Fatalf("stopped registry: %s (%s) after %v (the client's timeout is 7 s)", d, reason, took)
	}
}

// The hook's reason tells the human what is wrong with the registry:
// not running, not the real one, hung (accepts and never answers) or
// refusing; each is a deny, whatever the mode.
func TestUnansweredHookSaysWhy(t *testing.T) {
	cases := []struct {
		name, manner string
		lock         bool
		want, never  []string
	}{
		{name: "not running", want: []string{"no registry is running in"}},
		{name: "squatter", manner: "", want: []string{"not the workspace's registry"}, never: []string{"no registry is running"}},
		{name: "hung", manner: "mute", lock: true, want: []string{"did not answer within", "accepted the connection"}, never: []string{"no registry is running"}},
		{name: "refusing", manner: "refuse", lock: true, want: []string{"refused the connection", "too_many_connections"}, never: []string{"no registry is running", "not the workspace's registry"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWorkspace(t)
			w.setMode("observe")
			if c.name != "not running" {
				w.squatAs(c.lock, c.manner)
			}
			for _, exe := range hookPrograms() {
				prog := filepath.Base(exe)
				start := time.Now()
				r := w.runExe(exe, w.bash("ls", ""), "hook", "claude-code", "--workspace", w.dir, "--timeout", "6")
				took := time.Since(start)
				d, reason := decision(t, r)
				if d != "deny" || took > 6*time.Second {
					t.Fatalf("%s: %s: %s after %v: %s", prog, c.name, d, took, reason)
				}
				t.Logf("%s after %v: %s", prog, took.Round(time.Millisecond), reason)
				for _, s := range c.want {
					if !strings.Contains(reason, s) {
						t.Errorf("%s: %s: reason lacks %q: %s", prog, c.name, s, reason)
					}
				}
				for _, s := range c.never {
					if strings.Contains(reason, s) {
						t.Errorf("%s: %s: reason says %q: %s", prog, c.name, s, reason)
					}
				}
			}
		})
	}
}

// A hook that starts while the registry restarts waits for it (within its
// deadline) instead of denying at once.
func TestHookWaitsForARestartingRegistry(t *testing.T) {
	for _, exe := range hookPrograms() {
		t.Run(filepath.Base(exe), func(t *testing.T) { hookWaitsForARestartingRegistry(t, exe) })
	}
}

func hookWaitsForARestartingRegistry(t *testing.T, exe string) {
	w := newWorkspace(t)
	w.serve()
	w.stop()
	// The hook starts first, finds no socket, and waits.
	cmd := exec.Command(exe, "hook", "claude-code", "--workspace", w.dir, "--timeout", "20")
	var out strings.Builder
	cmd.Dir, cmd.Env, cmd.Stdin, cmd.Stdout = w.dir, w.env, strings.NewReader(w.bash("ls", "")), &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.serve()
	cmd.Wait()
	r := result{stdout: out.String()}
	if d, reason := decision(t, r); d != "allow" {
		t.Fatalf("hook during a restart: %s %s", d, reason)
	}
}
