package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/e2e/fakemodel"
)

// ---- GitHub Copilot CLI ----

var copilotDialect = dialect{
	client: "copilot", agent: "github-copilot",
	read: func(e *env, rel string) fakemodel.Call {
		return fakemodel.Call{Name: "view", Input: map[string]any{"path": e.path(rel)}}
	},
	write: func(e *env, rel, content string) fakemodel.Call {
		return fakemodel.Call{Name: "create", Input: map[string]any{"path": e.path(rel), "file_text": content + "\n"}}
	},
	shell: func(cmd string) fakemodel.Call {
		return fakemodel.Call{Name: "bash", Input: map[string]any{"command": cmd, "description": "scripted"}}
	},
	gateEvent: "PreToolUse",
	lifecycle: []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"},
}

// copilotProviderKey occurs nowhere else: Copilot CLI masks the key's
// text wherever it appears in its output.
const copilotProviderKey = "e2e-provider-key-7731"

// copilotVars is the environment for a headless BYOK run against the fake
// Chat Completions API: no GitHub account, nothing but loopback
// (COPILOT_OFFLINE). The native package is unpacked once into a shared
// cache.
func copilotVars(e *env, baseURL string) []string {
	return e.with("COPILOT_OFFLINE=true", "COPILOT_AUTO_UPDATE=false",
		"COPILOT_PROVIDER_BASE_URL="+baseURL+"/v1", "COPILOT_PROVIDER_API_KEY="+copilotProviderKey, "COPILOT_MODEL=fake-model",
		"COPILOT_CACHE_HOME="+filepath.Join(filepath.Dir(cacheRoot()), "copilot-cache"))
}

func copilotArgs(prompt string) []string {
	// --allow-all-tools: leasedeck is the only thing refusing, so what the
	// disk shows is leasedeck's doing.
	return []string{"-p", prompt, "--allow-all-tools", "--no-auto-update"}
}

// plantCopilotRecorder writes a user's own hook file in ~/.copilot/hooks
// that saves each payload and decides nothing; install must leave it be.
func (e *env) plantCopilotRecorder() string {
	e.t.Helper()
	dir := filepath.Join(e.root, "events")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		e.t.Fatal(err)
	}
	cmd := `cat > "` + dir + `/$(date +%s%N)-$$.json"`
	hooks := map[string]any{}
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop", "SessionEnd"} {
		hooks[ev] = []any{map[string]any{"type": "command", "bash": cmd, "timeoutSec": 10}}
	}
	b, _ := json.MarshalIndent(map[string]any{"version": 1, "hooks": hooks}, "", "  ")
	p := filepath.Join(e.home, ".copilot", "hooks", "my-recorder.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		e.t.Fatal(err)
	}
	return p
}

func TestCopilotCLI(t *testing.T) {
	requireClientE2E(t, "copilot")
	copilot := client(t, copilotClient)
	e := governedWorkspace(t, "github-copilot")
	mine := e.plantCopilotRecorder()
	before, _ := os.ReadFile(mine)
	// Project hooks load only in a trusted folder; the user's do not need it.
	note := e.install("copilot", "--scope", "user")
	hooks := filepath.Join(e.home, ".copilot", "hooks", "leasedeck-copilot.json")
	if b, err := os.ReadFile(hooks); err != nil || !strings.Contains(string(b), jsonString(hookBinary+" hook copilot --workspace "+e.ws)) {
		t.Fatalf("leasedeck install copilot: %v %s %s", err, b, note)
	}
	if after, _ := os.ReadFile(mine); string(after) != string(before) {
		t.Fatalf("install changed the user's own hook file")
	}
	srv := fakemodel.NewChat()
	defer srv.Close()
	srv.AddScript(fakemodel.Script{Name: "main", Steps: standardSteps(e, copilotDialect, srv.URL)})
	h := standardHuman(e)
	prompt := "Tidy the repository. My key is " + plantedPromptSecret + " " + fakemodel.Marker("main")
	run := e.runClient(6*time.Minute, copilotVars(e, srv.URL), copilot, copilotArgs(prompt)...)
	seen := h.finish()
	t.Logf("copilot -p: exit %d in %s", run.code, run.took.Round(time.Millisecond))
	if run.code != 0 || !strings.Contains(run.stdout, "All done.") {
		t.Fatalf("copilot -p: exit %d\nstdout: %s\nstderr: %s", run.code, tail(run.stdout, 3000), tail(run.stderr, 3000))
	}
	checkStandard(t, e, copilotDialect, srv, seen, prompt, "Tidy the repository", plantedPromptSecret, plantedInputSecret, "PLANTED")
}

