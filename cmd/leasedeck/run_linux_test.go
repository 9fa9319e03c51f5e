//go:build linux

package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/confine"
	"github.com/leasedeck/leasedeck/registry"
)

// confinedWS is a workspace under attack: a fake HOME with credentials and
// hook settings, a git repository, a secret, a registry, and an upstream
// HTTP server on loopback that the lease allows.
type confinedWS struct {
	*wsEnv
	home, outside string
	upstream      *httptest.Server
	upPort        string
	protected     map[string]string // path → sha256 at the start
}

func needLandlock(t *testing.T) int {
	t.Helper()
	abi, err := confine.ABI()
	if err != nil {
		t.Skipf("the kernel has no Landlock: %v", err)
	}
	if err := confine.CheckABI(abi); err != nil {
		t.Skipf("%v", err)
	}
	return abi
}

func newConfinedWS(t *testing.T, writePaths []string) *confinedWS {
	t.Helper()
	c := &confinedWS{wsEnv: newWorkspace(t), home: t.TempDir(), outside: t.TempDir()}
	c.env = append(c.env, "HOME="+c.home, "PATH=/usr/local/bin:/usr/bin:/bin", "NO_PROXY=127.0.0.1,localhost")
	files := map[string]string{
		filepath.Join(c.home, ".ssh", "id_rsa"):                    "PRIVATE KEY\n",
		filepath.Join(c.home, ".aws", "credentials"):               "[default]\nkey=AKIA\n",
		filepath.Join(c.home, ".claude", "settings.json"):          `{"hooks":{}}` + "\n",
		filepath.Join(c.home, ".gitconfig"):                        "[user]\n\tname = t\n\temail = t@example.com\n",
		filepath.Join(c.dir, ".claude", "settings.json"):           `{"hooks":{}}` + "\n",
		filepath.Join(c.dir, "src", "keep.txt"):                    "keep\n",
		filepath.Join(c.dir, ".env"):                               "SECRET=1\n",
		filepath.Join(c.dir, ".git", "hooks", "pre-commit.sample"): "#!/bin/sh\n",
		// The repository uses husky and lefthook: their configurations
		// run what they name at the human's next commit.
		filepath.Join(c.dir, ".husky", "pre-commit"): "npx lint-staged\n",
		filepath.Join(c.dir, "lefthook.yml"):         "pre-commit:\n  commands: {}\n",
	}
	for p, body := range files {
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	git := exec.Command("git", "init", "-q", c.dir)
	git.Env = c.env
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	m := map[string]any{
		"schema_version": "1.2",
		"agent":          map[string]any{"name": "confined", "kind": "external", "runtime_agent": "claude-code"},
		"intent":         map[string]any{"purpose": "confined end to end"},
		"allow": map[string]any{"tools": []string{"Bash", "Read", "Write"}, "read_paths": []string{"**"},
			"write_paths": writePaths, "hosts": []string{"127.0.0.1"}, "commands": []string{"sh", "python3"}},
		"deny":      map[string]any{"commands": []string{}, "paths": []string{".env"}, "hosts": []string{}},
		"budget":    map[string]any{"steps": 100},
		"approvals": []string{},
	}
	b, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(c.dir, ".leasedeck", "agents", "claude-code.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	c.upstream = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello from upstream") }))
	t.Cleanup(c.upstream.Close)
	_, c.upPort, _ = net.SplitHostPort(c.upstream.Listener.Addr().String())
	c.protected = map[string]string{}
	for _, p := range c.protectedFiles() {
		c.protected[p] = digest(t, p)
	}
	c.serve()
	t.Cleanup(c.stop)
	return c
}

// protectedFiles must be byte-for-byte the same after any attack.
func (c *confinedWS) protectedFiles() []string {
	out := []string{
		filepath.Join(c.dir, ".leasedeck", "policy.json"), filepath.Join(c.dir, ".leasedeck", "agents", "claude-code.json"),
		filepath.Join(c.dir, ".claude", "settings.json"), filepath.Join(c.home, ".claude", "settings.json"),
		filepath.Join(c.dir, ".git", "config"), filepath.Join(c.home, ".ssh", "id_rsa"), filepath.Join(c.dir, ".env"),
		filepath.Join(c.dir, ".husky", "pre-commit"), filepath.Join(c.dir, "lefthook.yml"),
	}
	secrets, _ := filepath.Glob(filepath.Join(c.state, "leasedeck", "*", "*"))
	for _, p := range secrets {
		if st, err := os.Lstat(p); err == nil && st.Mode().IsRegular() {
			out = append(out, p)
		}
	}
	return out
}

