package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/bridge"
	"github.com/leasedeck/leasedeck/registry"
	"github.com/leasedeck/leasedeck/registry/wire"
	"github.com/leasedeck/leasedeck/workspace"
)

const payloadDir = "../../bridge/testdata"

// payload reads a recorded hook payload and points it at the workspace:
// the recorded project directory becomes w.dir.
func (w *wsEnv) payload(client, name string, edit func(m map[string]any)) string {
	w.t.Helper()
	b, err := os.ReadFile(filepath.Join(payloadDir, client, name+".json"))
	if err != nil {
		w.t.Fatal(err)
	}
	s := strings.ReplaceAll(string(b), "/home/u/proj", w.dir)
	if edit == nil {
		return s
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		w.t.Fatal(err)
	}
	edit(m)
	out, _ := json.Marshal(m)
	return string(out)
}

func (w *wsEnv) hook(client, stdin string) result {
	w.t.Helper()
	return w.hookOn(binary, client, stdin)
}

// hookOn runs the hook with one of the two programs that run hooks:
// `leasedeck hook` or the lean leasedeck-hook (the same words).
func (w *wsEnv) hookOn(exe, client, stdin string) result {
	w.t.Helper()
	return w.runExe(exe, stdin, "hook", client, "--workspace", w.dir, "--timeout", "8")
}

// hookPrograms are both programs that run hooks, for tests that must hold
// for each.
func hookPrograms() []string { return []string{binary, hookBinary} }

// Every recorded payload of every client, through the real binary against
// a real registry: an answer in the client's own form, a documented exit
// code (0, or 2 to block; never 1 to mean deny), no crash.
func TestHookEveryRecordedPayload(t *testing.T) {
	w := newWorkspace(t)
	w.serve()
	clients, _ := os.ReadDir(payloadDir)
	n := 0
	for _, c := range clients {
		if !c.IsDir() || c.Name() == "golden" || c.Name() == "install" {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(payloadDir, c.Name(), "*.json"))
		sort.Strings(files)
		for _, f := range files {
			name := strings.TrimSuffix(filepath.Base(f), ".json")
			stdin := w.payload(c.Name(), name, nil)
			// Requests that would wait for a human (WebFetch, rm) are
			// answered when the short test hook timeout runs out.
			n++
			for _, exe := range hookPrograms() {
				r := w.hookOn(exe, c.Name(), stdin)
				prog := filepath.Base(exe)
				if r.code != 0 && r.code != 2 {
					// Exit 1 is only for a payload leasedeck cannot map at all.
					if r.code != 1 || !strings.Contains(r.stderr, "unknown") {
						t.Errorf("%s: %s/%s: exit %d\nstdout: %s\nstderr: %s", prog, c.Name(), name, r.code, r.stdout, r.stderr)
					}
				}
				if out := strings.TrimSpace(r.stdout); out != "" && !json.Valid([]byte(out)) {
					t.Errorf("%s: %s/%s: stdout is not JSON: %s", prog, c.Name(), name, out)
				}
				if strings.Contains(r.stdout+r.stderr, "internal") {
					t.Errorf("%s: %s/%s: %s %s", prog, c.Name(), name, r.stdout, r.stderr)
				}
			}
		}
	}
	if n < 60 {
		t.Fatalf("only %d payloads", n)
	}
	if r := w.run("", "journal", "verify"); r.code != 0 {
		t.Fatalf("journal verify after every payload: %+v", r)
	}
}

