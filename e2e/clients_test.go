package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/e2e/fakemodel"
	"github.com/leasedeck/leasedeck/registry"
)

// dialect is how one client's model spells the scripted calls.
type dialect struct {
	client string // leasedeck's adapter name
	agent  string // .leasedeck/agents/<agent>.json
	read   func(e *env, rel string) fakemodel.Call
	write  func(e *env, rel, content string) fakemodel.Call
	shell  func(cmd string) fakemodel.Call
	// errorFlag: the API marks a refused call's result as an error.
	errorFlag bool
	// gateEvent and lifecycle name the client's gate event and the events
	// the user's recorder must see (default: Claude Code's names).
	gateEvent string
	lifecycle []string
	// endsAtExit: the client sends no session end in a headless run; the
	// registry ends the session's lease when the client process exits,
	// which it learns a moment after the run.
	endsAtExit bool
}

// The steps of the standard session every client plays (Claude Code's
// richer one is in claude_test.go).
const (
	stRead = iota
	stWrite
	stShell
	stWriteOutside
	stSudo
	stNotAllowed
	stRmWorkspace
	stApproved
	stDenied
	stRegistryDown
	stEnd
)

func standardSteps(e *env, d dialect, modelURL string) []fakemodel.Step {
	steps := make([]fakemodel.Step, stEnd+1)
	one := func(c fakemodel.Call) []fakemodel.Call { return []fakemodel.Call{c} }
	steps[stRead] = fakemodel.Step{Calls: one(d.read(e, "src/hello.txt"))}
	steps[stWrite] = fakemodel.Step{Calls: one(d.write(e, "src/new.txt", "TOKEN="+plantedInputSecret))}
	steps[stShell] = fakemodel.Step{Calls: one(d.shell("mkdir -p src/gen && echo generated > src/gen/out.txt"))}
	steps[stWriteOutside] = fakemodel.Step{Calls: one(d.write(e, "docs/notes.md", "outside write_paths"))}
	steps[stSudo] = fakemodel.Step{Calls: one(d.shell("echo ok && sudo touch pwned.txt"))}
	steps[stNotAllowed] = fakemodel.Step{Calls: one(d.shell("echo ok > src/chmod.txt && chmod 777 src"))}
	steps[stRmWorkspace] = fakemodel.Step{Calls: one(d.shell("rm -rf " + e.ws))}
	// Held for a human by the default approvals (command:curl); the fake
	// model server answers the request, so the approved one leaves a file.
	steps[stApproved] = fakemodel.Step{Calls: one(d.shell("curl -s " + modelURL + "/approved > build/fetched.txt"))}
	steps[stDenied] = fakemodel.Step{Calls: one(d.shell("curl -s " + modelURL + "/denied > src/fetched.txt"))}
	steps[stRegistryDown] = fakemodel.Step{Before: e.stopRegistry, Calls: one(d.shell("touch after_stop.txt"))}
	steps[stEnd] = fakemodel.Step{Before: e.restartRegistry, Text: "All done."}
	return steps
}

func standardHuman(e *env) *human {
	return e.human(func(registry.ApprovalView) bool { return !exists(e.path("build/fetched.txt")) && exists(e.ws) },
		rule{match: "src/new.txt", approve: true}, // carries a credential: held, masked, approved
		rule{match: "/approved", approve: true},
		rule{match: "rm -rf " + e.ws, reason: deniedByHuman},
		rule{match: "/denied", reason: curlDeniedByHuman},
	)
}

