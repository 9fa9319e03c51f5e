package registry

import (
	"os"
	"path/filepath"
	"testing"
)

// dd and split through the whole gate, as an agent would send them: their
// files are judged like any write, and split's generated names are judged
// for every name the prefix can be completed to.
func TestGateDdAndSplit(t *testing.T) {
	f := newFixture(t)
	f.svc.cfg.Calls.ProtectedWrites = []string{".git/hooks/**", ".mcp.json"}
	root := policyManifest(t)
	root.Allow.Commands = append(root.Allow.Commands, "dd", "split")
	f.svc.cfg.Root = root
	os.WriteFile(filepath.Join(f.dir, "src", "a.go"), []byte("package a\n"), 0o644)
	id := f.issue(agentManifest("a", 1000, func(m map[string]any) {
		permissive(m)
		m["allow"].(map[string]any)["commands"] = []any{"dd", "split", "cat"}
		m["deny"].(map[string]any)["paths"] = []any{".env", "~/.ssh/**"}
	}), "")
	for _, c := range []struct {
		cmd  string
		want Verdict
	}{
		{"split -l 1 src/a.go src/part", VerdictAllow},
		{"dd if=src/a.go of=src/copy.go status=none", VerdictAllow},
		{"split -a 1 src/a.go .en", VerdictDeny},                                   // .env is among the names
		{"split -a 1 src/a.go .mcp.jso", VerdictDeny},                              // .mcp.json, protected
		{"split -l 1 src/a.go .git/hooks/pre-", VerdictDeny},                       // a hook, protected
		{"split --additional-suffix=.json src/a.go .claude/settings", VerdictDeny}, // hook settings, implicitly protected
		{"split -l 1 src/a.go ~/.ss", VerdictDeny},                                 // ~/.ssh
		{"split --filter='sh -c id' src/a.go", VerdictDeny},                        // runs a program
		{"dd if=src/a.go of=.git/hooks/pre-commit", VerdictDeny},                   // protected
		{"dd if=.env of=src/x", VerdictDeny},                                       // denied read
		{"dd if=src/a.go of=../outside", VerdictDeny},                              // outside the workspace
		{"dd if=src/a.go of=$OUT", VerdictDeny},                                    // not known before it runs
	} {
		a := f.gate(id, "Bash", map[string]any{"command": c.cmd})
		t.Logf("%q: %s %s", c.cmd, a.Verdict, a.Reason)
		if a.Verdict != c.want {
			t.Errorf("%q: %s (%s), want %s", c.cmd, a.Verdict, a.Reason, c.want)
		}
	}
}
