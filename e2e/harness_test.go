package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/registry"
)

// The pinned clients (clients.md, "Testing against the real …").
var (
	claudeClient  = npmClient{Pkg: "@anthropic-ai/claude-code", Version: "2.1.328", Bin: "claude"}
	codexClient   = npmClient{Pkg: "@openai/codex", Version: "0.169.0", Bin: "codex"}
	geminiClient  = npmClient{Pkg: "@google/gemini-cli", Version: "0.61.0", Bin: "gemini"}
	qwenClient    = npmClient{Pkg: "@qwen-code/qwen-code", Version: "0.24.4", Bin: "qwen"}
	copilotClient = npmClient{Pkg: "@github/copilot", Version: "1.0.102", Bin: "copilot"}
)

// binary is the leasedeck executable built for this run; hookBinary is
// the lean hook binary beside it, which install writes into the hooks.
var binary, hookBinary string

func TestMain(m *testing.M) {
	if os.Getenv("LEASEDECK_E2E") == "off" {
		fmt.Println("e2e: LEASEDECK_E2E=off, every test skips")
	}
	dir, err := os.MkdirTemp("", "leasedeck-e2e-bin")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "leasedeck")
	start := time.Now()
	build := exec.Command("go", "build", "-o", binary, "./cmd/leasedeck")
	build.Dir = ".." // the module root
	if out, err := build.CombinedOutput(); err != nil {
		os.Stderr.Write(out)
		panic(err)
	}
	// The lean hook binary beside it: install writes it into the hooks, so
	// the real clients run it (cmd/leasedeck's tests run both).
	hookBinary = filepath.Join(dir, "leasedeck-hook")
	hook := exec.Command("go", "build", "-o", hookBinary, "./cmd/leasedeck-hook")
	hook.Dir = ".."
	if out, err := hook.CombinedOutput(); err != nil {
		os.Stderr.Write(out)
		panic(err)
	}
	fmt.Printf("e2e: built leasedeck and leasedeck-hook in %s\n", time.Since(start).Round(time.Millisecond))
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// heavy reports whether the heavier scenarios (Codex, Gemini, timing) run.
func heavy() bool { return os.Getenv("LEASEDECK_E2E") == "all" }

func requireE2E(t *testing.T) {
	t.Helper()
	if os.Getenv("LEASEDECK_E2E") == "off" {
		t.Skip("LEASEDECK_E2E=off")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the real-client tests run on linux (the pinned native binaries and recipes are linux ones)")
	}
}

// requireClientE2E runs a real-client scenario under LEASEDECK_E2E=all, or
// when LEASEDECK_E2E is a comma-separated list that names the client
// ("qwen", "copilot"), so that one client can be run alone.
func requireClientE2E(t *testing.T, name string) {
	t.Helper()
	requireE2E(t)
	if heavy() || slices.Contains(strings.Split(os.Getenv("LEASEDECK_E2E"), ","), name) {
		return
	}
	t.Skipf("set LEASEDECK_E2E=all (or LEASEDECK_E2E=%s) to run the %s scenarios", name, name)
}

func requireHeavy(t *testing.T) {
	t.Helper()
	requireE2E(t)
	if !heavy() {
		t.Skip("set LEASEDECK_E2E=all to run the Codex CLI, Gemini CLI and timing scenarios")
	}
}

// ---- installing the pinned clients ----

type npmClient struct {
	Pkg, Version, Bin string
}

func (c npmClient) String() string { return c.Pkg + "@" + c.Version }

type installed struct {
	path string        // the executable
	took time.Duration // 0 when the cache was reused
	err  error
}

var (
	installMu sync.Mutex
	installs  = map[string]*installed{}
	offline   error // set when an install failed for want of the network
)

// networkTrouble recognises npm's output when the registry is unreachable.
var networkTrouble = regexp.MustCompile(`(?i)ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|network|socket hang up|request to .* failed`)

// cacheRoot is where the clients are installed: outside the repository,
// reused between runs.
func cacheRoot() string {
	if d := os.Getenv("LEASEDECK_E2E_CACHE"); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		d = filepath.Join(os.TempDir(), "leasedeck-e2e-cache")
	}
	return filepath.Join(d, "leasedeck-e2e", "npm")
}