// checkStandard asserts every scenario of the standard session.
func checkStandard(t *testing.T, e *env, d dialect, srv *fakemodel.Server, seen []seenApproval, raw ...string) {
	events := e.recorded()
	counts := eventCounts(events)
	t.Logf("hook events %s fired: %v", d.client, counts)
	gateEvent, lifecycle := "PreToolUse", []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"}
	if d.client == "gemini" {
		gateEvent, lifecycle = "BeforeTool", []string{"SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent", "SessionEnd"}
	}
	if d.gateEvent != "" {
		gateEvent, lifecycle = d.gateEvent, d.lifecycle
	}
	if len(sessionIDs(events)) != 1 {
		t.Errorf("want one session id in the hook payloads, got %v", sessionIDs(events))
	}
	raw = append(raw, rawIDs(events)...)
	result := func(step int) fakemodel.ToolResult {
		t.Helper()
		rs, ok := srv.ResultsAfter("main", step)
		if !ok || len(rs) != 1 {
			t.Fatalf("step %d: want 1 tool result in the model's next request, got %v %+v", step, ok, rs)
		}
		return rs[0]
	}
	refused := func(step int, reasons ...string) {
		t.Helper()
		r := result(step)
		for _, want := range reasons {
			if !contains(r.Text, want) {
				t.Errorf("step %d: the model's next request does not carry %q in the tool result:\n%s", step, want, r.Text)
			}
		}
		if d.errorFlag && !r.IsError {
			t.Errorf("step %d: the refused call's result is not an error: %s", step, r.Text)
		}
	}
	for i := stRead; i < stEnd; i++ {
		if _, ok := srv.ResultsAfter("main", i); !ok {
			t.Fatalf("the model never got the result of step %d (%d requests)", i, len(srv.Requests()))
		}
	}
	if testing.Verbose() {
		dumpResults(t, srv)
	}
	t.Run("every tool call was gated", func(t *testing.T) {
		for _, ev := range lifecycle {
			if counts[ev] == 0 {
				t.Errorf("%s never fired (the user's hook saw %v)", ev, counts)
			}
		}
		if got := e.gateDecisions(); got != counts[gateEvent]-1 {
			t.Errorf("%d gate decisions in the audit journal for %d %s events (one while the registry was stopped)", got, counts[gateEvent], gateEvent)
		}
	})
	t.Run("allowed calls run", func(t *testing.T) {
		if r := result(stRead); !contains(r.Text, "hello from the workspace") {
			t.Errorf("read: the model did not get the file: %s", r.Text)
		}
		if b, err := os.ReadFile(e.path("src/new.txt")); err != nil || !strings.Contains(string(b), plantedInputSecret) {
			t.Errorf("write inside write_paths did not happen: %v %q (result %s)", err, b, result(stWrite).Text)
		}
		if b, err := os.ReadFile(e.path("src/gen/out.txt")); err != nil || string(b) != "generated\n" {
			t.Errorf("allowed shell command did not run: %v %q (result %s)", err, b, result(stShell).Text)
		}
	})
	t.Run("refused calls do not happen", func(t *testing.T) {
		refused(stWriteOutside, "write to docs/notes.md is outside allow.write_paths")
		refused(stSudo, "command sudo is denied")
		refused(stNotAllowed, "command chmod is not in allow.commands")
		for _, p := range []string{e.path("docs/notes.md"), e.path("pwned.txt"), e.path("chmod_ran.txt"), e.path("src/chmod.txt")} {
			if exists(p) {
				t.Errorf("%s exists: a refused call ran", p)
			}
		}
	})
	t.Run("rm -rf of the workspace", func(t *testing.T) {
		refused(stRmWorkspace, workspaceItself)
		for _, p := range []string{e.path("src/hello.txt"), e.path("docs/README.md"), filepath.Join(e.ws, ".leasedeck", "policy.json")} {
			if !exists(p) {
				t.Errorf("%s is gone: rm -rf of the workspace ran", p)
			}
		}
	})
	t.Run("approval waits, then runs", func(t *testing.T) {
		n := 0
		for _, s := range seen {
			if strings.Contains(s.Summary, "/approved") {
				n++
				if !s.probe {
					t.Error("build/fetched.txt existed while the approval was pending: the call did not wait")
				}
				if !strings.Contains(strings.Join(s.Names, ","), "command:curl") {
					t.Errorf("approval names %v", s.Names)
				}
			}
		}
		if n != 1 {
			t.Errorf("want one approval request for the curl, got %d: %+v", n, seen)
		}
		if !exists(e.path("build/fetched.txt")) {
			t.Errorf("the approved curl did not run (result %s)", result(stApproved).Text)
		}
	})
	t.Run("denial reaches the model", func(t *testing.T) {
		refused(stDenied, curlDeniedByHuman)
		if exists(e.path("src/fetched.txt")) {
			t.Error("the denied curl ran")
		}
	})
	t.Run("registry stopped: fail closed", func(t *testing.T) {
		refused(stRegistryDown, "registry is not reachable", "leasedeck serve")
		if exists(e.path("after_stop.txt")) {
			t.Error("a call ran while the registry was stopped")
		}
	})
	t.Run("after the session", func(t *testing.T) {
		if d.endsAtExit {
			e.waitLeasesEnded(d.agent, 15*time.Second)
		}
		n := 0
		for _, l := range e.leases() {
			if l.RuntimeAgent != d.agent {
				continue
			}
			n++
			t.Logf("lease %s %s %q %s", l.ID, l.Status, l.Agent, l.Reason)
			if l.Live {
				t.Errorf("lease %s is still live (%s) after the session ended", l.ID, l.Status)
			}
		}
		if n == 0 {
			t.Error("no lease was issued for the session")
		}
		logFinalized(t, e)
		e.checkJournal(raw...)
	})
}

