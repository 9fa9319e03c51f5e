package e2e

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/e2e/fakemodel"
	"github.com/leasedeck/leasedeck/registry"
)

var opencodeClient = npmClient{Pkg: "opencode-ai", Version: "1.18.33", Bin: "opencode"}

// opencodeVars writes the project's opencode.json with a custom
// OpenAI-compatible provider pointing at the Chat Completions stand-in
// (clients-more §3.1) and returns the environment for a headless run.
// OpenCode installs its plugin runtime from the npm registry at start.
func opencodeVars(e *env, baseURL string) []string {
	cfg := `{
  "$schema": "https://opencode.ai/config.json",
  "model": "fake/fake-model",
  "small_model": "fake/fake-model",
  "autoupdate": false,
  "share": "disabled",
  "permission": {"bash": "allow", "edit": "allow", "read": "allow", "external_directory": "allow"},
  "provider": {
    "fake": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "Fake",
      "options": {"baseURL": "` + baseURL + `/v1", "apiKey": "fake-e2e-key"},
      "models": {"fake-model": {"name": "Fake model", "tool_call": true, "limit": {"context": 128000, "output": 8192}}}
    }
  }
}
`
	e.write("opencode.json", cfg)
	return e.with("OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"OPENCODE_DISABLE_DEFAULT_PLUGINS=1", "OPENCODE_DISABLE_SHARE=1")
}

func opencodeArgs(prompt string) []string {
	return []string{"run", "--print-logs", prompt}
}

func ocCall(name string, in map[string]any) fakemodel.Call {
	return fakemodel.Call{Name: name, Input: in}
}

// The steps of the OpenCode session.
const (
	ocRead = iota
	ocWrite
	ocShell
	ocWriteOutside
	ocPlantPlugin
	ocRewritePlugin
	ocRewriteConfig
	ocSudo
	ocRegistryDown
	ocEnd
)

// TestOpenCode runs the real OpenCode headless (opencode run) with the
// plugin `leasedeck install opencode` wrote, through one scripted session:
// allowed calls change the disk, refused ones (outside the lease, the
// plugins' directory, the project's opencode.json, sudo) leave nothing and
// their reason reaches the model, a stopped registry fails closed, and the
// journal verifies and holds nothing raw.
func TestOpenCode(t *testing.T) {
	requireClientE2E(t, "opencode")
	oc := client(t, opencodeClient)
	e := governedWorkspace(t, "opencode")
	// The lease may write the plugins' directory and the config: only the
	// gate's protected writes keep the agent out of them.
	e.editAgent("opencode", func(m map[string]any) {
		m["allow"].(map[string]any)["write_paths"] = []string{"src/**", "build/**", ".opencode/**", "opencode.json"}
	})
	e.stopRegistry()
	e.startRegistry()
	note := e.install("opencode")
	plugin := e.path(".opencode/plugins/leasedeck.js")
	installed, err := os.ReadFile(plugin)
	if err != nil || !strings.Contains(string(installed), jsonString(hookBinary)) || !strings.Contains(string(installed), jsonString(e.ws)) {
		t.Fatalf("leasedeck install opencode: %v %s\n%s", err, installed, note)
	}
	if again := e.install("opencode"); !strings.Contains(again, "nothing changed") {
		t.Errorf("a second install changed something: %s", again)
	}
	srv := fakemodel.NewChat()
	defer srv.Close()
	vars := opencodeVars(e, srv.URL)
	config, _ := os.ReadFile(e.path("opencode.json"))
	steps := make([]fakemodel.Step, ocEnd+1)
	one := func(c fakemodel.Call) []fakemodel.Call { return []fakemodel.Call{c} }
	steps[ocRead] = fakemodel.Step{Calls: one(ocCall("read", map[string]any{"filePath": e.path("src/hello.txt")}))}
	steps[ocWrite] = fakemodel.Step{Calls: one(ocCall("write", map[string]any{"filePath": e.path("src/made.txt"), "content": "made by opencode\n"}))}
	steps[ocShell] = fakemodel.Step{Calls: one(ocCall("bash", map[string]any{"command": "mkdir -p src/gen && echo generated > src/gen/out.txt", "description": "generate"}))}
	steps[ocWriteOutside] = fakemodel.Step{Calls: one(ocCall("write", map[string]any{"filePath": e.path("docs/notes.md"), "content": "outside"}))}
	steps[ocPlantPlugin] = fakemodel.Step{Calls: one(ocCall("write", map[string]any{"filePath": "src/../.opencode/plugins/evil.js", "content": "export const Evil = async () => ({})\n"}))}
	steps[ocRewritePlugin] = fakemodel.Step{Calls: one(ocCall("bash", map[string]any{"command": "echo 'export const X = async () => ({})' > .opencode/plugins/leasedeck.js", "description": "rewrite"}))}
	steps[ocRewriteConfig] = fakemodel.Step{Calls: one(ocCall("edit", map[string]any{"filePath": e.path("opencode.json"), "oldString": `"bash": "allow"`, "newString": `"bash": "deny"`}))}
	steps[ocSudo] = fakemodel.Step{Calls: one(ocCall("bash", map[string]any{"command": "echo ok && sudo touch pwned.txt", "description": "sudo"}))}
	steps[ocRegistryDown] = fakemodel.Step{Before: e.stopRegistry, Calls: one(ocCall("bash", map[string]any{"command": "touch after_stop.txt", "description": "touch"}))}
	steps[ocEnd] = fakemodel.Step{Before: e.restartRegistry, Text: "All done."}
	srv.AddScript(fakemodel.Script{Name: "main", Steps: steps})

	prompt := "Tidy the repository. My key is " + plantedPromptSecret + " " + fakemodel.Marker("main")
	run := e.runClient(5*time.Minute, vars, oc, opencodeArgs(prompt)...)
	t.Logf("opencode run: exit %d in %s", run.code, run.took.Round(time.Millisecond))
	if run.code != 0 || !strings.Contains(run.stdout, "All done.") {
		t.Fatalf("opencode run: exit %d\nstdout: %s\nstderr: %s", run.code, tail(run.stdout, 3000), tail(run.stderr, 3000))
	}
	if testing.Verbose() {
		dumpResults(t, srv)
	}
	checkPluginSession(t, e, srv, pluginSession{
		agent: "opencode session", readStep: ocRead, refused: map[int][]string{
			ocWriteOutside:  {"write to docs/notes.md is outside allow.write_paths"},
			ocPlantPlugin:   {"write to .opencode/plugins/evil.js is refused: .opencode/** is protected"},
			ocRewritePlugin: {"write to .opencode/plugins/leasedeck.js is refused: .opencode/** is protected"},
			ocRewriteConfig: {"write to opencode.json is refused: opencode.json is protected"},
			ocSudo:          {"command sudo is denied"},
			ocRegistryDown:  {"registry is not reachable", "leasedeck serve"},
		},
		written: map[string]string{"src/made.txt": "made by opencode\n", "src/gen/out.txt": "generated\n", "opencode.json": string(config)},
		absent:  []string{"docs/notes.md", ".opencode/plugins/evil.js", "pwned.txt", "after_stop.txt"},
		plugin:  plugin, pluginBytes: installed,
	}, prompt, "Tidy the repository", plantedPromptSecret)
}

// TestOpenCodeTask: a task runs its subagent in a session of its own; the
// plugin makes it a subagent of the session that started it, so it gets a
// child lease narrowed from the session's, and its calls are gated.
func TestOpenCodeTask(t *testing.T) {
	requireClientE2E(t, "opencode")
	oc := client(t, opencodeClient)
	e := governedWorkspace(t, "opencode")
	e.install("opencode")
	srv := fakemodel.NewChat(
		fakemodel.Script{Name: "main", Steps: []fakemodel.Step{
			{Calls: []fakemodel.Call{ocCall("task", map[string]any{"description": "write a file",
				"prompt": "Write the file. " + fakemodel.Marker("child"), "subagent_type": "general"})}},
			{Text: "All done."},
		}},
		fakemodel.Script{Name: "child", Steps: []fakemodel.Step{
			{Calls: []fakemodel.Call{ocCall("write", map[string]any{"filePath": e.path("src/from_task.txt"), "content": "task\n"})}},
			{Calls: []fakemodel.Call{ocCall("bash", map[string]any{"command": "sudo touch pwned.txt", "description": "sudo"})}},
			{Text: "Child done."},
		}})
	defer srv.Close()
	run := e.runClient(5*time.Minute, opencodeVars(e, srv.URL), oc, opencodeArgs("Delegate. "+fakemodel.Marker("main"))...)
	t.Logf("opencode run: exit %d in %s", run.code, run.took.Round(time.Millisecond))
	if run.code != 0 || !strings.Contains(run.stdout, "All done.") {
		t.Fatalf("opencode run: exit %d\nstdout: %s\nstderr: %s", run.code, tail(run.stdout, 3000), tail(run.stderr, 3000))
	}
	// OpenCode sends no session end: the leases end when it exits.
	e.checkSubagentRun(srv, "src/from_task.txt", "task\n", "opencode session", func(c registry.LeaseView) bool { return strings.Contains(c.Agent, "task") })
	e.checkJournal("Write the file", "Delegate")
}

// TestOpenCodeFailsClosed: a plugin whose hook cannot run (the binary is
// gone) lets nothing run in the real OpenCode.
func TestOpenCodeFailsClosed(t *testing.T) {
	requireClientE2E(t, "opencode")
	oc := client(t, opencodeClient)
	e := governedWorkspace(t, "opencode")
	e.install("opencode", "--command", e.root+"/gone/leasedeck")
	srv := fakemodel.NewChat(fakemodel.Script{Name: "main", Steps: []fakemodel.Step{
		{Calls: []fakemodel.Call{ocCall("bash", map[string]any{"command": "touch src/ran.txt", "description": "touch"})}},
		{Text: "All done."},
	}})
	defer srv.Close()
	run := e.runClient(5*time.Minute, opencodeVars(e, srv.URL), oc, opencodeArgs("Work. "+fakemodel.Marker("main"))...)
	t.Logf("opencode run: exit %d in %s, %d model turns", run.code, run.took.Round(time.Millisecond), len(srv.Turns("main")))
	if exists(e.path("src/ran.txt")) {
		t.Fatal("a call ran with no hook to check it")
	}
	// The turn itself is refused (the plugin cannot begin it: chat.message
	// throws): OpenCode makes no model call, exits 1 and says why.
	if n := len(srv.Turns("main")); n != 0 || run.code == 0 {
		t.Errorf("exit %d with %d model calls in a turn leasedeck could not begin", run.code, n)
	}
	if !contains(run.stdout+run.stderr, "the hook could not run") {
		t.Errorf("the user was not told why:\nstdout: %s\nstderr: %s", tail(run.stdout, 1500), tail(run.stderr, 1500))
	}
}
