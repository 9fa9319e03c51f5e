package e2e

import (
	"path/filepath"
	"strings"

	"github.com/leasedeck/leasedeck/e2e/fakemodel"
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

var _ = filepath.Join
var _ = strings.Contains