// client returns the pinned client's executable, installing it into the
// cache on first use; the test is skipped when it cannot be installed.
func client(t *testing.T, c npmClient) string {
	t.Helper()
	installMu.Lock()
	in, ok := installs[c.String()]
	if !ok {
		if offline != nil {
			in = &installed{err: offline}
			if p, err := verifyClient(c, cacheDir(c)); err == nil {
				in = &installed{path: p}
			}
		} else {
			in = install(c)
			if in.err != nil && networkTrouble.MatchString(in.err.Error()) {
				offline = fmt.Errorf("the npm registry is not reachable (an earlier install failed: %v)", in.err)
			}
		}
		installs[c.String()] = in
		if in.err == nil {
			if in.took > 0 {
				t.Logf("installed %s in %s", c, in.took.Round(time.Millisecond))
			} else {
				t.Logf("reused %s from the cache", c)
			}
		}
	}
	installMu.Unlock()
	if in.err != nil {
		t.Skipf("skipping: %s cannot be installed from the npm registry: %v", c, in.err)
	}
	return in.path
}

func cacheDir(c npmClient) string {
	return filepath.Join(cacheRoot(), strings.ReplaceAll(c.Pkg, "/", "_")+"@"+c.Version)
}

func install(c npmClient) *installed {
	dir := cacheDir(c)
	if p, err := verifyClient(c, dir); err == nil {
		return &installed{path: p}
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return &installed{err: errors.New("npm is not on PATH")}
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return &installed{err: err}
	}
	// Install beside the final place and rename, so an interrupted install
	// never leaves a half-filled cache that looks complete.
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".install-")
	if err != nil {
		return &installed{err: err}
	}
	defer os.RemoveAll(tmp)
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "install", "--prefix", tmp, "--no-audit", "--no-fund",
		"--no-save", "--loglevel=error", "--fetch-retries=1", "--fetch-retry-mintimeout=2000",
		"--fetch-retry-maxtimeout=10000", "--fetch-timeout=60000", c.String())
	cmd.Env = append(os.Environ(), "npm_config_update_notifier=false")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return &installed{err: fmt.Errorf("npm install %s: %v: %s", c, err, npmError(string(out)))}
	}
	took := time.Since(start)
	os.RemoveAll(dir)
	if err := os.Rename(tmp, dir); err != nil {
		if p, verr := verifyClient(c, dir); verr == nil { // another run won the race
			return &installed{path: p, took: took}
		}
		return &installed{err: err}
	}
	p, err := verifyClient(c, dir)
	if err != nil {
		return &installed{err: err}
	}
	return &installed{path: p, took: took}
}

// verifyClient finds the client's executable in an install prefix and
// checks that `--version` names the pinned version.
func verifyClient(c npmClient, dir string) (string, error) {
	cands := []string{filepath.Join(dir, "node_modules", ".bin", c.Bin)}
	if c.Bin == "claude" {
		// Claude Code's postinstall copies the platform binary over
		// bin/claude.exe; when npm did not run install scripts, use the
		// platform package's binary directly.
		cands = append(cands, filepath.Join(dir, "node_modules", "@anthropic-ai", "claude-code-"+runtime.GOOS+"-"+goarchNode(), "claude"))
	}
	var errs []string
	for _, p := range cands {
		if _, err := os.Stat(p); err != nil {
			errs = append(errs, err.Error())
			continue
		}
		home, _ := os.MkdirTemp("", "leasedeck-e2e-version")
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, p, "--version")
		cmd.Env = append(os.Environ(), "HOME="+home, "CODEX_HOME="+filepath.Join(home, ".codex"))
		out, err := cmd.CombinedOutput()
		cancel()
		os.RemoveAll(home)
		if err == nil && strings.Contains(string(out), c.Version) {
			return p, nil
		}
		errs = append(errs, fmt.Sprintf("%s --version: %v %s", p, err, tail(string(out), 200)))
	}
	return "", errors.New(strings.Join(errs, "; "))
}