func digest(t *testing.T, p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// stateFile is one of leasedeck's secrets in the state directory.
func (c *confinedWS) stateFile(t *testing.T, name string) string {
	m, _ := filepath.Glob(filepath.Join(c.state, "leasedeck", "*", name))
	if len(m) != 1 {
		t.Fatalf("expected one %s in the state directory, found %d", name, len(m))
	}
	return m[0]
}

// The shell and the Python attack scripts print NAME:ok or NAME:fail (with
// the errno for Python) for every attempt.
const shellAttack = `
try() { name=$1; shift; if "$@" >/dev/null 2>&1; then echo "$name:ok"; else echo "$name:fail"; fi; }
try write_outside sh -c "echo x > $OUT/outside.txt"
try read_ssh cat "$HOME/.ssh/id_rsa"
try read_aws cat "$HOME/.aws/credentials"
try read_key cat "$KEY"
try read_token cat "$TOKEN"
try read_denied cat "$WS/.env"
try edit_policy sh -c "echo x >> $WS/.leasedeck/policy.json"
try edit_agent sh -c "echo x > $WS/.leasedeck/agents/claude-code.json"
try new_agent sh -c "echo x > $WS/.leasedeck/agents/evil.json"
try edit_ws_hooks sh -c "echo x > $WS/.claude/settings.json"
try new_ws_hooks sh -c "echo x > $WS/.claude/settings.local.json"
try edit_user_hooks sh -c "echo x > $HOME/.claude/settings.json"
try git_hookspath git -C "$WS" config core.hooksPath /tmp
try git_hook sh -c "echo x > $WS/.git/hooks/pre-commit"
try rm_policy rm -f "$WS/.leasedeck/policy.json"
try mv_claude mv "$WS/.claude" "$WS/claude.old"
try plant_mcp sh -c "echo '{}' > $WS/.mcp.json"
try plant_tasks sh -c "mkdir -p $WS/.vscode && echo '{}' > $WS/.vscode/tasks.json"
try plant_vscode_settings sh -c "mkdir -p $WS/.vscode && echo '{}' > $WS/.vscode/settings.json"
try plant_workflow sh -c "mkdir -p $WS/.github/workflows && echo x > $WS/.github/workflows/x.yml"
try plant_copilot_hooks sh -c "mkdir -p $WS/.github/hooks && echo '{}' > $WS/.github/hooks/x.json"
try plant_gemini sh -c "mkdir -p $WS/.gemini && echo '{}' > $WS/.gemini/settings.json"
try plant_codex sh -c "mkdir -p $WS/.codex && echo x > $WS/.codex/config.toml"
try plant_qwen sh -c "mkdir -p $WS/.qwen && echo '{}' > $WS/.qwen/settings.json"
try plant_opencode_plugin sh -c "mkdir -p $WS/.opencode/plugin && echo x > $WS/.opencode/plugin/x.js"
try plant_opencode_json sh -c "echo '{}' > $WS/opencode.json"
try plant_opencode_jsonc sh -c "echo '{}' > $WS/opencode.jsonc"
try edit_husky sh -c "echo 'cat ~/.ssh/id_rsa' >> $WS/.husky/pre-commit"
try plant_husky sh -c "echo x > $WS/.husky/pre-push"
try edit_lefthook sh -c "echo x >> $WS/lefthook.yml"
try plant_pi sh -c "mkdir -p $WS/.pi/extensions && echo x > $WS/.pi/extensions/x.ts"
try proxy_unlisted curl -fsS --max-time 5 http://example.com/
try proxy_localhost curl -fsS --max-time 5 http://localhost:$UP/
try direct_tcp curl -fsS --max-time 5 --noproxy '*' http://127.0.0.1:$UP/
try allowed_write sh -c "echo ok > $WS/src/new.txt"
try allowed_fetch curl -fsS --max-time 5 http://127.0.0.1:$UP/
`

const pythonAttack = `
import os, socket, sys, subprocess, urllib.request
WS, HOME, OUT, TOKEN, KEY, UP = (os.environ[k] for k in ("WS", "HOME", "OUT", "TOKEN", "KEY", "UP"))
def attempt(name, fn):
    try:
        fn()
        print(name + ":ok")
    except OSError as e:
        print(name + ":fail:" + str(e.errno))
    except Exception as e:
        print(name + ":fail:" + type(e).__name__)
def write(p, mode="w"):
    with open(p, mode) as f:
        f.write("x")
def read(p):
    with open(p) as f:
        f.read()
def connect():
    s = socket.create_connection(("127.0.0.1", int(UP)), timeout=5)
    s.close()
def fetch(url):
    urllib.request.urlopen(url, timeout=5).read()
def git():
    subprocess.run(["git", "-C", WS, "config", "core.hooksPath", "/tmp"], check=True, capture_output=True)
attempt("py_write_outside", lambda: write(OUT + "/py-outside.txt"))
attempt("py_read_ssh", lambda: read(HOME + "/.ssh/id_rsa"))
attempt("py_read_key", lambda: read(KEY))
attempt("py_read_token", lambda: read(TOKEN))
attempt("py_read_denied", lambda: read(WS + "/.env"))
attempt("py_edit_policy", lambda: write(WS + "/.leasedeck/policy.json", "a"))
attempt("py_edit_ws_hooks", lambda: write(WS + "/.claude/settings.json"))
attempt("py_edit_user_hooks", lambda: write(HOME + "/.claude/settings.json"))
attempt("py_git_hookspath", git)
attempt("py_rename_policy", lambda: os.rename(WS + "/.leasedeck/policy.json", WS + "/src/key"))
attempt("py_direct_tcp", connect)
attempt("py_proxy_unlisted", lambda: fetch("http://example.com/"))
attempt("py_allowed_write", lambda: write(WS + "/src/py-new.txt"))
attempt("py_allowed_fetch", lambda: fetch("http://127.0.0.1:" + UP + "/"))
`

// pythonErrno is what the kernel answers each Python attempt: EACCES (13)
// where Landlock refuses, EROFS (30) on a read-only bind, EBUSY (16) or
// EXDEV (18) for a rename of a mount point.
var pythonErrno = map[string]string{
	"py_write_outside": "|fail:13|", "py_read_ssh": "|fail:13|", "py_read_key": "|fail:13|",
	"py_read_token": "|fail:13|", "py_read_denied": "|fail:13|", "py_edit_policy": "|fail:30|fail:13|",
	"py_edit_ws_hooks": "|fail:30|fail:13|", "py_edit_user_hooks": "|fail:30|fail:13|",
	"py_rename_policy": "|fail:16|fail:18|fail:13|fail:30|", "py_direct_tcp": "|fail:13|",
}

// runConfined runs argv under `leasedeck run` and answers its result.
func (c *confinedWS) runConfined(t *testing.T, extraEnv []string, argv ...string) result {
	t.Helper()
	w := *c.wsEnv
	w.env = append(append([]string(nil), c.env...), extraEnv...)
	return w.run("", append([]string{"run", "--client", "claude-code", "--"}, argv...)...)
}

func (c *confinedWS) attackEnv(t *testing.T) []string {
	return []string{"WS=" + c.dir, "OUT=" + c.outside, "TOKEN=" + c.stateFile(t, "token"), "KEY=" + c.stateFile(t, "key"), "UP=" + c.upPort}
}

func outcomes(out string) map[string]string {
	m := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		name, verdict, ok := strings.Cut(strings.TrimSpace(l), ":")
		if ok {
			m[name] = verdict
		}
	}
	return m
}

