package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
)

// envFakeClient makes this test binary a client process instead of
// running tests: it runs each payload file named in envFakeClientPayloads
// (separated by ':') through the hook command line in envFakeClient,
// under bash -c as Qwen Code does, says "hooked", and exits when its
// stdin closes, without any session end, as a headless run does.
const (
	envFakeClient         = "LEASEDECK_TEST_FAKE_CLIENT"
	envFakeClientPayloads = "LEASEDECK_TEST_FAKE_CLIENT_PAYLOADS"
)

func init() {
	hook := os.Getenv(envFakeClient)
	if hook == "" {
		return
	}
	for _, p := range strings.Split(os.Getenv(envFakeClientPayloads), ":") {
		cmd := exec.Command("bash", "-c", hook+" < "+p)
		if out, err := cmd.Output(); err != nil || !strings.Contains(string(out), "") {
			os.Stderr.WriteString("hook: " + err.Error() + "\n")
			os.Exit(2)
		}
	}
	os.Stdout.WriteString("hooked\n")
	io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}

// A client that sends no session end (Qwen Code headless, OpenCode) and
// exits: its session's lease ends, because the registry held the client
// process (the hook's nearest ancestor that is no shell) by a pidfd from
// the session's first hook. A client that has a session end of its own
// (Claude Code) is not watched: its lease stays live until that end.
func TestLeaseEndsWhenAClientWithoutSessionEndExits(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("client processes are watched on Linux only")
	}
	cases := []struct {
		client  string
		payload func(w *wsEnv) string
		ends    bool
	}{
		{"qwen-code", func(w *wsEnv) string { return w.payload("qwen-code", "SessionStart", nil) }, true},
		{"opencode", func(w *wsEnv) string {
			return `{"hook_event_name":"chat.message","session_id":"ses_exit","cwd":"` + w.dir + `","prompt":"do the task"}`
		}, true},
		{"claude-code", func(w *wsEnv) string { return w.payload("claude-code", "SessionStart", nil) }, false},
	}
	for _, c := range cases {
		t.Run(c.client, func(t *testing.T) {
			w := newWorkspace(t)
			w.serve()
			payload := w.dir + "/payload.json"
			os.WriteFile(payload, []byte(c.payload(w)), 0o600)
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(append([]string(nil), w.env...), envFakeClient+"="+binary+" hook "+c.client+" --workspace "+w.dir+" --timeout 8", envFakeClientPayloads+"="+payload)
			cmd.Dir = w.dir
			stdin, _ := cmd.StdinPipe()
			out, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "hooked\n" {
				t.Fatalf("the client's hooks: %q %v", line, err)
			}
			live := func() int {
				n := 0
				for _, l := range w.leases() {
					if l.Live {
						n++
					}
				}
				return n
			}
			if n := live(); n != 1 {
				t.Fatalf("%d live leases while the client runs, want 1: %v", n, w.leases())
			}
			stdin.Close()
			cmd.Wait()
			if !c.ends {
				if n := live(); n != 1 {
					t.Fatalf("a %s session's lease ended with its process: %v", c.client, w.leases())
				}
				return
			}
			deadline := time.Now().Add(10 * time.Second)
			for live() != 0 {
				if time.Now().After(deadline) {
					t.Fatalf("the lease is still live 10 s after the %s process exited: %v", c.client, w.leases())
				}
				time.Sleep(50 * time.Millisecond)
			}
			for _, l := range w.leases() {
				if l.Status != "completed" {
					t.Errorf("lease %s is %s, want completed", l.ID, l.Status)
				}
			}
		})
	}
}
