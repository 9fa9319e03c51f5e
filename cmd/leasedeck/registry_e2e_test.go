package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/registry"
	"github.com/leasedeck/leasedeck/registry/wire"
	"github.com/leasedeck/leasedeck/workspace"
)

// wsEnv is a temporary workspace with its own config dir (for the
// operator token), used through the real binary.
type wsEnv struct {
	t     *testing.T
	dir   string
	state string // $XDG_STATE_HOME: the key, the token and the socket live below it
	cfg   string // $XDG_CONFIG_HOME
	env   []string
	serv  *exec.Cmd
}

// shortTempDir is a temporary directory with a short path (a Unix socket
// path is limited to about 100 bytes).
func shortTempDir(t testing.TB) string {
	t.Helper()
	d, err := os.MkdirTemp("", "ld")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	d, _ = filepath.EvalSymlinks(d)
	return d
}

// isolatedEnv is the environment of a leasedeck process whose config and
// state directories are base/c and base/s.
func isolatedEnv(base string) []string {
	return append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(base, "c"), "XDG_STATE_HOME="+filepath.Join(base, "s"), "LEASEDECK_WORKSPACE=")
}

func newWorkspace(t *testing.T) *wsEnv {
	t.Helper()
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	base := shortTempDir(t)
	w := &wsEnv{t: t, dir: dir, state: filepath.Join(base, "s"), cfg: filepath.Join(base, "c"), env: isolatedEnv(base)}
	if r := w.run("", "init", dir); r.code != 0 {
		t.Fatalf("init: %+v", r)
	}
	return w
}

// stateDir is the workspace's private state directory.
func (w *wsEnv) stateDir() string {
	return filepath.Join(w.state, "leasedeck", workspace.Workspace{Root: w.dir}.ID())
}

// sock is the registry's socket.
func (w *wsEnv) sock() string { return filepath.Join(w.stateDir(), "registry.sock") }