// Decisions in each client's own format for the calls that matter.
func TestHookDecisionFormats(t *testing.T) {
	w := newWorkspace(t)
	w.serve()
	cases := []struct {
		client, payload string
		edit            func(m map[string]any)
		code            int
		want            string
	}{
		{"claude-code", "PreToolUse", nil, 0, `"permissionDecision":"allow"`},
		{"claude-code", "PreToolUse", func(m map[string]any) { m["tool_input"].(map[string]any)["command"] = "ls && sudo id" }, 0, `"permissionDecision":"deny"`},
		{"claude-code", "PreToolUse.Write", func(m map[string]any) { m["tool_input"].(map[string]any)["file_path"] = "/etc/passwd" }, 0, `escapes the workspace`},
		{"claude-code", "PreToolUse.Read", func(m map[string]any) { m["tool_input"].(map[string]any)["file_path"] = "~/.ssh/id_rsa" }, 0, `denied`},
		{"codex", "PreToolUse", func(m map[string]any) { m["tool_input"].(map[string]any)["command"] = "git status && sudo reboot" }, 0, `"permissionDecision":"deny"`},
		{"codex", "PreToolUse.apply_patch", nil, 0, ""},
		{"gemini", "BeforeTool", nil, 0, `"decision":"allow"`},
		{"gemini", "BeforeTool", func(m map[string]any) { m["tool_input"].(map[string]any)["command"] = "sudo ls" }, 2, `"decision":"deny"`},
		{"vscode", "PreToolUse", nil, 0, `"permissionDecision":"allow"`},
	}
	for _, exe := range hookPrograms() {
		for _, c := range cases {
			r := w.hookOn(exe, c.client, w.payload(c.client, c.payload, c.edit))
			if r.code != c.code || !strings.Contains(r.stdout, c.want) {
				t.Errorf("%s: %s %s: exit %d (want %d), stdout %s, stderr %s", filepath.Base(exe), c.client, c.payload, r.code, c.code, r.stdout, r.stderr)
			}
		}
	}
	// The registry stopped: fail closed in enforce mode, saying how to start it.
	w.stop()
	for _, exe := range hookPrograms() {
		r := w.hookOn(exe, "claude-code", w.payload("claude-code", "PreToolUse", nil))
		if r.code != 0 || !strings.Contains(r.stdout, `"permissionDecision":"deny"`) || !strings.Contains(r.stdout, "leasedeck serve") {
			t.Errorf("%s: registry down: %+v", filepath.Base(exe), r)
		}
	}
}

func TestBridgeBadInput(t *testing.T) {
	w := newWorkspace(t)
	w.serve()
	big := `{"op":"post-tool","admission_id":"","session":"s","tool":"Read","result":"` + strings.Repeat("a", 10<<20) + `"}`
	cases := []struct {
		stdin string
		code  int
		want  string
	}{
		{"", 1, `"decision":"error"`},
		{"not json", 1, `"decision":"error"`},
		{`{"op":"launch"}`, 1, `"decision":"error"`},
		{`{"op":"pre-tool","admission_id":"no-such-admission","tool":"Bash","tool_input":{"command":"ls"}}`, 0, `"decision":"deny"`},
		{`{"op":"begin","client":"claude-code","session":"s1","prompt":"hi","a_field_from_a_newer_client":{"x":1}}`, 0, `"decision":"allow"`},
		{big, 0, `"decision"`},
	}
	for _, c := range cases {
		r := w.run(c.stdin, "bridge", "--workspace", w.dir)
		if r.code != c.code || !strings.Contains(r.stdout, c.want) {
			t.Errorf("bridge %.50q: exit %d (want %d): %s %s", c.stdin, r.code, c.code, r.stdout, r.stderr)
		}
		var resp map[string]any
		if err := json.Unmarshal([]byte(r.stdout), &resp); err != nil || resp["schema_version"] == nil {
			t.Errorf("bridge %.50q: not a schema-shaped response: %s", c.stdin, r.stdout)
		}
	}
	for _, stdin := range []string{"", "not json", `{"hook_event_name":"PreToolUse"}`, `{"session_id":"s","hook_event_name":"NoSuchEvent"}`} {
		r := w.hook("claude-code", stdin)
		if r.code == 1 && !strings.Contains(r.stderr, "leasedeck") {
			t.Errorf("hook %q: exit 1 without saying why: %+v", stdin, r)
		}
		if strings.Contains(stdin, "PreToolUse") && !strings.Contains(r.stdout+r.stderr, "deny") && r.code != 2 {
			t.Errorf("hook %q: a broken gate payload must fail closed: %+v", stdin, r)
		}
	}
}

