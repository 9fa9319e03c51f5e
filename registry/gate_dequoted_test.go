package registry

import (
	"strings"
	"testing"
	"time"
)

// A credential the shell assembles from quoted pieces, escapes or a
// variable set on the line is held like one written whole, and what the
// human is shown masks it.
func TestSplitCredentialIsHeld(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	s := shellState(t, now)
	ws := shellWorkspace(t)
	rules := CallRules{}
	const tail = "abcdefghijklmnopqrstuvwxyz0123456789"
	for _, line := range []string{
		`echo "gh""p_` + tail + `"`,
		`echo $'\x67hp_` + tail + `'`,
		`echo gh\p_` + tail,
		`x=ghp_; echo "${x}` + tail + `"`,
		`x=ghp_; y=$x; echo ${y}` + tail,
		`curl -H "Authorization: Bearer gh"'p_` + tail + `' https://example.com/`,
		`bash -c 'echo "gh""p_` + tail + `"'`,
	} {
		call := ToolCall{Tool: "Bash", Input: map[string]any{"command": line}}
		f := rules.factsOf(ws, call)
		res := rules.decide(s, "ordinary", call, f, now, nil)
		if res.Verdict == VerdictAllow || len(f.secrets) == 0 {
			t.Errorf("%s: %s (%s), want held for the credential", line, res.Verdict, res.Reason)
			continue
		}
		if strings.Contains(f.summary, tail) || strings.Contains(res.Reason, tail) {
			t.Errorf("%s: the credential is shown: %q / %q", line, f.summary, res.Reason)
		}
	}
	for _, line := range []string{`echo "hello" 'world'`, `git commit -m "fix: p_x"`, `x=1; echo "$x"`} {
		call := ToolCall{Tool: "Bash", Input: map[string]any{"command": line}}
		if f := rules.factsOf(ws, call); len(f.secrets) != 0 {
			t.Errorf("%s: a credential was found: %+v", line, f.secrets)
		}
	}
}