// npmError keeps the lines of npm's output that say what went wrong (the
// "npm error" lines before a stack trace), or the output's tail.
func npmError(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		if !strings.HasPrefix(l, "npm error") || strings.HasPrefix(l, "npm error     at ") {
			continue
		}
		if strings.HasSuffix(l, "{") || strings.HasPrefix(l, "npm error   ") {
			break
		}
		keep = append(keep, strings.TrimSpace(strings.TrimPrefix(l, "npm error")))
	}
	if len(keep) == 0 {
		return tail(out, 600)
	}
	return strings.Join(keep, "; ")
}

func goarchNode() string {
	if runtime.GOARCH == "amd64" {
		return "x64"
	}
	return runtime.GOARCH
}

func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// ---- a governed workspace ----

// env is a temporary governed workspace: ws is the project the client
// works in, home a throwaway HOME, cfg the XDG config dir holding the
// operator token.
type env struct {
	t                   *testing.T
	root, ws, home, cfg string
	vars                []string // the environment for leasedeck and the clients

	mu    sync.Mutex
	serve *exec.Cmd
	exit  chan struct{}
}

type result struct {
	code           int
	stdout, stderr string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, root: root, ws: filepath.Join(root, "ws"), home: filepath.Join(root, "home"), cfg: filepath.Join(root, "cfg")}
	for _, d := range []string{e.ws, e.home, e.cfg} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e.vars = baseEnv(map[string]string{
		"HOME":                e.home,
		"XDG_CONFIG_HOME":     e.cfg,
		"XDG_CACHE_HOME":      filepath.Join(e.home, ".cache"),
		"XDG_DATA_HOME":       filepath.Join(e.home, ".local", "share"),
		"XDG_STATE_HOME":      filepath.Join(e.home, ".local", "state"),
		"TMPDIR":              filepath.Join(root, "tmp"),
		"LEASEDECK_WORKSPACE": "",
	})
	os.MkdirAll(filepath.Join(root, "tmp"), 0o755)
	if r := e.leasedeck("", "init", e.ws); r.code != 0 {
		t.Fatalf("leasedeck init: %+v", r)
	}
	t.Cleanup(e.stopRegistry)
	return e
}

// baseEnv is a minimal environment: PATH and locale from ours, the rest
// given. Nothing else leaks in (no real HOME, no API keys, no proxies).
func baseEnv(set map[string]string) []string {
	out := []string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "TERM=dumb", "NO_COLOR=1"}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, k+"="+set[k])
	}
	return out
}

func (e *env) with(extra ...string) []string {
	return append(append([]string(nil), e.vars...), extra...)
}

func (e *env) path(rel string) string { return filepath.Join(e.ws, filepath.FromSlash(rel)) }

func (e *env) write(rel, content string) {
	e.t.Helper()
	p := e.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// leasedeck runs the built binary in the workspace.
func (e *env) leasedeck(stdin string, args ...string) result {
	e.t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir, cmd.Env, cmd.Stdin = e.ws, e.vars, strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatalf("leasedeck %v: %v", args, err)
	}
	return result{code, out.String(), errb.String()}
}

// editAgent rewrites .leasedeck/agents/<name>.json through edit.
func (e *env) editAgent(name string, edit func(m map[string]any)) {
	e.t.Helper()
	p := filepath.Join(e.ws, ".leasedeck", "agents", name+".json")
	b, err := os.ReadFile(p)
	if err != nil {
		e.t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		e.t.Fatal(err)
	}
	edit(m)
	b, _ = json.MarshalIndent(m, "", "  ")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		e.t.Fatal(err)
	}
}

// startRegistry runs `leasedeck serve` and waits until it serves.
func (e *env) startRegistry() {
	e.t.Helper()
	if err := e.tryStartRegistry(); err != nil {
		e.t.Fatal(err)
	}
}

// restartRegistry is startRegistry for a script step's Before hook, which
// runs on the fake server's goroutine, where a test must not call Fatal.
func (e *env) restartRegistry() {
	if err := e.tryStartRegistry(); err != nil {
		e.t.Error(err)
	}
}