// ---- Codex CLI ----

var codexDialect = dialect{
	client: "codex", agent: "codex-cli",
	read: func(e *env, rel string) fakemodel.Call { return codexExec("cat " + rel) },
	write: func(e *env, rel, content string) fakemodel.Call {
		return fakemodel.Call{Name: "apply_patch", Custom: true,
			Raw: "*** Begin Patch\n*** Add File: " + rel + "\n+" + content + "\n*** End Patch\n"}
	},
	shell: codexExec,
}

func codexExec(cmd string) fakemodel.Call {
	return fakemodel.Call{Name: "exec_command", Input: map[string]any{"cmd": cmd}}
}

// codexVars writes $CODEX_HOME/config.toml pointing Codex at the fake
// Responses API (clients.md, "Testing against the real Codex CLI") and
// returns the environment for a headless run.
func codexVars(e *env, baseURL string) []string {
	codexHome := filepath.Join(e.home, ".codex")
	os.MkdirAll(codexHome, 0o700)
	cfg := fmt.Sprintf(`model = "gpt-5.5"
model_provider = "fake"

[model_providers.fake]
name = "fake"
base_url = "%s/v1"
env_key = "FAKE_API_KEY"
wire_api = "responses"

[projects.%q]
trust_level = "trusted"
`, baseURL, e.ws)
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(cfg), 0o600); err != nil {
		e.t.Fatal(err)
	}
	return e.with("CODEX_HOME="+codexHome, "FAKE_API_KEY=fake-e2e-key")
}

func codexArgs(prompt string) []string {
	// danger-full-access: leasedeck is the only thing enforcing, so what the
	// disk shows is leasedeck's doing, not the sandbox's.
	return []string{"exec", "--skip-git-repo-check", "--dangerously-bypass-hook-trust", "-s", "danger-full-access", prompt}
}

func TestCodexCLI(t *testing.T) {
	requireHeavy(t)
	codex := client(t, codexClient)
	e := governedWorkspace(t, "codex-cli")
	recorder := e.plantRecorder("codex") // the user's own hooks, which install must keep
	note := e.install("codex")
	if b, err := os.ReadFile(e.path(".codex/hooks.json")); err != nil || !strings.Contains(string(b), hookBinary+" hook codex") || !strings.Contains(string(b), jsonString(recorder)) {
		t.Fatalf("leasedeck install codex: %v %s %s", err, b, note)
	}
	srv := fakemodel.NewOpenAI()
	defer srv.Close()
	srv.AddScript(fakemodel.Script{Name: "main", Steps: standardSteps(e, codexDialect, srv.URL)})
	h := standardHuman(e)
	prompt := "Tidy the repository. My key is " + plantedPromptSecret + " " + fakemodel.Marker("main")
	run := e.runClient(4*time.Minute, codexVars(e, srv.URL), codex, codexArgs(prompt)...)
	seen := h.finish()
	t.Logf("codex exec: exit %d in %s", run.code, run.took.Round(time.Millisecond))
	if run.code != 0 || !strings.Contains(run.stdout, "All done.") {
		t.Fatalf("codex exec: exit %d\nstdout: %s\nstderr: %s", run.code, tail(run.stdout, 3000), tail(run.stderr, 3000))
	}
	checkStandard(t, e, codexDialect, srv, seen, prompt, "Tidy the repository", plantedPromptSecret, plantedInputSecret, "PLANTED")
}

// ---- Gemini CLI ----

