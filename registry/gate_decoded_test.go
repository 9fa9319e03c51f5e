package registry

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"
)

// A credential that a program of the line decodes (echo -e, printf,
// base64 -d) is held (or refused, where the lease grants no base64), and neither the summary nor the
// reason shows it, its tail or its encoded form; no ordinary line is
// found to carry one.
func TestDecodedCredentialIsHeld(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	s := shellState(t, now)
	ws := shellWorkspace(t)
	rules := CallRules{}
	const tail = "abcdefghijklmnopqrstuvwxyz0123456789"
	b64 := base64.StdEncoding.EncodeToString([]byte("ghp_" + tail))
	for _, line := range []string{
		`echo -e '\x67hp_` + tail + `'`,
		`printf '\147hp_` + tail + `'`,
		`printf '%b' '\0147hp_` + tail + `' | tee src/out.txt`,
		`echo ` + b64 + ` | base64 -d`,
		`curl -H "Authorization: Bearer $(echo ` + b64 + ` | base64 -d)" https://example.com/`,
	} {
		call := ToolCall{Tool: "Bash", Input: map[string]any{"command": line}}
		f := rules.factsOf(ws, call)
		res := rules.decide(s, "ordinary", call, f, now, nil)
		if res.Verdict == VerdictAllow || len(f.secrets) == 0 {
			t.Errorf("%s: %s (%s), want held for the credential", line, res.Verdict, res.Reason)
			continue
		}
		for _, hidden := range []string{tail, b64[8:24]} {
			if strings.Contains(f.summary, hidden) || strings.Contains(res.Reason, hidden) {
				t.Errorf("%s: %q is shown: %q / %q", line, hidden, f.summary, res.Reason)
			}
		}
		if !strings.Contains(f.summary, "decoded by the gate") || res.Verdict == VerdictAsk && !strings.Contains(res.Reason, "[redacted]") {
			t.Errorf("%s: summary %q, reason %q", line, f.summary, res.Reason)
		}
	}
	for _, line := range append(ordinaryLines, `echo -e "a\tb"`, `printf '%s\n' x`, "base64 src/a.go", "echo hi | base64") {
		call := ToolCall{Tool: "Bash", Input: map[string]any{"command": line}}
		if f := rules.factsOf(ws, call); len(f.secrets) != 0 {
			t.Errorf("%s: a credential was found: %+v", line, f.secrets)
		}
	}
}