// Every attack fails in the kernel or at the proxy, the allowed write and
// the allowed fetch succeed, and the file system proves nothing changed.
func TestRunConfinesShellAndPython(t *testing.T) {
	needLandlock(t)
	c := newConfinedWS(t, []string{"**"})
	script := filepath.Join(c.dir, "src", "attack.py")
	os.WriteFile(script, []byte(pythonAttack), 0o644)
	shell := c.runConfined(t, c.attackEnv(t), "sh", "-c", shellAttack)
	py := c.runConfined(t, c.attackEnv(t), "python3", script)
	first := strings.SplitN(shell.stderr, "\n", 2)[0]
	if !strings.Contains(first, "confined by Landlock ABI") || !strings.Contains(first, "egress proxy 127.0.0.1:") {
		t.Fatalf("run's first line does not say what confines it: %q\n%s", first, shell.stderr)
	}
	if !strings.Contains(first, "private mount namespace") && !strings.Contains(first, "narrowed") {
		t.Fatalf("run's first line does not say which carve-out is in force: %q", first)
	}
	got := outcomes(shell.stdout + py.stdout)
	for name, verdict := range got {
		want := "fail"
		if strings.Contains(name, "allowed_") {
			want = "ok"
		}
		if strings.SplitN(verdict, ":", 2)[0] != want {
			t.Errorf("%s: %s, want %s", name, verdict, want)
		}
		if errs, ok := pythonErrno[name]; ok && !strings.Contains(errs, "|"+verdict+"|") {
			t.Errorf("%s: %s, want one of %s", name, verdict, errs)
		}
	}
	if len(got) < 37 {
		t.Fatalf("only %d attempts reported:\nshell: %s\n%s\npython: %s\n%s", len(got), shell.stdout, shell.stderr, py.stdout, py.stderr)
	}
	for p, sum := range c.protected {
		if digest(t, p) != sum {
			t.Errorf("%s changed under run", p)
		}
	}
	for _, p := range []string{filepath.Join(c.outside, "outside.txt"), filepath.Join(c.outside, "py-outside.txt"),
		filepath.Join(c.dir, ".claude", "settings.local.json"), filepath.Join(c.dir, ".git", "hooks", "pre-commit"),
		filepath.Join(c.dir, ".leasedeck", "agents", "evil.json"), filepath.Join(c.dir, "src", "key"), filepath.Join(c.dir, "claude.old"),
		filepath.Join(c.dir, ".husky", "pre-push"),
		// The files a later, unconfined program runs from (MCP servers,
		// editor tasks, CI, every other client's hooks and plugins): the
		// run's placeholders for them are gone, nothing planted remains.
		filepath.Join(c.dir, ".mcp.json"), filepath.Join(c.dir, ".vscode"), filepath.Join(c.dir, ".github"),
		filepath.Join(c.dir, ".gemini"), filepath.Join(c.dir, ".codex"), filepath.Join(c.dir, ".qwen"),
		filepath.Join(c.dir, ".opencode"), filepath.Join(c.dir, "opencode.json"), filepath.Join(c.dir, "opencode.jsonc"),
		filepath.Join(c.dir, ".pi")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s exists after run", p)
		}
	}
	git := exec.Command("git", "-C", c.dir, "config", "core.hooksPath")
	git.Env = c.env
	if out, _ := git.Output(); len(out) > 0 {
		t.Errorf("core.hooksPath was set: %s", out)
	}
	for _, p := range []string{"src/new.txt", "src/py-new.txt"} {
		if b, err := os.ReadFile(filepath.Join(c.dir, p)); err != nil || len(b) == 0 {
			t.Errorf("the allowed write %s did not happen: %v", p, err)
		}
	}
	audit := c.audit()
	for _, want := range []string{`"event_type":"leasedeck.run.confined"`, `"host":"example.com"`, `"event_type":"leasedeck.run.ended"`} {
		if !strings.Contains(audit, want) {
			t.Errorf("audit journal lacks %s", want)
		}
	}
	if !regexp.MustCompile(`"allowed":true,"bytes_down":[1-9]`).MatchString(audit) && !strings.Contains(audit, `"phase":"closed"`) {
		t.Errorf("the allowed fetch was not journaled with its bytes")
	}
}