// A whole Claude Code session replayed through the hooks: certified when
// it stays inside the lease; revoked and non_certified when it writes
// outside it. Raw prompts, session ids and a planted secret never reach
// the journal.
func TestClaudeSessionReplay(t *testing.T) {
	w := newWorkspace(t)
	w.serve()
	const secret = "sk-ant-api03-PLANTEDsecretKEY0123456789abcdefghijklmnopqrstuvwxyz"
	const prompt = "please refactor the parser, my key is " + secret
	session := "replay-session-RAW-5f1e"
	set := func(m map[string]any) { m["session_id"] = session }
	tool := func(name, toolName string, input map[string]any) string {
		return w.payload("claude-code", name, func(m map[string]any) {
			set(m)
			m["tool_name"], m["tool_input"] = toolName, input
		})
	}
	step := func(label, stdin, want string) result {
		t.Helper()
		r := w.hook("claude-code", stdin)
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Fatalf("%s: exit %d, stdout %s, stderr %s (want %q)", label, r.code, r.stdout, r.stderr, want)
		}
		return r
	}
	step("SessionStart", w.payload("claude-code", "SessionStart", set), "governs this session")
	step("UserPromptSubmit", w.payload("claude-code", "UserPromptSubmit", func(m map[string]any) { set(m); m["prompt"] = prompt }), "additionalContext")
	step("allowed Bash", tool("PreToolUse", "Bash", map[string]any{"command": "git status"}), `"allow"`)
	step("post Bash", tool("PostToolUse", "Bash", map[string]any{"command": "git status"}), "")
	step("denied Bash", tool("PreToolUse", "Bash", map[string]any{"command": "git status && sudo rm -rf /"}), `"deny"`)
	step("allowed Write", tool("PreToolUse", "Write", map[string]any{"file_path": filepath.Join(w.dir, "src", "p.go"), "content": "package p"}), `"allow"`)
	step("post Write", tool("PostToolUse.Write", "Write", map[string]any{"file_path": filepath.Join(w.dir, "src", "p.go"), "content": "package p"}), "")

	// A call needing a human, approved from another process while the hook waits.
	done := make(chan result, 1)
	go func() {
		done <- w.run(tool("PreToolUse", "Bash", map[string]any{"command": "rm -rf build"}), "hook", "claude-code", "--workspace", w.dir, "--timeout", "30")
	}()
	pending := w.waitApprovals(t, 1)
	if pending[0].Client != "claude-code" {
		t.Fatalf("pending: %+v", pending)
	}
	if r := w.run("", "approve", pending[0].ID); r.code != 0 {
		t.Fatalf("approve: %+v", r)
	}
	if r := <-done; r.code != 0 || !strings.Contains(r.stdout, `"allow"`) || !strings.Contains(r.stdout, "approved") {
		t.Fatalf("approved hook: %+v", r)
	}
	step("post rm", tool("PostToolUse", "Bash", map[string]any{"command": "rm -rf build"}), "")

	// A subagent gets a child lease narrowed from the session's.
	sub := func(m map[string]any) { set(m); m["agent_id"] = "agent-7"; m["agent_type"] = "Explore" }
	step("SubagentStart", w.payload("claude-code", "SubagentStart", sub), "governs this session")
	step("subagent call", w.payload("claude-code", "PreToolUse.subagent", sub), `"allow"`)
	leases := w.leases()
	var root, child registry.LeaseView
	for _, l := range leases {
		if l.ParentID == "" {
			root = l
		} else {
			child = l
		}
	}
	if child.ParentID != root.ID || child.Agent != "subagent Explore" {
		t.Fatalf("subagent lease: %+v under %+v", child, root)
	}
	step("SubagentStop", w.payload("claude-code", "SubagentStop", sub), "")

	// Usage with an accurate source, through the lifecycle bridge.
	if r := w.run(`{"op":"telemetry","admission_id":"","session":"`+session+`","client":"claude-code","input_tokens":1200,"output_tokens":300,"cost_amount":0.02,"cost_currency":"USD","cost_source":"provider_reported"}`, "bridge", "--workspace", w.dir); r.code != 0 || !strings.Contains(r.stdout, `"recorded"`) {
		t.Fatalf("telemetry: %+v", r)
	}
	step("Stop", w.payload("claude-code", "Stop", set), "")
	if !strings.Contains(w.audit(), `"outcome":"certified"`) {
		t.Fatalf("first turn was not certified:\n%s", w.audit())
	}

	// Second turn: a write outside the grant is reported → revoked, non_certified.
	step("UserPromptSubmit 2", w.payload("claude-code", "UserPromptSubmit", set), "additionalContext")
	step("escaped write", tool("PostToolUse.Write", "Write", map[string]any{"file_path": filepath.Join(w.dir, ".env"), "content": "X=1"}), "")
	step("Stop 2", w.payload("claude-code", "Stop", set), "")
	if !strings.Contains(w.audit(), `"outcome":"non_certified"`) || !strings.Contains(w.audit(), "scope violation") {
		t.Fatalf("second turn not non_certified:\n%s", w.audit())
	}
	if l := w.leases()[root.ID]; l.Status != registry.Revoked {
		t.Fatalf("session lease after the violation: %s", l.Status)
	}
	r := w.hook("claude-code", tool("PreToolUse", "Bash", map[string]any{"command": "git status"}))
	if r.code != 2 || !strings.Contains(r.stderr, "revoked") {
		t.Fatalf("call after revocation must block: %+v", r)
	}

	for _, name := range []string{"leases.jsonl", "audit.jsonl"} {
		b, _ := os.ReadFile(filepath.Join(w.dir, ".leasedeck", "journal", name))
		for _, raw := range []string{session, "refactor the parser", secret, "PLANTEDsecret"} {
			if strings.Contains(string(b), raw) {
				t.Errorf("%s contains %q", name, raw)
			}
		}
	}
	if r := w.run("", "journal", "verify"); r.code != 0 {
		t.Fatalf("journal verify: %+v", r)
	}
}

