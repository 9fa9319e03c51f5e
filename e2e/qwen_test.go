package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/e2e/fakemodel"
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
	// A headless run fires no SessionEnd (clients-more §1.3), so the
	// session's lease stays open until it expires.
	lifecycle: []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"},
	openLease: true,
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
	if b, err := os.ReadFile(e.path(".qwen/settings.json")); err != nil || !strings.Contains(string(b), binary+" hook qwen-code") || !strings.Contains(string(b), jsonString(recorder)) {
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