func (e *env) tryStartRegistry() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.serve != nil {
		return nil
	}
	cmd := exec.Command(binary, "serve")
	cmd.Dir, cmd.Env = e.ws, e.vars
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		return err
	}
	ready := make(chan struct{})
	exit := make(chan struct{})
	var log strings.Builder
	var logMu sync.Mutex
	go func() {
		sc := bufio.NewScanner(stderr)
		once := sync.Once{}
		for sc.Scan() {
			logMu.Lock()
			log.WriteString(sc.Text() + "\n")
			logMu.Unlock()
			if strings.Contains(sc.Text(), "registry serving") {
				once.Do(func() { close(ready) })
			}
		}
		cmd.Wait()
		close(exit)
	}()
	select {
	case <-ready:
	case <-exit:
		logMu.Lock()
		defer logMu.Unlock()
		return fmt.Errorf("leasedeck serve exited: %s", log.String())
	case <-time.After(15 * time.Second):
		cmd.Process.Kill()
		<-exit
		return errors.New("leasedeck serve did not start within 15s")
	}
	e.serve, e.exit = cmd, exit
	return nil
}

// stopRegistry stops `leasedeck serve` (SIGTERM) and waits for it.
func (e *env) stopRegistry() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.serve == nil {
		return
	}
	e.serve.Process.Signal(syscall.SIGTERM)
	select {
	case <-e.exit:
	case <-time.After(15 * time.Second):
		e.serve.Process.Kill()
		<-e.exit
		e.t.Error("leasedeck serve did not stop on SIGTERM")
	}
	e.serve = nil
}

// install runs `leasedeck install <client>` (project scope), with the hooks
// pointing at the built binary.
func (e *env) install(client string, extra ...string) string {
	e.t.Helper()
	r := e.leasedeck("", append([]string{"install", client, "--command", binary}, extra...)...)
	if r.code != 0 {
		e.t.Fatalf("leasedeck install %s: %+v", client, r)
	}
	return r.stdout + r.stderr
}

func (e *env) leases() []registry.LeaseView {
	e.t.Helper()
	r := e.leasedeck("", "leases", "--json")
	if r.code != 0 {
		e.t.Fatalf("leasedeck leases: %+v", r)
	}
	var out []registry.LeaseView
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		e.t.Fatalf("leases --json: %v\n%s", err, r.stdout)
	}
	return out
}

