package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/e2e/fakemodel"
	"github.com/leasedeck/leasedeck/registry"
)

// ---- Qwen Code ----

// Qwen Code refuses a relative file_path before any hook runs, so the
// scripted model names files absolutely.
var qwenDialect = dialect{
	client: "qwen-code", agent: "unknown",
	read: func(e *env, rel string) fakemodel.Call {
		return fakemodel.Call{Name: "read_file", Input: map[string]any{"file_path": e.path(rel)}}
	},
	write: func(e *env, rel, content string) fakemodel.Call {
		return fakemodel.Call{Name: "write_file", Input: map[string]any{"file_path": e.path(rel), "content": content + "\n"}}
	},
	shell: func(cmd string) fakemodel.Call {
		return fakemodel.Call{Name: "run_shell_command", Input: map[string]any{"command": cmd}}
	},
	gateEvent: "PreToolUse",
	// A headless run fires no SessionEnd (clients-more §1.3): the
	// registry ends the session's lease when the qwen process exits.
	lifecycle:  []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"},
	endsAtExit: true,
}

// qwenVars writes the user settings that point Qwen Code at the fake Chat
// Completions API and returns the environment for a headless run. The
// hooks come only from `leasedeck install qwen-code`.
func qwenVars(e *env, baseURL string) []string {
	dir := filepath.Join(e.home, ".qwen")
	os.MkdirAll(dir, 0o700)
	settings := `{
  "security": {"auth": {"selectedType": "openai"}},
  "model": {"name": "fake-model"},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "general": {"enableAutoUpdate": false}
}
`
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(settings), 0o600); err != nil {
		e.t.Fatal(err)
	}
	return e.with("OPENAI_API_KEY=fake-e2e-key", "OPENAI_BASE_URL="+baseURL+"/v1", "OPENAI_MODEL=fake-model",
		"QWEN_CODE_SUPPRESS_YOLO_WARNING=1")
}

func TestQwenCode(t *testing.T) {
	requireClientE2E(t, "qwen")
	qwen := client(t, qwenClient)
	e := governedWorkspace(t, "qwen-code")
	recorder := e.plantRecorder("qwen-code") // the user's own hooks, which install must keep
	note := e.install("qwen-code")
	if b, err := os.ReadFile(e.path(".qwen/settings.json")); err != nil || !strings.Contains(string(b), hookBinary+" hook qwen-code") || !strings.Contains(string(b), jsonString(recorder)) {
		t.Fatalf("leasedeck install qwen-code: %v %s %s", err, b, note)
	}
	srv := fakemodel.NewChat()
	defer srv.Close()
	srv.AddScript(fakemodel.Script{Name: "main", Steps: standardSteps(e, qwenDialect, srv.URL)})
	h := standardHuman(e)
	prompt := "Tidy the repository. My key is " + plantedPromptSecret + " " + fakemodel.Marker("main")
	run := e.runClient(6*time.Minute, qwenVars(e, srv.URL), qwen, "-p", prompt, "--yolo")
	seen := h.finish()
	t.Logf("qwen -p: exit %d in %s", run.code, run.took.Round(time.Millisecond))
	if run.code != 0 || !strings.Contains(run.stdout, "All done.") {
		t.Fatalf("qwen -p: exit %d\nstdout: %s\nstderr: %s", run.code, tail(run.stdout, 3000), tail(run.stderr, 3000))
	}
	checkStandard(t, e, qwenDialect, srv, seen, prompt, "Tidy the repository", plantedPromptSecret, plantedInputSecret, "PLANTED")
}

// freezeRegistry stops the registry process (SIGSTOP): its socket still
// accepts connections, but nothing answers, like a registry that hangs.
func (e *env) freezeRegistry(sig syscall.Signal) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.serve != nil {
		e.serve.Process.Signal(sig)
	}
}

