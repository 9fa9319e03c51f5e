package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/e2e/fakemodel"
)

var piClient = npmClient{Pkg: "@mariozechner/pi-coding-agent", Version: "0.73.1", Bin: "pi"}

// piVars writes pi's models.json with a custom provider pointing at the
// Chat Completions stand-in (clients-more §4.1) and returns the
// environment for a headless run.
func piVars(e *env, baseURL string) []string {
	dir := filepath.Join(e.home, ".pi", "agent")
	os.MkdirAll(dir, 0o700)
	models := `{ "providers": { "fake": {
    "baseUrl": "` + baseURL + `/v1", "api": "openai-completions", "apiKey": "fake-e2e-key",
    "compat": { "supportsDeveloperRole": false, "supportsReasoningEffort": false },
    "models": [ { "id": "fake-model", "name": "Fake", "reasoning": false, "contextWindow": 128000, "maxTokens": 8192 } ] } } }
`
	if err := os.WriteFile(filepath.Join(dir, "models.json"), []byte(models), 0o600); err != nil {
		e.t.Fatal(err)
	}
	return e.with("PI_OFFLINE=1")
}

func piArgs(prompt string) []string {
	return []string{"-p", "--provider", "fake", "--model", "fake-model", "--no-session", prompt}
}

func piCall(name string, in map[string]any) fakemodel.Call {
	return fakemodel.Call{Name: name, Input: in}
}

// The steps of the pi session.
const (
	piRead = iota
	piWrite
	piShell
	piWriteOutside
	piPlantExtension
	piRewritePlugin
	piSudo
	piRegistryDown
	piEnd
)

// TestPi runs the real pi headless with the extension `leasedeck install
// pi` wrote, through one scripted session: allowed calls change the disk,
// refused ones (outside the lease, the extension's own directory, sudo)
// leave nothing and their reason reaches the model, a stopped registry
// fails closed, and the journal verifies and holds nothing raw.
func TestPi(t *testing.T) {
	requireClientE2E(t, "pi")
	pi := client(t, piClient)
	e := governedWorkspace(t, "pi")
	// The lease may write the extensions' directory: only the gate's
	// protected writes keep the agent out of it.
	e.editAgent("pi", func(m map[string]any) {
		m["allow"].(map[string]any)["write_paths"] = []string{"src/**", "build/**", ".pi/**"}
	})
	e.stopRegistry()
	e.startRegistry()
	note := e.install("pi")
	plugin := e.path(".pi/extensions/leasedeck.ts")
	installed, err := os.ReadFile(plugin)
	if err != nil || !strings.Contains(string(installed), jsonString(hookBinary)) || !strings.Contains(string(installed), jsonString(e.ws)) {
		t.Fatalf("leasedeck install pi: %v %s\n%s", err, installed, note)
	}
	if again := e.install("pi"); !strings.Contains(again, "nothing changed") {
		t.Errorf("a second install changed something: %s", again)
	}
	srv := fakemodel.NewChat()
	defer srv.Close()
	steps := make([]fakemodel.Step, piEnd+1)
	one := func(c fakemodel.Call) []fakemodel.Call { return []fakemodel.Call{c} }
	steps[piRead] = fakemodel.Step{Calls: one(piCall("read", map[string]any{"path": "src/hello.txt"}))}
	steps[piWrite] = fakemodel.Step{Calls: one(piCall("write", map[string]any{"path": "src/made.txt", "content": "made by pi\n"}))}
	steps[piShell] = fakemodel.Step{Calls: one(piCall("bash", map[string]any{"command": "mkdir -p src/gen && echo generated > src/gen/out.txt"}))}
	steps[piWriteOutside] = fakemodel.Step{Calls: one(piCall("write", map[string]any{"path": "docs/notes.md", "content": "outside"}))}
	steps[piPlantExtension] = fakemodel.Step{Calls: one(piCall("write", map[string]any{"path": "@.pi/extensions/evil.ts", "content": "export default function () {}\n"}))}
	steps[piRewritePlugin] = fakemodel.Step{Calls: one(piCall("bash", map[string]any{"command": "echo 'export default function () {}' > .pi/extensions/leasedeck.ts"}))}
	steps[piSudo] = fakemodel.Step{Calls: one(piCall("bash", map[string]any{"command": "echo ok && sudo touch pwned.txt"}))}
	steps[piRegistryDown] = fakemodel.Step{Before: e.stopRegistry, Calls: one(piCall("bash", map[string]any{"command": "touch after_stop.txt"}))}
	steps[piEnd] = fakemodel.Step{Before: e.restartRegistry, Text: "All done."}
	srv.AddScript(fakemodel.Script{Name: "main", Steps: steps})

	prompt := "Tidy the repository. My key is " + plantedPromptSecret + " " + fakemodel.Marker("main")
	run := e.runClient(3*time.Minute, piVars(e, srv.URL), pi, piArgs(prompt)...)
	t.Logf("pi -p: exit %d in %s", run.code, run.took.Round(time.Millisecond))
	if run.code != 0 || !strings.Contains(run.stdout, "All done.") {
		t.Fatalf("pi -p: exit %d\nstdout: %s\nstderr: %s", run.code, tail(run.stdout, 3000), tail(run.stderr, 3000))
	}
	if testing.Verbose() {
		dumpResults(t, srv)
	}
	checkPluginSession(t, e, srv, pluginSession{
		agent: "pi session", readStep: piRead, refused: map[int][]string{
			piWriteOutside:   {"write to docs/notes.md is outside allow.write_paths"},
			piPlantExtension: {"write to .pi/extensions/evil.ts is refused: .pi/** is protected"},
			piRewritePlugin:  {"write to .pi/extensions/leasedeck.ts is refused: .pi/** is protected"},
			piSudo:           {"command sudo is denied"},
			piRegistryDown:   {"registry is not reachable", "leasedeck serve"},
		},
		written: map[string]string{"src/made.txt": "made by pi\n", "src/gen/out.txt": "generated\n"},
		absent:  []string{"docs/notes.md", ".pi/extensions/evil.ts", "@.pi/extensions/evil.ts", "pwned.txt", "after_stop.txt"},
		plugin:  plugin, pluginBytes: installed,
	}, prompt, "Tidy the repository", plantedPromptSecret)
}