// Hook sessions inside the tree become children of the run's lease; a
// forged ticket attaches to nothing.
func TestRunHookSessionsAreChildrenOfTheRun(t *testing.T) {
	needLandlock(t)
	c := newConfinedWS(t, []string{"src/**"})
	payload := c.payload("claude-code", "UserPromptSubmit", func(m map[string]any) { m["session_id"] = "confined-session" })
	pf := filepath.Join(c.dir, "src", "payload.json")
	os.WriteFile(pf, []byte(payload), 0o644)
	dropped := c.payload("claude-code", "UserPromptSubmit", func(m map[string]any) { m["session_id"] = "ticket-dropped" })
	df := filepath.Join(c.dir, "src", "dropped.json")
	os.WriteFile(df, []byte(dropped), 0o644)
	ticketFile, goFile := filepath.Join(c.dir, "src", "ticket"), filepath.Join(c.dir, "src", "go")
	// Inside the tree: the hook with the run's ticket, the hook with the
	// ticket dropped, then the ticket handed out and a wait until the test
	// has tried it from outside the tree.
	script := binary + ` hook claude-code --timeout 8 < ` + pf + `; echo "hook=$?"
env -u ` + registry.RunTicketEnv + ` ` + binary + ` hook claude-code --timeout 8 < ` + df + ` >/dev/null 2>&1
echo "$` + registry.RunTicketEnv + `" > ` + ticketFile + `
while [ ! -e ` + goFile + ` ]; do sleep 0.05; done`
	done := make(chan result, 1)
	go func() { done <- c.runConfined(t, nil, "sh", "-c", script) }()
	waitFor(t, 20*time.Second, func() bool { b, _ := os.ReadFile(ticketFile); return len(b) > 60 })
	stolen, _ := os.ReadFile(ticketFile)
	outside := c.payload("claude-code", "UserPromptSubmit", func(m map[string]any) { m["session_id"] = "ticket-stolen" })
	thief := *c.wsEnv
	thief.env = append(append([]string(nil), c.env...), registry.RunTicketEnv+"="+strings.TrimSpace(string(stolen)))
	thief.run(outside, "hook", "claude-code", "--timeout", "8")
	os.WriteFile(goFile, nil, 0o644)
	r := <-done
	if !strings.Contains(r.stdout, "hook=0") {
		t.Fatalf("the hook inside the run failed: %+v", r)
	}
	runLease := regexp.MustCompile(`lease ([0-9a-f-]{36})`).FindStringSubmatch(r.stderr)
	if runLease == nil {
		t.Fatalf("no lease on run's first line: %s", r.stderr)
	}
	var child *registry.LeaseView
	ls := c.leases()
	for _, l := range ls {
		if l.ParentID == runLease[1] {
			l := l
			child = &l
		}
	}
	if child == nil {
		t.Fatalf("no session lease under the run's lease %s: %+v", runLease[1], ls)
	}
	if child.Confinement == nil || child.Confinement.RunLeaseID != runLease[1] || !child.Confinement.Confined {
		t.Errorf("the session lease does not show the run's confinement: %+v", child.Confinement)
	}
	if rl := ls[runLease[1]]; rl.Confinement == nil || rl.Confinement.LandlockABI < confine.MinABI {
		t.Errorf("the run's lease does not show its confinement: %+v", rl.Confinement)
	}
	forged := c.payload("claude-code", "UserPromptSubmit", func(m map[string]any) { m["session_id"] = "forged-session" })
	w := *c.wsEnv
	w.env = append(append([]string(nil), c.env...), registry.RunTicketEnv+"="+strings.Repeat("ab", 32))
	w.run(forged, "hook", "claude-code", "--workspace", w.dir, "--timeout", "8")
	for _, l := range c.leases() {
		if l.Status == registry.Granted && l.ID != child.ID && l.ID != runLease[1] {
			t.Errorf("a session without its run's ticket (dropped, stolen or forged) got a lease: %+v", l)
		}
	}
}