// hungRegistry runs one shell call while the registry hangs, for a client
// that lets the call run when its hook times out. The policy's approval
// timeout is cut to 2 s before install, so the hook timeout install writes
// is 32 s; the hook must answer "deny" itself before that.
func hungRegistry(t *testing.T, d dialect, agentFile, exe string, vars func(e *env, url string) []string, args func(prompt string) []string, installArgs ...string) {
	e := governedWorkspace(t, agentFile)
	policy := filepath.Join(e.ws, ".leasedeck", "policy.json")
	b, err := os.ReadFile(policy)
	if err != nil {
		t.Fatal(err)
	}
	var p map[string]any
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	p["approval_timeout_ms"] = 2000
	b, _ = json.MarshalIndent(p, "", "  ")
	if err := os.WriteFile(policy, b, 0o600); err != nil {
		t.Fatal(err)
	}
	e.install(d.client, installArgs...)
	srv := fakemodel.NewChat(fakemodel.Script{Name: "main", Steps: []fakemodel.Step{
		{Before: func() { e.freezeRegistry(syscall.SIGSTOP) }, Calls: []fakemodel.Call{d.shell("touch src/while_hung.txt")}},
		{Before: func() { e.freezeRegistry(syscall.SIGCONT) }, Text: "All done."},
	}})
	defer srv.Close()
	t.Cleanup(func() { e.freezeRegistry(syscall.SIGCONT) })
	run := e.runClient(4*time.Minute, vars(e, srv.URL), exe, args("Touch a file. "+fakemodel.Marker("main"))...)
	t.Logf("%s with the registry hung: exit %d in %s", d.client, run.code, run.took.Round(time.Millisecond))
	rs, ok := srv.ResultsAfter("main", 0)
	if !ok || len(rs) != 1 {
		t.Fatalf("no tool result came back: %v %+v\nstdout: %s\nstderr: %s", ok, rs, tail(run.stdout, 2000), tail(run.stderr, 2000))
	}
	t.Logf("the model got: %s", rs[0].Text)
	if exists(e.path("src/while_hung.txt")) {
		t.Fatalf("the call ran while the registry hung (the client's hook timeout let it through): %s", rs[0].Text)
	}
	if !contains(rs[0].Text, "leasedeck") || !contains(rs[0].Text, "refused") {
		t.Errorf("the model did not get leasedeck's refusal: %s", rs[0].Text)
	}
	if run.took < 20*time.Second {
		t.Errorf("the run took %s: the hook cannot have waited for the hung registry", run.took)
	}
}

// TestQwenCodeHungRegistry: Qwen Code runs the tool when a hook times
// out; leasedeck's hook answers "deny" before the timeout install wrote.
func TestQwenCodeHungRegistry(t *testing.T) {
	requireClientE2E(t, "qwen")
	qwen := client(t, qwenClient)
	hungRegistry(t, qwenDialect, "qwen-code", qwen, qwenVars, func(prompt string) []string { return []string{"-p", prompt, "--yolo"} })
}

// TestQwenCodeSubagent: Qwen Code's agent tool runs a subagent whose hook
// payloads carry its agent_id; it gets a child lease narrowed from the
// session's, its calls are gated (its sudo refused, its allowed write
// done), and every lease ends when the headless run's process exits.
func TestQwenCodeSubagent(t *testing.T) {
	requireClientE2E(t, "qwen")
	qwen := client(t, qwenClient)
	e := governedWorkspace(t, "qwen-code")
	e.install("qwen-code")
	srv := fakemodel.NewChat(
		fakemodel.Script{Name: "main", Steps: []fakemodel.Step{
			{Calls: []fakemodel.Call{{Name: "agent", Input: map[string]any{"description": "write a file",
				"prompt": "Write the file. " + fakemodel.Marker("child"), "subagent_type": "general-purpose"}}}},
			{Text: "All done."},
		}},
		fakemodel.Script{Name: "child", Steps: []fakemodel.Step{
			{Calls: []fakemodel.Call{qwenDialect.write(e, "src/from_agent.txt", "agent")}},
			{Calls: []fakemodel.Call{qwenDialect.shell("sudo touch pwned.txt")}},
			{Text: "Child done."},
		}})
	defer srv.Close()
	run := e.runClient(4*time.Minute, qwenVars(e, srv.URL), qwen, "-p", "Delegate. "+fakemodel.Marker("main"), "--yolo")
	t.Logf("qwen -p: exit %d in %s", run.code, run.took.Round(time.Millisecond))
	if run.code != 0 || !strings.Contains(run.stdout, "All done.") {
		t.Fatalf("qwen -p: exit %d\nstdout: %s\nstderr: %s", run.code, tail(run.stdout, 3000), tail(run.stderr, 3000))
	}
	e.checkSubagentRun(srv, "src/from_agent.txt", "agent\n", "", func(registry.LeaseView) bool { return true })
	e.checkJournal("Write the file", "Delegate")
}
