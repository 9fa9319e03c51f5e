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