var geminiDialect = dialect{
	client: "gemini", agent: "gemini-code-assist",
	read: func(e *env, rel string) fakemodel.Call {
		return fakemodel.Call{Name: "read_file", Input: map[string]any{"file_path": rel}}
	},
	write: func(e *env, rel, content string) fakemodel.Call {
		return fakemodel.Call{Name: "write_file", Input: map[string]any{"file_path": rel, "content": content + "\n"}}
	},
	shell: func(cmd string) fakemodel.Call {
		return fakemodel.Call{Name: "run_shell_command", Input: map[string]any{"command": cmd}}
	},
	errorFlag: true,
}

// geminiVars writes the user settings Gemini CLI needs to talk to the fake
// (clients.md, "Testing against the real Gemini CLI") and returns the
// environment for a headless run.
func geminiVars(e *env, baseURL string) []string {
	dir := filepath.Join(e.home, ".gemini")
	os.MkdirAll(dir, 0o700)
	settings := `{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
  "ide": {"enabled": false}
}
`
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(settings), 0o600); err != nil {
		e.t.Fatal(err)
	}
	return e.with("GOOGLE_GEMINI_BASE_URL="+baseURL, "GEMINI_API_KEY=fake-e2e-key", "GEMINI_CLI_TRUST_WORKSPACE=true")
}

func geminiArgs(prompt string) []string {
	return []string{"-p", prompt, "--yolo", "-m", "gemini-2.5-flash"}
}

func TestGeminiCLI(t *testing.T) {
	requireHeavy(t)
	gemini := client(t, geminiClient)
	e := governedWorkspace(t, "gemini-code-assist")
	recorder := e.plantRecorder("gemini") // the user's own hooks, which install must keep
	note := e.install("gemini")
	if b, err := os.ReadFile(e.path(".gemini/settings.json")); err != nil || !strings.Contains(string(b), hookBinary+" hook gemini") || !strings.Contains(string(b), jsonString(recorder)) {
		t.Fatalf("leasedeck install gemini: %v %s %s", err, b, note)
	}
	srv := fakemodel.NewGemini()
	defer srv.Close()
	srv.AddScript(fakemodel.Script{Name: "main", Steps: standardSteps(e, geminiDialect, srv.URL)})
	h := standardHuman(e)
	prompt := "Tidy the repository. My key is " + plantedPromptSecret + " " + fakemodel.Marker("main")
	run := e.runClient(4*time.Minute, geminiVars(e, srv.URL), gemini, geminiArgs(prompt)...)
	seen := h.finish()
	t.Logf("gemini -p: exit %d in %s", run.code, run.took.Round(time.Millisecond))
	if run.code != 0 || !strings.Contains(run.stdout, "All done.") {
		t.Fatalf("gemini -p: exit %d\nstdout: %s\nstderr: %s", run.code, tail(run.stdout, 3000), tail(run.stderr, 3000))
	}
	checkStandard(t, e, geminiDialect, srv, seen, prompt, "Tidy the repository", plantedPromptSecret, plantedInputSecret, "PLANTED")
}

// TestGeminiCLICertified: with the optional AfterModel hook (`leasedeck
// install gemini --optional`), Gemini CLI reports the model's usage, so a
// turn that stayed inside its lease is certified.
func TestGeminiCLICertified(t *testing.T) {
	requireHeavy(t)
	gemini := client(t, geminiClient)
	e := governedWorkspace(t, "gemini-code-assist")
	e.install("gemini", "--optional")
	srv := fakemodel.NewGemini(fakemodel.Script{Name: "main", Steps: []fakemodel.Step{
		{Calls: []fakemodel.Call{geminiDialect.shell("ls src")}},
		{Calls: []fakemodel.Call{geminiDialect.write(e, "src/certified.txt", "ok")}},
		{Text: "All done."},
	}})
	defer srv.Close()
	run := e.runClient(3*time.Minute, geminiVars(e, srv.URL), gemini, geminiArgs("Work. "+fakemodel.Marker("main"))...)
	if run.code != 0 || !exists(e.path("src/certified.txt")) {
		t.Fatalf("gemini -p: exit %d\nstdout: %s\nstderr: %s", run.code, tail(run.stdout, 2000), tail(run.stderr, 2000))
	}
	logFinalized(t, e)
	if len(e.auditLines(`"event_type":"leasedeck.session.finalized"`, `"outcome":"certified"`, `"telemetry_quality":"complete"`)) == 0 {
		t.Errorf("no turn was certified with complete telemetry:\n%s", strings.Join(e.auditLines(`"event_type":"leasedeck.session.finalized"`), "\n"))
	}
	e.checkJournal()
}