func (w *wsEnv) audit() string {
	b, _ := os.ReadFile(filepath.Join(w.dir, ".leasedeck", "journal", "audit.jsonl"))
	return string(b)
}

// BenchmarkHookPreToolUse is the round trip a client sees for one
// PreToolUse: process start, payload parse, socket, gate, fsync, answer.
func BenchmarkHookPreToolUse(b *testing.B) {
	benchHook(b, 1)
}

// BenchmarkHookPreToolUse16 runs 16 hooks at once.
func BenchmarkHookPreToolUse16(b *testing.B) {
	benchHook(b, 16)
}

func benchHook(b *testing.B, parallel int) {
	t := &testing.T{}
	_ = t
	dir, _ := filepath.EvalSymlinks(b.TempDir())
	base := shortTempDir(b)
	env := isolatedEnv(base)
	run := func(stdin string, args ...string) {
		cmd := exec.Command(binary, args...)
		cmd.Dir, cmd.Env, cmd.Stdin = dir, env, strings.NewReader(stdin)
		if out, err := cmd.CombinedOutput(); err != nil && !strings.Contains(string(out), "allow") {
			b.Fatalf("%v: %v %s", args, err, out)
		}
	}
	run("", "init", dir)
	serve := exec.Command(binary, "serve")
	serve.Dir, serve.Env = dir, env
	if err := serve.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { serve.Process.Signal(os.Interrupt); serve.Wait() }()
	for i := 0; i < 100; i++ {
		if _, err := os.Stat(filepath.Join(base, "s", "leasedeck", workspace.Workspace{Root: dir}.ID(), "registry.sock")); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	raw, _ := os.ReadFile(filepath.Join(payloadDir, "claude-code", "PreToolUse.json"))
	stdin := strings.ReplaceAll(string(raw), "/home/u/proj", dir)
	run(stdin, "hook", "claude-code", "--workspace", dir) // the session's lease is issued once
	var mu sync.Mutex
	var lat []time.Duration
	b.ResetTimer()
	for b.Loop() {
		var wg sync.WaitGroup
		for p := 0; p < parallel; p++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				start := time.Now()
				cmd := exec.Command(binary, "hook", "claude-code", "--workspace", dir)
				cmd.Dir, cmd.Env, cmd.Stdin = dir, env, strings.NewReader(stdin)
				out, err := cmd.Output()
				if err != nil || !strings.Contains(string(out), `"allow"`) {
					b.Errorf("hook: %v %s", err, out)
				}
				mu.Lock()
				lat = append(lat, time.Since(start))
				mu.Unlock()
			}()
		}
		wg.Wait()
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "median-ms")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	}
}

