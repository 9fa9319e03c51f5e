package registry

import (
	"strings"
	"testing"
)

// OpenCode and pi run every plugin they find in-process at start: an
// agent that could write there would run code outside the gate, or
// rewrite leasedeck's own plugin to let everything through. Refused with
// no policy list, under a lease that may write everywhere; reading stays
// allowed.
func TestPluginDirectoriesProtected(t *testing.T) {
	f := newFixture(t)
	f.svc.cfg.Calls.ProtectedWrites = nil
	id := f.issue(agentManifest("a", 1000, permissive), "")
	for _, c := range []struct {
		tool  string
		input map[string]any
		want  Verdict
	}{
		{"Write", map[string]any{"file_path": ".opencode/plugins/evil.js", "content": "export const E = async () => ({})"}, VerdictDeny},
		{"Write", map[string]any{"file_path": "src/../.opencode/plugin/evil.ts", "content": "x"}, VerdictDeny},
		{"Edit", map[string]any{"file_path": "opencode.json", "old_string": "allow", "new_string": "deny"}, VerdictDeny},
		{"Write", map[string]any{"file_path": "opencode.jsonc", "content": "{}"}, VerdictDeny},
		{"Write", map[string]any{"file_path": ".pi/extensions/evil.ts", "content": "export default function () {}"}, VerdictDeny},
		{"Write", map[string]any{"file_path": ".pi/settings.json", "content": `{"extensions":["/tmp/x.ts"]}`}, VerdictDeny},
		{"Bash", map[string]any{"command": "echo 'export default function () {}' > .pi/extensions/leasedeck.ts"}, VerdictDeny},
		{"Bash", map[string]any{"command": "rm -rf .opencode"}, VerdictDeny},
		{"Bash", map[string]any{"command": "rm .pi/extensions/leasedeck.ts"}, VerdictDeny},
		{"Read", map[string]any{"file_path": ".pi/extensions/leasedeck.ts"}, VerdictAllow},
		{"Read", map[string]any{"file_path": ".opencode/plugins/leasedeck.js"}, VerdictAllow},
		{"Write", map[string]any{"file_path": "src/pi.md", "content": "x"}, VerdictAllow},
	} {
		a := f.gate(id, c.tool, c.input)
		if a.Verdict != c.want {
			t.Errorf("%s %v: %s (%s), want %s", c.tool, c.input, a.Verdict, a.Reason, c.want)
		}
		if c.want == VerdictDeny && !strings.Contains(a.Reason, "is protected") {
			t.Errorf("%s %v: refused for another reason: %s", c.tool, c.input, a.Reason)
		}
	}
}

// Qwen Code's settings (its hooks) and Copilot CLI's user hook files are
// hook settings like Claude Code's: refused whatever the policy's lists
// say, under a lease that may write everywhere.
func TestQwenAndCopilotHooksProtected(t *testing.T) {
	f := newFixture(t)
	f.svc.cfg.Calls.ProtectedWrites = nil
	id := f.issue(agentManifest("a", 1000, permissive), "")
	for _, c := range []struct {
		tool  string
		input map[string]any
	}{
		{"Write", map[string]any{"file_path": ".qwen/settings.json", "content": `{"hooks":{}}`}},
		{"Bash", map[string]any{"command": "echo '{}' > .qwen/settings.json"}},
		{"Write", map[string]any{"file_path": "~/.qwen/settings.json", "content": `{"hooks":{}}`}},
		{"Bash", map[string]any{"command": "rm ~/.copilot/hooks/leasedeck-copilot.json"}},
	} {
		a := f.gate(id, c.tool, c.input)
		// The home's files lie outside this fixture's workspace, refused
		// for that first; the workspace's must be refused as protected.
		home := strings.Contains(fmtInput(c.input), "~/")
		if a.Verdict != VerdictDeny || !home && !strings.Contains(a.Reason, "is protected") {
			t.Errorf("%s %v: %s (%s), want refused as protected", c.tool, c.input, a.Verdict, a.Reason)
		}
	}
}

func fmtInput(m map[string]any) string {
	var b strings.Builder
	for _, v := range m {
		if s, ok := v.(string); ok {
			b.WriteString(s)
		}
	}
	return b.String()
}