// waitLeasesEnded waits, within d, until no lease of runtime agent is
// live (agent "" for every lease): the registry ends a session whose
// client sends no session end when the client process exits, a moment
// after the run returns.
func (e *env) waitLeasesEnded(agent string, d time.Duration) {
	e.t.Helper()
	deadline := time.Now().Add(d)
	for {
		var live []string
		for _, l := range e.leases() {
			if l.Live && (agent == "" || l.RuntimeAgent == agent) {
				live = append(live, l.ID+" "+l.Agent)
			}
		}
		if len(live) == 0 {
			return
		}
		if time.Now().After(deadline) {
			e.t.Errorf("%d lease(s) still live %s after the client exited: %v", len(live), d, live)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// journal returns the journal files' contents by name.
func (e *env) journal() map[string]string {
	e.t.Helper()
	dir := filepath.Join(e.ws, ".leasedeck", "journal")
	ents, err := os.ReadDir(dir)
	if err != nil {
		e.t.Fatal(err)
	}
	out := map[string]string{}
	for _, ent := range ents {
		if ent.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, ent.Name()))
		if err != nil {
			e.t.Fatal(err)
		}
		out[ent.Name()] = string(b)
	}
	return out
}

// checkJournal: `leasedeck journal verify` is clean and no journal file
// holds any of the raw strings.
func (e *env) checkJournal(raw ...string) {
	e.t.Helper()
	if r := e.leasedeck("", "journal", "verify"); r.code != 0 {
		e.t.Errorf("leasedeck journal verify: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	files := e.journal()
	if len(files) == 0 {
		e.t.Error("no journal files")
	}
	for name, text := range files {
		for _, s := range raw {
			if s != "" && strings.Contains(text, s) {
				e.t.Errorf("journal file %s holds the raw string %q", name, s)
			}
		}
	}
}

// auditLines returns the audit journal's lines that contain every needle.
func (e *env) auditLines(needles ...string) []string {
	var out []string
	for _, l := range strings.Split(e.journal()["audit.jsonl"], "\n") {
		ok := l != ""
		for _, n := range needles {
			ok = ok && strings.Contains(l, n)
		}
		if ok {
			out = append(out, l)
		}
	}
	return out
}

// ---- the human at the cockpit ----

// rule is how the scripted human answers a pending approval whose summary
// contains match: approve, or deny with reason.
type rule struct {
	match   string
	approve bool
	reason  string
}

// seenApproval is a pending approval as the human saw it, and what the
// disk looked like at that moment.
type seenApproval struct {
	registry.ApprovalView
	approved bool
	probe    bool // the probe's answer when the approval was first seen
}

// human polls `leasedeck approvals --json` and answers by the rules,
// through `leasedeck approve` / `leasedeck deny`, until stopped. probe,
// when set, is called with each approval the moment it is first seen
// (e.g. "does the directory the command would delete still exist?").
type human struct {
	e     *env
	rules []rule
	probe func(registry.ApprovalView) bool

	mu   sync.Mutex
	seen []seenApproval
	errs []string
	stop chan struct{}
	done chan struct{}
}

func (e *env) human(probe func(registry.ApprovalView) bool, rules ...rule) *human {
	h := &human{e: e, rules: rules, probe: probe, stop: make(chan struct{}), done: make(chan struct{})}
	go h.loop()
	return h
}

func (h *human) loop() {
	defer close(h.done)
	answered := map[string]bool{}
	for {
		select {
		case <-h.stop:
			return
		case <-time.After(50 * time.Millisecond):
		}
		cmd := exec.Command(binary, "approvals", "--json")
		cmd.Dir, cmd.Env = h.e.ws, h.e.vars
		out, err := cmd.Output()
		if err != nil {
			continue // the registry may be stopped on purpose
		}
		var pending []registry.ApprovalView
		if json.Unmarshal(out, &pending) != nil {
			continue
		}
		for _, a := range pending {
			if answered[a.ID] {
				continue
			}
			answered[a.ID] = true
			s := seenApproval{ApprovalView: a}
			if h.probe != nil {
				s.probe = h.probe(a)
			}
			var args []string
			for _, r := range h.rules {
				if strings.Contains(a.Summary, r.match) {
					s.approved = r.approve
					if r.approve {
						args = []string{"approve", a.ID}
					} else {
						args = []string{"deny", a.ID, "--reason", r.reason}
					}
					break
				}
			}
			if args == nil {
				args = []string{"deny", a.ID, "--reason", "the test's human has no rule for this call"}
			}
			c := exec.Command(binary, args...)
			c.Dir, c.Env = h.e.ws, h.e.vars
			if out, err := c.CombinedOutput(); err != nil {
				h.mu.Lock()
				h.errs = append(h.errs, fmt.Sprintf("leasedeck %v: %v %s", args, err, out))
				h.mu.Unlock()
			}
			h.mu.Lock()
			h.seen = append(h.seen, s)
			h.mu.Unlock()
		}
	}
}

// finish stops the human and returns what it saw.
func (h *human) finish() []seenApproval {
	close(h.stop)
	<-h.done
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, e := range h.errs {
		h.e.t.Error(e)
	}
	return append([]seenApproval(nil), h.seen...)
}

// ---- running a client ----

type clientRun struct {
	code           int
	stdout, stderr string
	took           time.Duration
	// cpu is the client's user and system CPU time, with that of the
	// processes it waited for (its tools and command hooks): what the
	// client spent, far less moved by other load on the machine than took.
	cpu time.Duration
}

// runClient runs a client executable headless in the workspace with
// stdin closed, killing it after limit.
func (e *env) runClient(limit time.Duration, vars []string, exe string, args ...string) clientRun {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Dir, cmd.Env = e.ws, vars
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := clientRun{stdout: out.String(), stderr: errb.String(), took: time.Since(start)}
	if ps := cmd.ProcessState; ps != nil {
		r.cpu = ps.UserTime() + ps.SystemTime()
	}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		e.t.Fatalf("%s did not finish within %s\nstdout: %s\nstderr: %s", filepath.Base(exe), limit, tail(r.stdout, 2000), tail(r.stderr, 2000))
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		e.t.Fatalf("%s: %v", exe, err)
	}
	return r
}

// ---- assertions ----

var spaces = regexp.MustCompile(`\s+`)

// contains reports whether haystack contains needle, whitespace folded.
func contains(haystack, needle string) bool {
	return strings.Contains(spaces.ReplaceAllString(haystack, " "), spaces.ReplaceAllString(needle, " "))
}

// ---- a user's own hook, to see which events fire ----

// recorderEvents are the native events a user's recorder hook listens to,
// per settings file format; tool events get a "*" matcher.
var recorderEvents = map[string]struct {
	file   string
	events []string
	tools  map[string]bool
}{
	"claude-code": {".claude/settings.json", []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest",
		"PostToolUse", "PostToolUseFailure", "SubagentStart", "SubagentStop", "Stop", "SessionEnd"},
		map[string]bool{"PreToolUse": true, "PermissionRequest": true, "PostToolUse": true, "PostToolUseFailure": true}},
	"codex": {".codex/hooks.json", []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest",
		"PostToolUse", "Stop", "SessionEnd"},
		map[string]bool{"PreToolUse": true, "PermissionRequest": true, "PostToolUse": true}},
	"gemini": {".gemini/settings.json", []string{"SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent", "SessionEnd"},
		map[string]bool{"BeforeTool": true, "AfterTool": true}},
	"qwen-code": {".qwen/settings.json", []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop", "SessionEnd"},
		map[string]bool{"PreToolUse": true, "PostToolUse": true, "PostToolUseFailure": true}},
}