func TestInstallThroughBinary(t *testing.T) {
	w := newWorkspace(t)
	settings := filepath.Join(w.dir, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o755)
	user := `{"model":"x","hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"my-own-check"}]}]}}`
	os.WriteFile(settings, []byte(user), 0o644)

	dry := w.run("", "install", "claude-code", "--dry-run", "--command", binary)
	if dry.code != 0 || !strings.Contains(dry.stdout, "my-own-check") || !strings.Contains(dry.stdout, "hook claude-code --workspace "+w.dir+" --timeout") || !strings.Contains(dry.stdout, `"onFailure": "block"`) {
		t.Fatalf("dry run: %+v", dry)
	}
	if b, _ := os.ReadFile(settings); string(b) != user {
		t.Fatal("dry run wrote the file")
	}
	if r := w.run("", "install", "claude-code", "--command", binary); r.code != 0 {
		t.Fatalf("install: %+v", r)
	}
	b, _ := os.ReadFile(settings)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m["model"] != "x" || !strings.Contains(string(b), "my-own-check") {
		t.Fatalf("the user's settings were not kept: %s", b)
	}
	for _, ev := range []string{"PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "Stop", "SessionEnd"} {
		if _, ok := m["hooks"].(map[string]any)[ev]; !ok {
			t.Errorf("no %s hook in %s", ev, b)
		}
	}
	// The hook timeout is longer than the approval timeout (120 s).
	if !strings.Contains(string(b), `"timeout": 150`) {
		t.Errorf("hook timeout: %s", b)
	}
	if r := w.run("", "install", "claude-code", "--command", binary); r.code != 0 || !strings.Contains(r.stdout, "nothing changed") {
		t.Errorf("second install: %+v", r)
	}
	for _, c := range []string{"codex", "gemini", "vscode"} {
		if r := w.run("", "install", c, "--command", binary); r.code != 0 {
			t.Errorf("install %s: %+v", c, r)
		}
	}
	if r := w.run("", "install", "emacs"); r.code != 2 {
		t.Errorf("unknown client: %+v", r)
	}
}

// Hooks installed mid-session: a subagent's first call comes before
// leasedeck ever saw its parent session. The registry answers
// unknown_parent (a code, not a sentence) and the bridge admits the
// parent, then the subagent, and gates the call.
func TestSubagentBeforeItsParent(t *testing.T) {
	w := newWorkspace(t)
	w.serve()
	sub := func(m map[string]any) {
		m["session_id"] = "late-session"
		m["agent_id"] = "agent-9"
		m["agent_type"] = "Explore"
	}
	r := w.hook("claude-code", w.payload("claude-code", "PreToolUse.subagent", sub))
	if r.code != 0 || !strings.Contains(r.stdout, `"allow"`) {
		t.Fatalf("subagent's first call: %+v", r)
	}
	var root, child registry.LeaseView
	for _, l := range w.leases() {
		if l.ParentID == "" {
			root = l
		} else {
			child = l
		}
	}
	if root.ID == "" || child.ParentID != root.ID || child.Agent != "subagent Explore" {
		t.Fatalf("leases: child %+v under %+v", child, root)
	}
}

// lateCapabilities is the capability store as a second hook process sees
// it when the first one began the session a moment before: empty at the
// process's start, written by the time it asks again.
type lateCapabilities struct {
	bridge.CapabilityFiles
	loads int
}

func (l *lateCapabilities) Load(session string) string {
	l.loads++
	if l.loads == 1 {
		return ""
	}
	return l.CapabilityFiles.Load(session)
}

// Two hook processes of one client racing at the session's first contact:
// the one that did not begin it is refused wrong_session, finds the
// capability the other stored, and goes on; nothing is shared with a
// process that holds no capability at all.
func TestSecondHookProcessPicksUpTheCapability(t *testing.T) {
	w := newWorkspace(t)
	w.serve()
	set := func(m map[string]any) { m["session_id"] = "raced-session" }
	if r := w.hook("claude-code", w.payload("claude-code", "SessionStart", set)); r.code != 0 {
		t.Fatalf("SessionStart: %+v", r)
	}
	req := bridge.Request{Op: bridge.OpPreTool, Client: "claude-code", Session: "raced-session", Tool: "Bash",
		ToolInput: map[string]any{"command": "ls"}}
	run := func(caps bridge.Capabilities) bridge.Response {
		c, err := wire.Dial(w.sock(), time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		return bridge.Process(c, req, bridge.ProcessOptions{Mode: "enforce", Capabilities: caps})
	}
	dir := filepath.Join(w.stateDir(), "sessions")
	if resp := run(&lateCapabilities{CapabilityFiles: bridge.CapabilityFiles{Dir: dir}}); resp.Decision != bridge.DecisionAllow {
		t.Fatalf("the second hook process: %+v", resp)
	}
	if resp := run(bridge.CapabilityFiles{Dir: t.TempDir()}); resp.Decision != bridge.DecisionDeny || !strings.Contains(resp.Reason, "capability") {
		t.Fatalf("a process with no capability: %+v", resp)
	}
}