// Revoking the run's lease from another process ends the whole confined
// tree, a background grandchild included, within 2 s.
func TestRunRevocationStopsTheTree(t *testing.T) {
	needLandlock(t)
	c := newConfinedWS(t, []string{"src/**"})
	pidFile := filepath.Join(c.dir, "src", "pids")
	cmd := exec.Command(binary, "run", "--client", "claude-code", "--", "sh", "-c",
		`sleep 60 & echo $! > `+pidFile+`; setsid sleep 61 & echo $! >> `+pidFile+`; sleep 62`)
	cmd.Dir, cmd.Env = c.dir, c.env
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stderr)
	if !lines.Scan() {
		t.Fatal("run said nothing")
	}
	m := regexp.MustCompile(`lease ([0-9a-f-]{36})`).FindStringSubmatch(lines.Text())
	if m == nil {
		t.Fatalf("no lease on run's first line: %q", lines.Text())
	}
	go io.Copy(io.Discard, stderr)
	waitFor(t, 15*time.Second, func() bool { b, _ := os.ReadFile(pidFile); return strings.Count(string(b), "\n") == 2 })
	start := time.Now()
	if r := c.run("", "revoke", m[1], "--reason", "test revocation"); r.code != 0 {
		t.Fatalf("revoke: %+v", r)
	}
	err := cmd.Wait()
	took := time.Since(start)
	if took > 2*time.Second {
		t.Errorf("the revoked tree ran %v after revocation, want < 2s", took)
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitLeaseEnded {
		t.Errorf("run's exit: %v, want %d", err, exitLeaseEnded)
	}
	b, _ := os.ReadFile(pidFile)
	for _, f := range strings.Fields(string(b)) {
		var pid int
		fmt.Sscanf(f, "%d", &pid)
		if pid > 0 && processAlive(pid) {
			t.Errorf("process %d of the revoked tree is still running", pid)
		}
	}
	if !strings.Contains(c.audit(), `"stopped":true`) {
		t.Errorf("the stop was not journaled")
	}
}

