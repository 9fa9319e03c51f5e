package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Tool calls an agent makes through the real hook, against the default
// policy and the default agent manifest: each would have run unseen
// before, and each is refused or held now.
func TestHookRefusesWhatTheGateCouldNotSee(t *testing.T) {
	w := newWorkspace(t)
	w.serve()
	input := func(m map[string]any) map[string]any { return m["tool_input"].(map[string]any) }
	cases := []struct {
		name, client, payload string
		edit                  func(m map[string]any)
		want                  string
	}{
		{"a Codex patch line with a command after it", "codex", "PreToolUse", func(m map[string]any) {
			input(m)["command"] = "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: hello.txt\n+hi\n*** End Patch\nEOF\nsudo id"
		}, `"permissionDecision":"deny"`},
		{"Grep with a glob that names .env", "claude-code", "PreToolUse.Grep", func(m map[string]any) {
			input(m)["glob"], input(m)["path"] = ".env*", "."
		}, `"permissionDecision":"deny"`},
		{"Glob for .env files", "claude-code", "PreToolUse.Glob", func(m map[string]any) {
			input(m)["pattern"] = "**/.env"
			delete(input(m), "path")
		}, `"permissionDecision":"deny"`},
		{"Write a git hook", "claude-code", "PreToolUse.Write", func(m map[string]any) {
			input(m)["file_path"] = filepath.Join(w.dir, ".git/hooks/pre-commit")
		}, `"permissionDecision":"deny"`},
		{"Edit the CI workflow", "claude-code", "PreToolUse.Edit", func(m map[string]any) {
			input(m)["file_path"] = filepath.Join(w.dir, ".github/workflows/ci.yml")
		}, `"permissionDecision":"deny"`},
		{"shell write to .vscode/tasks.json", "claude-code", "PreToolUse", func(m map[string]any) {
			input(m)["command"] = `echo '{"tasks":[]}' > .vscode/tasks.json`
		}, `"permissionDecision":"deny"`},
		{"Write husky's pre-commit hook", "claude-code", "PreToolUse.Write", func(m map[string]any) {
			input(m)["file_path"] = filepath.Join(w.dir, ".husky/pre-commit")
		}, `"permissionDecision":"deny"`},
		{"shell write to lefthook.yml", "claude-code", "PreToolUse", func(m map[string]any) {
			input(m)["command"] = `echo 'pre-commit: {commands: {x: {run: id}}}' > lefthook.yml`
		}, `"permissionDecision":"deny"`},
		{"shell write to .pre-commit-config.yaml", "claude-code", "PreToolUse", func(m map[string]any) {
			input(m)["command"] = `printf 'repos: []\n' >> .pre-commit-config.yaml`
		}, `"permissionDecision":"deny"`},
		{"shell write to .mcp.json", "claude-code", "PreToolUse", func(m map[string]any) {
			input(m)["command"] = `echo '{}' > .mcp.json`
		}, `"permissionDecision":"deny"`},
		{"a 3 MB line", "claude-code", "PreToolUse", func(m map[string]any) {
			input(m)["command"] = "echo " + strings.Repeat("a", 3<<20)
		}, `over 64 KiB`},
		{"reading the CI workflow stays allowed", "claude-code", "PreToolUse.Read", func(m map[string]any) {
			input(m)["file_path"] = filepath.Join(w.dir, ".github/workflows/ci.yml")
		}, `"permissionDecision":"allow"`},
		{"Glob listing everything stays allowed", "claude-code", "PreToolUse.Glob", func(m map[string]any) {
			input(m)["pattern"] = "*"
			delete(input(m), "path")
		}, `"permissionDecision":"allow"`},
		{"Glob for Go files stays allowed", "claude-code", "PreToolUse.Glob", func(m map[string]any) {
			input(m)["pattern"] = "**/*.go"
			delete(input(m), "path")
		}, `"permissionDecision":"allow"`},
	}
	for _, c := range cases {
		start := time.Now()
		r := w.hook(c.client, w.payload(c.client, c.payload, c.edit))
		if r.code != 0 || !strings.Contains(r.stdout, c.want) {
			t.Errorf("%s: exit %d, stdout %s, stderr %s", c.name, r.code, r.stdout, r.stderr)
		}
		if el := time.Since(start); el > 5*time.Second {
			t.Errorf("%s: took %v", c.name, el)
		}
	}
}