// pluginSession is what one scripted session of a plugin client must
// show.
type pluginSession struct {
	agent    string // the lease's agent name
	readStep int    // a read of src/hello.txt
	// refused: step → what the model must be told.
	refused map[int][]string
	written map[string]string // workspace-relative path → content
	absent  []string
	// plugin must still hold pluginBytes after the session.
	plugin      string
	pluginBytes []byte
}

func checkPluginSession(t *testing.T, e *env, srv *fakemodel.Server, s pluginSession, raw ...string) {
	t.Helper()
	result := func(step int) fakemodel.ToolResult {
		t.Helper()
		rs, ok := srv.ResultsAfter("main", step)
		if !ok || len(rs) != 1 {
			t.Fatalf("step %d: want 1 tool result in the model's next request, got %v %+v", step, ok, rs)
		}
		return rs[0]
	}
	t.Run("allowed calls run", func(t *testing.T) {
		if r := result(s.readStep); !contains(r.Text, "hello from the workspace") {
			t.Errorf("read: the model did not get the file: %s", r.Text)
		}
		for rel, want := range s.written {
			if b, err := os.ReadFile(e.path(rel)); err != nil || string(b) != want {
				t.Errorf("%s: %v %q, want %q", rel, err, b, want)
			}
		}
	})
	t.Run("refused calls do not happen", func(t *testing.T) {
		for step, reasons := range s.refused {
			r := result(step)
			for _, want := range reasons {
				if !contains(r.Text, want) {
					t.Errorf("step %d: the model's next request does not carry %q in the tool result:\n%s", step, want, r.Text)
				}
			}
		}
		for _, rel := range s.absent {
			if exists(e.path(rel)) {
				t.Errorf("%s exists: a refused call ran", rel)
			}
		}
		if b, err := os.ReadFile(s.plugin); err != nil || string(b) != string(s.pluginBytes) {
			t.Errorf("the plugin file changed during the session: %v\n%s", err, b)
		}
	})
	t.Run("after the session", func(t *testing.T) {
		n := 0
		for _, l := range e.leases() {
			if l.Agent != s.agent {
				continue
			}
			n++
			t.Logf("lease %s %s %q %s", l.ID, l.Status, l.Agent, l.Reason)
		}
		if n == 0 {
			t.Error("no lease was issued for the session")
		}
		if e.gateDecisions() == 0 {
			t.Error("no gate decision in the audit journal")
		}
		logFinalized(t, e)
		e.checkJournal(raw...)
	})
}

// TestPiFailsClosed: an extension whose hook cannot run (the binary is
// gone) refuses every call in the real pi, with the reason.
func TestPiFailsClosed(t *testing.T) {
	requireClientE2E(t, "pi")
	pi := client(t, piClient)
	e := governedWorkspace(t, "pi")
	e.install("pi", "--command", filepath.Join(e.root, "gone", "leasedeck"))
	srv := fakemodel.NewChat(fakemodel.Script{Name: "main", Steps: []fakemodel.Step{
		{Calls: []fakemodel.Call{piCall("bash", map[string]any{"command": "touch src/ran.txt"})}},
		{Text: "All done."},
	}})
	defer srv.Close()
	run := e.runClient(2*time.Minute, piVars(e, srv.URL), pi, piArgs("Work. "+fakemodel.Marker("main"))...)
	t.Logf("pi -p: exit %d in %s, %d model turns", run.code, run.took.Round(time.Millisecond), len(srv.Turns("main")))
	if exists(e.path("src/ran.txt")) {
		t.Fatalf("a call ran with no hook to check it")
	}
	// The turn itself is refused (the extension cannot begin it): pi
	// makes no model call, and says why.
	if n := len(srv.Turns("main")); n != 0 {
		t.Errorf("pi made %d model calls in a turn leasedeck could not begin", n)
	}
	if !contains(run.stderr, "the hook could not run") {
		t.Errorf("pi -p: exit %d, the user was not told why:\nstdout: %s\nstderr: %s", run.code, tail(run.stdout, 1000), tail(run.stderr, 1000))
	}
}