// TestCopilotCLIHungRegistry: Copilot CLI runs the tool when a hook times
// out; leasedeck's hook answers "deny" before the timeoutSec install wrote.
func TestCopilotCLIHungRegistry(t *testing.T) {
	requireClientE2E(t, "copilot")
	copilot := client(t, copilotClient)
	hungRegistry(t, copilotDialect, "github-copilot", copilot, copilotVars, copilotArgs, "--scope", "user")
}

// TestCopilotCLISubagent: a `task` call runs a subagent whose own hook
// events name it as the session; it gets a child lease under the
// session's, its calls are gated, and everything closes at SessionEnd.
func TestCopilotCLISubagent(t *testing.T) {
	requireClientE2E(t, "copilot")
	copilot := client(t, copilotClient)
	e := governedWorkspace(t, "github-copilot")
	e.plantCopilotRecorder()
	e.install("copilot", "--scope", "user")
	srv := fakemodel.NewChat(
		fakemodel.Script{Name: "main", Steps: []fakemodel.Step{
			{Calls: []fakemodel.Call{{Name: "task", Input: map[string]any{"agent_type": "general-purpose", "name": "helper",
				"description": "look around", "prompt": "Look around. " + fakemodel.Marker("sub")}}}},
			{Text: "All done."},
		}},
		fakemodel.Script{Name: "sub", Steps: []fakemodel.Step{
			{Calls: []fakemodel.Call{copilotDialect.shell("echo sub > src/from_subagent.txt")}},
			{Calls: []fakemodel.Call{copilotDialect.shell("echo ok && sudo id")}},
			{Text: "Subagent done."},
		}},
	)
	defer srv.Close()
	run := e.runClient(4*time.Minute, copilotVars(e, srv.URL), copilot, copilotArgs("Delegate. "+fakemodel.Marker("main"))...)
	t.Logf("copilot -p: exit %d in %s", run.code, run.took.Round(time.Millisecond))
	if run.code != 0 || !strings.Contains(run.stdout, "All done.") {
		t.Fatalf("copilot -p: exit %d\nstdout: %s\nstderr: %s", run.code, tail(run.stdout, 3000), tail(run.stderr, 3000))
	}
	if b, err := os.ReadFile(e.path("src/from_subagent.txt")); err != nil || string(b) != "sub\n" {
		t.Errorf("the subagent's allowed call did not run: %v", err)
	}
	if rs, ok := srv.ResultsAfter("sub", 1); !ok || len(rs) != 1 || !contains(rs[0].Text, "command sudo is denied") {
		t.Errorf("the subagent's sudo was not refused with the reason: %+v", rs)
	}
	ls := e.leases()
	var root string
	for _, l := range ls {
		if l.ParentID == "" {
			root = l.ID
		}
		if l.Live {
			t.Errorf("lease %s (%s) is still live after SessionEnd", l.ID, l.Agent)
		}
	}
	children := 0
	for _, l := range ls {
		if root != "" && l.ParentID == root {
			children++
			t.Logf("child lease %s %q %s", l.ID, l.Agent, l.Status)
		}
	}
	if len(ls) != 2 || children != 1 {
		t.Errorf("want one session lease with one child lease, got %+v", ls)
	}
	events := e.recorded()
	if got, want := e.gateDecisions(), eventCounts(events)["PreToolUse"]; got != want {
		t.Errorf("%d gate decisions for %d PreToolUse events", got, want)
	}
	raw := rawIDs(events)
	for _, m := range events {
		if s, _ := m["parent_agent_id"].(string); s != "" {
			raw = append(raw, s)
		}
	}
	e.checkJournal(raw...)
}