// A call that carries a credential is held for a human even though the
// lease allows it (echo, no approval), the human is shown it masked, and
// no journal line ever holds it: written whole, or put together by the
// shell from quoted pieces, an escape or a variable set on the line
// (then not even its tail is shown or kept).
func TestHookHoldsACallCarryingASecret(t *testing.T) {
	const tail = "aB3cD6eF9gH2iJ5kL8mN1oP4qR7sT0uV3wX6y"
	for name, line := range map[string]string{
		"whole":    "echo ghp_" + tail + " | tee notes.txt",
		"quoted":   `echo "gh""p_` + tail + `" | tee notes.txt`,
		"escaped":  `echo $'\x67hp_` + tail + `' | tee notes.txt`,
		"variable": `x=ghp_; echo "${x}` + tail + `" | tee notes.txt`,
	} {
		t.Run(name, func(t *testing.T) { holdsSecret(t, line, "ghp_"+tail, tail) })
	}
}

func holdsSecret(t *testing.T, line, secret, tail string) {
	w := newWorkspace(t)
	w.serve()
	stdin := w.payload("claude-code", "PreToolUse", func(m map[string]any) {
		m["tool_input"].(map[string]any)["command"] = line
	})
	done := make(chan result, 1)
	go func() { done <- w.hook("claude-code", stdin) }()
	p := firstHeld(t, w, done)
	shown := p.Summary + " " + p.Reason
	if strings.Contains(shown, tail) || !strings.Contains(shown, "[redacted]") || !strings.Contains(p.Reason, "credential") {
		t.Errorf("the human is shown %q (names %v)", shown, p.Names)
	}
	if r := w.run("", "deny", p.ID, "--reason", "that is a token"); r.code != 0 {
		t.Fatalf("deny: %+v", r)
	}
	r := <-done
	if !strings.Contains(r.stdout, `"permissionDecision":"deny"`) {
		t.Errorf("after a deny: %+v", r)
	}
	w.stop()
	files, _ := filepath.Glob(filepath.Join(w.dir, ".leasedeck", "journal", "*"))
	if len(files) == 0 {
		t.Fatal("no journal files")
	}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if strings.Contains(string(b), secret) || strings.Contains(string(b), tail) {
			for _, l := range strings.Split(string(b), "\n") {
				if strings.Contains(l, tail) {
					t.Errorf("%s holds the token: %s", filepath.Base(f), l)
				}
			}
		}
	}
}

// heldApproval is a pending approval as `approvals --json` lists it.
type heldApproval struct {
	ID      string   `json:"approval_id"`
	Summary string   `json:"summary"`
	Reason  string   `json:"reason"`
	Names   []string `json:"names"`
}

// firstHeld waits until the hook call answering on done is held for a
// human and returns the first pending approval; the call being answered
// first fails the test.
func firstHeld(t *testing.T, w *wsEnv, done <-chan result) heldApproval {
	t.Helper()
	var pending []heldApproval
	deadline := time.Now().Add(8 * time.Second)
	for len(pending) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the call was never held")
		}
		select {
		case r := <-done:
			t.Fatalf("answered without a human: %+v", r)
		default:
		}
		r := w.run("", "approvals", "--json")
		if r.code != 0 {
			t.Fatalf("approvals: %+v", r)
		}
		json.Unmarshal([]byte(r.stdout), &pending)
	}
	return pending[0]
}