// processAlive: the pid exists and is not a zombie. Pids written inside a
// PID namespace are not this namespace's, so an unknown pid is gone too.
func processAlive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && !strings.HasPrefix(s[i+1:], " Z") && strings.Contains(s, "(sleep)")
}

func waitFor(t *testing.T, d time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Without a registry, run refuses with exit 4; with a bad command, 127.
func TestRunErrors(t *testing.T) {
	w := newWorkspace(t)
	if r := w.run("", "run", "--client", "claude-code", "--", "true"); r.code != exitUnreachable || !strings.Contains(r.stderr, "no registry") {
		t.Errorf("no registry: %+v", r)
	}
	if r := w.run("", "run", "--client", "claude-code", "true"); r.code != exitUsage {
		t.Errorf("no --: %+v", r)
	}
	w.serve()
	defer w.stop()
	if r := w.run("", "run", "--client", "../x", "--", "true"); r.code != exitInvalid {
		t.Errorf("bad client: %+v", r)
	}
	if r := w.run("", "run", "--client", "claude-code", "--allow-unconfined", "--", "no-such-command-here"); r.code != exitNoCommand {
		t.Errorf("missing command: %+v", r)
	}
	if r := w.run("", "run", "--client", "claude-code", "--allow-unconfined", "--", "sh", "-c", "exit 7"); r.code != 7 {
		t.Errorf("exit status not passed on: %+v", r)
	}
}

// BenchmarkRunStartup measures `leasedeck run -- true` against a bare
// `true`: the lease from the registry, the proxy, the plan, the stage with
// its namespaces and Landlock, and the run's end, all journaled.
func BenchmarkRunStartup(b *testing.B) {
	if _, err := confine.ABI(); err != nil {
		b.Skipf("the kernel has no Landlock: %v", err)
	}
	dir, _ := filepath.EvalSymlinks(b.TempDir())
	base := shortTempDir(b)
	env := append(isolatedEnv(base), "HOME="+b.TempDir(), "PATH=/usr/bin:/bin")
	initCmd := exec.Command(binary, "init", dir)
	initCmd.Env = env
	if out, err := initCmd.CombinedOutput(); err != nil {
		b.Fatalf("init: %v %s", err, out)
	}
	serve := exec.Command(binary, "serve")
	serve.Dir, serve.Env = dir, env
	stderr, _ := serve.StderrPipe()
	if err := serve.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { serve.Process.Signal(os.Interrupt); serve.Wait() }()
	sc := bufio.NewScanner(stderr)
	for sc.Scan() && !strings.Contains(sc.Text(), "registry serving") {
	}
	go io.Copy(io.Discard, stderr)
	for _, tc := range []struct {
		name string
		argv []string
	}{{"bare", []string{"/bin/true"}}, {"run", []string{binary, "run", "--client", "claude-code", "--", "/bin/true"}}} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command(tc.argv[0], tc.argv[1:]...)
				cmd.Dir, cmd.Env = dir, env
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v: %v\n%s", tc.argv, err, out)
				}
			}
		})
	}
}