// plantRecorder writes the client's project settings file with a user's
// hook on every recorder event — before leasedeck install runs, which must
// keep it. The hook saves each payload to its own file and decides
// nothing. It returns the hook's command.
func (e *env) plantRecorder(client string) string {
	e.t.Helper()
	spec := recorderEvents[client]
	dir := filepath.Join(e.root, "events")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		e.t.Fatal(err)
	}
	cmd := `cat > "` + dir + `/$(date +%s%N)-$$.json"`
	hooks := map[string]any{}
	for _, ev := range spec.events {
		h := map[string]any{"type": "command", "command": cmd, "timeout": 10}
		if client == "gemini" {
			h = map[string]any{"name": "recorder", "type": "command", "command": cmd, "timeout": 10000}
		}
		g := map[string]any{"hooks": []any{h}}
		if spec.tools[ev] {
			g["matcher"] = "*"
		}
		hooks[ev] = []any{g}
	}
	b, _ := json.MarshalIndent(map[string]any{"hooks": hooks}, "", "  ")
	e.write(spec.file, string(b))
	return cmd
}

// recorded returns the payloads the recorder saw, in the order they came.
func (e *env) recorded() []map[string]any {
	e.t.Helper()
	files, _ := filepath.Glob(filepath.Join(e.root, "events", "*.json"))
	sort.Slice(files, func(i, j int) bool {
		ni, _ := strconv.ParseInt(strings.SplitN(filepath.Base(files[i]), "-", 2)[0], 10, 64)
		nj, _ := strconv.ParseInt(strings.SplitN(filepath.Base(files[j]), "-", 2)[0], 10, 64)
		return ni < nj
	})
	var out []map[string]any
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var m map[string]any
		if json.Unmarshal(b, &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// eventCounts counts the recorded payloads by hook_event_name.
func eventCounts(evs []map[string]any) map[string]int {
	n := map[string]int{}
	for _, m := range evs {
		name, _ := m["hook_event_name"].(string)
		n[name]++
	}
	return n
}

// sessionIDs returns the distinct session ids in the recorded payloads.
func sessionIDs(evs []map[string]any) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range evs {
		if s, _ := m["session_id"].(string); s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// gateDecisions counts the gate decisions in the audit journal.
func (e *env) gateDecisions() int {
	return len(e.auditLines(`"event_type":"leasedeck.gate.`))
}

// rawIDs are the identifiers the clients sent that must never be stored
// raw: session, turn/prompt and agent ids.
func rawIDs(evs []map[string]any) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range evs {
		for _, k := range []string{"session_id", "prompt_id", "turn_id", "agent_id"} {
			if s, _ := m[k].(string); len(s) >= 8 && !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}

// jsonString is s as it appears inside a JSON document.
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.Trim(strings.TrimSpace(b.String()), `"`)
}
