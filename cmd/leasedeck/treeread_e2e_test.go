package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Recursive readers rooted above a denied path, checked through the built
// binary as an agent's calls would be: a lease from the workspace's own
// Claude Code manifest that denies .env, src/secret/** and **/*.pem
// refuses every line that would read one of them below a directory it
// names, and lets the same lines run where nothing denied lies below.
func TestCheckRefusesRecursiveReadsAboveADeniedPath(t *testing.T) {
	w := newWorkspace(t)
	w.serve()
	b, err := os.ReadFile(filepath.Join(w.dir, ".leasedeck", "agents", "claude-code.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	m["deny"] = map[string]any{"commands": []any{}, "paths": []any{".env", "src/secret/**", "**/*.pem"}, "hosts": []any{}}
	m["allow"].(map[string]any)["commands"] = []any{"ls", "cat", "git", "echo", "sed", "find", "grep", "xargs",
		"cp", "tar", "diff", "rg", "head", "sort", "wc"}
	m["approvals"] = []any{}
	b, _ = json.Marshal(m)
	manifest := filepath.Join(t.TempDir(), "m.json")
	if err := os.WriteFile(manifest, b, 0o600); err != nil {
		t.Fatal(err)
	}
	lease := w.issue(manifest, "")
	for _, f := range []string{"src/a/x.go", "lib/y.go"} {
		os.MkdirAll(filepath.Dir(filepath.Join(w.dir, f)), 0o755)
		os.WriteFile(filepath.Join(w.dir, f), []byte("TODO\n"), 0o644)
	}
	check := func(tool, input string, want int, contains string) {
		t.Helper()
		r := w.run("", "check", "--lease", lease, "--tool", tool, "--input", input)
		if r.code != want || !strings.Contains(r.stdout+r.stderr, contains) {
			t.Errorf("check %s %s: exit %d, want %d (%q)\n%s%s", tool, input, r.code, want, contains, r.stdout, r.stderr)
		}
	}
	// Nothing denied lies in the workspace yet (.leasedeck/ and the hook
	// settings install wrote are leasedeck's own, guarded against writes).
	check("Bash", `{"command":"grep -rn TODO ."}`, 0, "allow")
	check("Bash", `{"command":"rg TODO"}`, 0, "allow")
	check("Grep", `{"pattern":"TODO"}`, 0, "allow")
	for _, f := range []string{".env", "src/secret/k"} {
		os.MkdirAll(filepath.Dir(filepath.Join(w.dir, f)), 0o755)
		os.WriteFile(filepath.Join(w.dir, f), []byte("KEY=1\n"), 0o600)
	}
	for _, line := range []string{`grep -rn TODO .`, `grep -rn \"\" src`, `grep -R KEY .`, `find src -exec cat {} +`,
		`find . -execdir cat {} \\;`, `rg KEY`, `rg KEY src`, `cp -r src out`, `tar cf x.tar .`} {
		check("Bash", `{"command":"`+line+`"}`, 3, "deny.paths")
	}
	check("Grep", `{"pattern":"KEY","path":"src"}`, 3, "deny.paths")
	check("Bash", `{"command":"grep -rn TODO ."}`, 3, "leave it out (grep --exclude=.env)")
	check("Bash", `{"command":"grep -rn TODO lib"}`, 0, "allow")
	check("Bash", `{"command":"grep -rn --exclude=.env --exclude-dir=secret TODO ."}`, 0, "allow")
	check("Bash", `{"command":"rg -g '!.env' TODO lib"}`, 0, "allow")
	check("Bash", `{"command":"find . -name '*.go'"}`, 0, "allow")
}