// token is the operator token, for tests that act as the human.
func (w *wsEnv) token(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(w.stateDir(), "token"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func (w *wsEnv) run(stdin string, args ...string) result {
	w.t.Helper()
	return w.runExe(binary, stdin, args...)
}

// runExe runs another program of leasedeck's (the hook binary) in the
// workspace, as run does leasedeck.
func (w *wsEnv) runExe(exe, stdin string, args ...string) result {
	w.t.Helper()
	cmd := exec.Command(exe, args...)
	cmd.Dir, cmd.Env = w.dir, w.env
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		w.t.Fatal(err)
	}
	if strings.Contains(errb.String(), "goroutine ") {
		w.t.Fatalf("leasedeck %v panicked:\n%s", args, errb.String())
	}
	return result{code, out.String(), errb.String()}
}

// serve starts `leasedeck serve` and waits for its socket; it returns
// what serve said before it was ready.
func (w *wsEnv) serve() []string {
	w.t.Helper()
	return w.serveOn(binary)
}

// serveOn is serve with another build of leasedeck (one with test bounds).
func (w *wsEnv) serveOn(exe string) []string {
	w.t.Helper()
	cmd := exec.Command(exe, "serve")
	cmd.Dir, cmd.Env = w.dir, w.env
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	w.serv = cmd
	ready := make(chan []string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		var said []string
		for sc.Scan() {
			said = append(said, sc.Text())
			if strings.Contains(sc.Text(), "registry serving") {
				ready <- said
			}
		}
	}()
	var said []string
	select {
	case said = <-ready:
	case <-time.After(10 * time.Second):
		w.t.Fatal("serve did not start")
	}
	w.t.Cleanup(func() { w.stop() })
	return said
}

// waitApprovals polls `leasedeck approvals --json` until n requests are
// pending (the held call has no other signal a test can see), failing the
// test past a deadline that a slow, loaded machine still meets.
func (w *wsEnv) waitApprovals(t *testing.T, n int) []wire.ApprovalView {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		var pending []wire.ApprovalView
		r := w.run("", "approvals", "--json")
		if r.code == 0 && json.Unmarshal([]byte(r.stdout), &pending) == nil && len(pending) == n {
			return pending
		}
		if time.Now().After(deadline) {
			t.Fatalf("want %d pending approvals; `approvals --json` said: %+v", n, r)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

func (w *wsEnv) stop() {
	if w.serv == nil {
		return
	}
	w.serv.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- w.serv.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		w.serv.Process.Kill()
		w.t.Error("serve did not stop on SIGTERM")
	}
	w.serv = nil
}

func (w *wsEnv) writeManifest(name string, steps int, approvals []string) string {
	m := map[string]any{
		"schema_version": "1.2",
		"agent":          map[string]any{"name": name, "kind": "external", "runtime_agent": "claude-code"},
		"intent":         map[string]any{"purpose": "end to end " + name},
		"allow": map[string]any{"tools": []string{"Bash", "Read", "Write", "WebFetch"}, "read_paths": []string{"**"},
			"write_paths": []string{"src/**"}, "hosts": []string{"*.example.com"}, "commands": []string{"git", "ls", "rm", "echo", "bash", "curl", "sh"}},
		"deny":      map[string]any{"commands": []string{}, "paths": []string{}, "hosts": []string{}},
		"budget":    map[string]any{"steps": steps},
		"approvals": approvals,
	}
	if approvals == nil {
		m["approvals"] = []string{}
	}
	b, _ := json.Marshal(m)
	p := filepath.Join(w.dir, name+".json")
	os.WriteFile(p, b, 0o600)
	return p
}

func (w *wsEnv) issue(manifest, parent string) string {
	w.t.Helper()
	args := []string{"issue", manifest}
	if parent != "" {
		args = append(args, "--parent", parent)
	}
	r := w.run("", args...)
	if r.code != 0 {
		w.t.Fatalf("issue: %+v", r)
	}
	var lease map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &lease); err != nil {
		w.t.Fatalf("issue output: %v\n%s", err, r.stdout)
	}
	return lease["lease_id"].(string)
}

func (w *wsEnv) leases() map[string]registry.LeaseView {
	w.t.Helper()
	r := w.run("", "leases", "--json")
	if r.code != 0 {
		w.t.Fatalf("leases: %+v", r)
	}
	var ls []registry.LeaseView
	json.Unmarshal([]byte(r.stdout), &ls)
	out := map[string]registry.LeaseView{}
	for _, l := range ls {
		out[l.ID] = l
	}
	return out
}

func TestRegistryEndToEnd(t *testing.T) {
	w := newWorkspace(t)
	w.serve()
	if r := w.run("", "serve"); r.code != 1 || !strings.Contains(r.stderr, "already runs") {
		t.Fatalf("second serve: %+v", r)
	}
	root := w.issue(w.writeManifest("root", 6, []string{"command:rm"}), "")
	child := w.issue(w.writeManifest("child", 50, nil), root)
	grand := w.issue(w.writeManifest("grand", 50, nil), child)

	check := func(lease, tool, input string, want int, contains string) {
		t.Helper()
		r := w.run("", "check", "--lease", lease, "--tool", tool, "--input", input)
		if r.code != want || !strings.Contains(r.stdout+r.stderr, contains) {
			t.Errorf("check %s %s: exit %d, want %d (%q)\n%s%s", tool, input, r.code, want, contains, r.stdout, r.stderr)
		}
	}
	check(grand, "Bash", `{"command":"git status"}`, 0, "allow")
	check(grand, "Bash", `{"command":"echo ok && sudo rm -rf /"}`, 3, "sudo")
	check(grand, "Bash", `{"command":"bash -c 'curl x | sh'"}`, 3, "interpreter")
	check(grand, "Write", `{"file_path":"src/a.go","content":"x"}`, 0, "allow")
	check(grand, "Write", `{"file_path":"../outside"}`, 3, "escapes")
	check(grand, "Write", `{"file_path":"/etc/passwd"}`, 3, "escapes")
	check(grand, "Read", `{"file_path":"~/.ssh/id_rsa"}`, 3, "denied")
	check(grand, "WebFetch", `{"url":"https://api.example.com/v1"}`, 0, "allow")
	check(grand, "WebFetch", `{"url":"https://evil.test/"}`, 3, "allow.hosts")
	check(grand, "Bash", `{"command":"rm -rf src/tmp"}`, 5, "human")
	os.MkdirAll(filepath.Join(w.dir, "src"), 0o755)
	os.Symlink(t.TempDir(), filepath.Join(w.dir, "src", "link"))
	check(grand, "Write", `{"file_path":"src/link/x"}`, 3, "escapes")
	check("not-a-lease", "Bash", `{"command":"ls"}`, 1, "unknown lease")
	check(grand, "Bash", `not json`, 1, "--input")

	// Spend the root's six steps through a socket client, as the bridge will.
	c, err := wire.Dial(w.sock(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetToken(w.token(t)) // these leases are nobody's session: the operator acts for them
	gate := func(lease, tool string, input map[string]any) wire.GateAnswer {
		a, err := c.Gate(context.Background(), wire.GateParams{LeaseID: lease, Tool: tool, Input: wire.DocOf(input), Client: "e2e"})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	for i := 0; i < 5; i++ {
		if a := gate(grand, "Bash", map[string]any{"command": "ls"}); a.Verdict != wire.VerdictAllow {
			t.Fatalf("spend %d: %+v", i, a)
		}
	}

	// An approval requested, approved from a second process, the waiting
	// call answered; it takes the last step.
	answered := make(chan wire.GateAnswer, 1)
	token := w.token(t)
	go func() {
		c2, err := wire.Dial(w.sock(), time.Second)
		if err != nil {
			answered <- wire.GateAnswer{Reason: err.Error()}
			return
		}
		defer c2.Close()
		c2.SetToken(token)
		a, _ := c2.Gate(context.Background(), wire.GateParams{LeaseID: root, Tool: "Bash",
			Input: wire.DocOf(map[string]any{"command": "rm -rf src/old"})})
		answered <- a
	}()
	pending := w.waitApprovals(t, 1)
	if r := w.run("", "approve", pending[0].ID); r.code != 0 {
		t.Fatalf("approve: %+v", r)
	}
	if r := w.run("", "approve", pending[0].ID); r.code != 3 || !strings.Contains(r.stderr, "already decided") {
		t.Errorf("approve twice: %+v", r)
	}
	if r := w.run("", "deny", "no-such-approval", "--reason", "x"); r.code != 1 || !strings.Contains(r.stderr, "does not exist") {
		t.Errorf("deny unknown: %+v", r)
	}
	select {
	case a := <-answered:
		if a.Verdict != wire.VerdictAllow {
			t.Fatalf("approved call: %+v", a)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("approved call never answered")
	}
	// Budget spent on the chain: every lease below is blocked.
	if a := gate(grand, "Bash", map[string]any{"command": "ls"}); a.Verdict != wire.VerdictBlock || !strings.Contains(a.Reason, "budget") {
		t.Fatalf("after budget: %+v", a)
	}

	// Revoking needs a reason; a non-ancestor may not; the root closes all three.
	if r := w.run("", "revoke", grand, "--reason", "x", "--by", grand); r.code != 3 {
		t.Errorf("revoke by self: %+v", r)
	}
	r := w.run("", "revoke", root, "--reason", "end of test")
	if r.code != 0 || !strings.Contains(r.stdout, "revoked 3 lease(s)") {
		t.Fatalf("revoke: %+v", r)
	}
	before := w.leases()
	for _, id := range []string{root, child, grand} {
		if before[id].Status != registry.Revoked {
			t.Errorf("%s is %s after revoke", id, before[id].Status)
		}
	}

	// Restart: identical state.
	c.Close()
	w.stop()
	if r := w.run("", "leases"); r.code != 4 || !strings.Contains(r.stderr, "leasedeck serve") {
		t.Errorf("leases with no registry: %+v", r)
	}
	w.serve()
	after := w.leases()
	for id, b := range before {
		a := after[id]
		b.Remaining, a.Remaining = nil, nil
		bj, _ := json.Marshal(b)
		aj, _ := json.Marshal(a)
		if string(bj) != string(aj) {
			t.Errorf("lease %s changed across restart:\n%s\n%s", id, bj, aj)
		}
	}
}

// Bad input on the socket: each gets a clear error and the connection
// and registry keep working.
func TestSocketBadInput(t *testing.T) {
	w := newWorkspace(t)
	w.serve()
	sock := w.sock()
	conn, err := (&netDialer{}).dial(sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rd := bufio.NewReader(conn)
	send := func(line string) map[string]any {
		t.Helper()
		conn.Write([]byte(line + "\n"))
		resp, err := rd.ReadString('\n')
		if err != nil {
			t.Fatalf("no answer to %.60q: %v", line, err)
		}
		var m map[string]any
		json.Unmarshal([]byte(resp), &m)
		return m
	}
	for _, c := range []struct{ line, code string }{
		{`not json`, "bad_request"},
		{`[1,2]`, "bad_request"},
		{`{"op":"frobnicate"}`, "bad_request"},
		{`{}`, "bad_request"},
		{`{"op":"gate","lease_id":"nope","tool":"Bash"}`, "unknown_lease"},
		{`{"op":"lease","lease_id":"nope"}`, "unknown_lease"},
		{`{"op":"revoke","lease_id":"nope","reason":"x"}`, "unauthorized"},
		{`{"op":"decide","approval_id":"nope","outcome":"approved"}`, "unauthorized"},
	} {
		m := send(c.line)
		e, _ := m["error"].(map[string]any)
		if e == nil || e["code"] != c.code {
			t.Errorf("%.60q: got %v, want code %s", c.line, m, c.code)
		}
	}
	// A schema-invalid manifest is refused and recorded, not an error.
	m := send(`{"op":"issue","token":"` + w.token(t) + `","manifest":{"schema_version":"1.2"}}`)
	res, _ := m["result"].(map[string]any)
	if res == nil || res["status"] != "refused" || !strings.Contains(res["reason"].(string), "required") {
		t.Errorf("invalid manifest: %v", m)
	}
	// Still working.
	if m := send(`{"op":"status"}`); m["ok"] != true {
		t.Errorf("status after bad input: %v", m)
	}
	// A message over the limit is answered too_large and its connection
	// closed (what follows it is not in step); a new one is served.
	if m := send(`{"op":"issue","manifest":"` + strings.Repeat("x", 10<<20) + `"}`); m["error"] == nil || m["error"].(map[string]any)["code"] != "too_large" {
		t.Errorf("10 MiB message: %v", m)
	}
	if _, err := rd.ReadString('\n'); err == nil {
		t.Error("the connection stayed open after too_large")
	}
	conn.Close()
	if conn, err = (&netDialer{}).dial(sock); err != nil {
		t.Fatal(err)
	}
	rd = bufio.NewReader(conn)
	if m := send(`{"op":"status"}`); m["ok"] != true {
		t.Errorf("status on a new connection: %v", m)
	}
}

type netDialer struct{}

func (netDialer) dial(path string) (net.Conn, error) {
	return net.DialTimeout("unix", path, time.Second)
}

func TestInitAndPolicyErrors(t *testing.T) {
	w := newWorkspace(t)
	ld := filepath.Join(w.dir, ".leasedeck")
	for _, p := range []string{ld, filepath.Join(ld, "journal"), filepath.Join(ld, "agents")} {
		if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v %v", p, st.Mode(), err)
		}
	}
	for _, p := range []string{"policy.json", "agents/claude-code.json", "agents/codex-cli.json", "agents/gemini-code-assist.json", "agents/github-copilot.json"} {
		if st, err := os.Stat(filepath.Join(ld, p)); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v %v", p, st, err)
		}
	}
	for _, p := range []string{"key", "token", "handshake.key"} {
		if st, err := os.Stat(filepath.Join(w.stateDir(), p)); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("state %s: %v %v", p, st, err)
		}
	}
	if _, err := os.Stat(filepath.Join(ld, "key")); !os.IsNotExist(err) {
		t.Errorf("init wrote a key into the workspace (%v)", err)
	}
	// init again keeps everything.
	if r := w.run("", "init", w.dir); r.code != 0 || strings.Contains(r.stdout, "created") {
		t.Errorf("second init: %+v", r)
	}
	// Every agent manifest is a valid, grantable declaration.
	for _, a := range []string{"claude-code", "codex-cli", "gemini-code-assist", "github-copilot"} {
		if r := w.run("", "validate", "--shape", "manifest", filepath.Join(ld, "agents", a+".json")); r.code != 0 {
			t.Errorf("%s: %+v", a, r)
		}
	}
	// A bad edit of the policy is refused at start, naming the pointer.
	pol := filepath.Join(ld, "policy.json")
	b, _ := os.ReadFile(pol)
	os.WriteFile(pol, []byte(strings.Replace(string(b), `"fan_out": 8`, `"fan_out": 9999`, 1)), 0o600)
	if r := w.run("", "serve"); r.code != 1 || !strings.Contains(r.stderr, "/root/budget/fan_out") {
		t.Errorf("bad policy: %+v", r)
	}
	os.WriteFile(pol, []byte(`{"root": {}, "mode": "yolo"}`), 0o600)
	if r := w.run("", "serve"); r.code != 1 || !strings.Contains(r.stderr, "/root") {
		t.Errorf("bad policy: %+v", r)
	}
	os.WriteFile(pol, []byte(`{"root": `), 0o600)
	if r := w.run("", "serve"); r.code != 1 || !strings.Contains(r.stderr, "invalid JSON") {
		t.Errorf("bad policy: %+v", r)
	}
	if r := w.run("", "init", filepath.Join(w.dir, "missing")); r.code != 1 {
		t.Errorf("init of a missing dir: %+v", r)
	}
}
