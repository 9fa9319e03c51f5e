package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostileCall is one tool call an agent could make its client send, and
// whether the gate must refuse it.
type hostileCall struct {
	client, tool string
	input        map[string]any
	allow        bool // a benign twin: proves the refusal is not blanket
}

// hostileCalls are tool calls whose input names a protected file in a way
// the gate could read one way and the client another: a path with white
// space at an end (clients differ on trimming), a URI, a tool of another
// client's carrying the gate's own name, an element of the wrong type in a
// list the client reads, a patch whose headers the client reads where a
// reader skipping indented lines would not, a patch applied in a workdir.
func hostileCalls(ws string) []hostileCall {
	const settings = ".claude/settings.json"
	policy := filepath.Join(ws, ".leasedeck", "policy.json")
	patch := func(body string) string { return "*** Begin Patch\n" + body + "*** End Patch\n" }
	var calls []hostileCall
	// Every client but Claude Code and VS Code (whose Claude harness sends
	// these very names): a tool it does not have, named like the gate's.
	for _, c := range []string{"codex", "gemini", "qwen-code", "opencode", "pi"} {
		for _, name := range []string{"TodoWrite", "BashOutput", "KillShell", "ExitPlanMode", "Task", "Agent", "Glob", "Read"} {
			calls = append(calls, hostileCall{client: c, tool: name, input: map[string]any{"path": policy, "filePath": policy}})
		}
	}
	calls = append(calls,
		hostileCall{client: "copilot", tool: "TodoWrite", input: map[string]any{"path": policy}},
		hostileCall{client: "copilot", tool: "KillShell", input: map[string]any{"path": policy}},
		// White space, URIs, NUL.
		hostileCall{client: "claude-code", tool: "Write", input: map[string]any{"file_path": settings + " ", "content": "{}"}},
		hostileCall{client: "claude-code", tool: "Read", input: map[string]any{"file_path": " " + policy}},
		hostileCall{client: "claude-code", tool: "Read", input: map[string]any{"file_path": "\t" + policy + "\n"}},
		hostileCall{client: "claude-code", tool: "Read", input: map[string]any{"file_path": "README.md\x00/../" + policy}},
		hostileCall{client: "claude-code", tool: "Read", input: map[string]any{"file_path": "README.md"}, allow: true},
		hostileCall{client: "gemini", tool: "write_file", input: map[string]any{"file_path": settings + "\u00a0", "content": "{}"}},
		hostileCall{client: "opencode", tool: "read", input: map[string]any{"filePath": " " + policy}},
		hostileCall{client: "pi", tool: "write", input: map[string]any{"path": settings + " ", "content": "{}"}},
		hostileCall{client: "copilot", tool: "create", input: map[string]any{"path": settings + " ", "file_text": "{}"}},
		hostileCall{client: "vscode", tool: "read_file", input: map[string]any{"filePath": "vscode-remote://ssh-remote+h" + policy}},
		hostileCall{client: "vscode", tool: "read_file", input: map[string]any{"filePath": "file://" + policy}},
		hostileCall{client: "vscode", tool: "read_file", input: map[string]any{"filePath": "README.md"}, allow: true},
		// A second name for the notebook Claude Code edits.
		hostileCall{client: "claude-code", tool: "NotebookEdit", input: map[string]any{"notebook_path": "a.ipynb", "file_path": settings, "new_source": "x"}},
		// Lists with an element the gate would skip.
		hostileCall{client: "vscode", tool: "editFiles", input: map[string]any{"files": []any{"ok.txt", map[string]any{"path": settings}}}},
		hostileCall{client: "vscode", tool: "multi_replace_string_in_file", input: map[string]any{"replacements": []any{
			map[string]any{"filePath": "ok.txt", "oldString": "a", "newString": "b"}, settings}}},
		hostileCall{client: "vscode", tool: "multi_replace_string_in_file", input: map[string]any{"replacements": []any{
			map[string]any{"filePath": "ok.txt", "oldString": "a", "newString": "b"}, map[string]any{"filePath": []any{settings}}}}},
		hostileCall{client: "vscode", tool: "fetch_webpage", input: map[string]any{"urls": []any{"https://example.com/", map[string]any{"u": "https://evil.example/"}}}},
		// Patch headers after white space: Codex's apply_patch reads them.
		hostileCall{client: "codex", tool: "apply_patch", input: map[string]any{"command": patch("*** Add File: ok.txt\n+x\n  *** Add File: " + settings + "\n+{}\n")}},
		hostileCall{client: "codex", tool: "apply_patch", input: map[string]any{"command": patch("*** Add File: ok.txt\n+x\n\t*** Delete File: .git/config\n")}},
		hostileCall{client: "codex", tool: "apply_patch", input: map[string]any{"command": patch("*** Add File:  ok.txt\n+x\n")}},
		hostileCall{client: "codex", tool: "apply_patch", input: map[string]any{"command": patch("*** Add File: ok.txt\n+x\n")}, allow: true},
		hostileCall{client: "vscode", tool: "apply_patch", input: map[string]any{"input": patch("*** Add File: ok.txt\n+x\n  *** Add File: " + settings + "\n+{}\n")}},
		hostileCall{client: "opencode", tool: "apply_patch", input: map[string]any{"patchText": patch("*** Add File: ok.txt\n+x\n  *** Add File: " + settings + "\n+{}\n")}},
		// An envelope that repeats or trails on.
		hostileCall{client: "codex", tool: "apply_patch", input: map[string]any{"command": patch("*** Add File: ok.txt\n+x\n") + patch("*** Add File: "+settings+"\n+{}\n")}},
		hostileCall{client: "codex", tool: "apply_patch", input: map[string]any{"command": patch("*** Add File: ok.txt\n+x\n") + "*** Add File: " + settings + "\n+{}\n"}},
		// A patch applied where the call's workdir is.
		hostileCall{client: "codex", tool: "exec_command", input: map[string]any{"cmd": []any{"apply_patch", patch("*** Add File: settings.json\n+{}\n")}, "workdir": ".claude"}},
		hostileCall{client: "codex", tool: "exec_command", input: map[string]any{"cmd": "apply_patch <<'EOF'\n" + patch("*** Add File: policy.json\n+{}\n") + "EOF\n", "workdir": filepath.Join(ws, ".leasedeck")}},
		hostileCall{client: "codex", tool: "exec_command", input: map[string]any{"cmd": []any{"apply_patch", patch("*** Add File: notes.txt\n+x\n")}, "workdir": "src"}, allow: true},
		hostileCall{client: "codex", tool: "exec_command", input: map[string]any{"cmd": "ls", "workdir": 5}},
		hostileCall{client: "codex", tool: "exec_command", input: map[string]any{"cmd": "ls", "workdir": []any{".leasedeck"}}},
	)
	return calls
}

// Hostile tool inputs through both programs that run hooks, against a real
// registry: each refused in the client's own form (never an allow), each
// benign twin allowed, no crash, and the journal still verifies.
func TestHookRefusesInputsClientAndGateReadDifferently(t *testing.T) {
	w := newWorkspace(t)
	w.serve()
	if err := os.MkdirAll(filepath.Join(w.dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range hostileCalls(w.dir) {
		file := gateFixtureOf(t, c.client)
		stdin := w.payload(c.client, file, func(m map[string]any) {
			m["tool_name"] = c.tool
			m["tool_input"] = c.input
		})
		for _, exe := range hookPrograms() {
			r := w.hookOn(exe, c.client, stdin)
			refused := refusedByClient(c.client, r)
			if refused == c.allow || (r.code != 0 && r.code != 2) {
				t.Errorf("%s %s %s %v: refused=%v (want %v), exit %d\nstdout: %.300s\nstderr: %.300s",
					filepath.Base(exe), c.client, c.tool, c.input, refused, !c.allow, r.code, r.stdout, r.stderr)
			}
		}
	}
	if r := w.run("", "journal", "verify"); r.code != 0 {
		t.Fatalf("journal verify: %+v", r)
	}
}

// gateFixtureOf is the recorded gate payload of a client.
func gateFixtureOf(t *testing.T, client string) string {
	for _, f := range gateFixtures {
		if f.client == client {
			return f.file
		}
	}
	t.Fatalf("no gate fixture for %s", client)
	return ""
}

// The hostile table covers every client.
func TestHostileCallsCoverEveryClient(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range hostileCalls("/ws") {
		seen[c.client] = true
	}
	for _, f := range gateFixtures {
		if !seen[f.client] {
			t.Errorf("no hostile call for %s", f.client)
		}
	}
}

// A gate payload that is not exactly one well-formed JSON object is
// refused by every client's adapter, in both programs that run hooks:
// what the client's parser would make of it (JSON.parse and serde take
// the last of two equal keys, skip a BOM or not, replace invalid UTF-8)
// is not the gate's to guess.
func TestHookRefusesMalformedGatePayloads(t *testing.T) {
	w := newWorkspace(t)
	w.serve()
	for _, f := range gateFixtures {
		good := w.payload(f.client, f.file, func(m map[string]any) {
			m["tool_input"].(map[string]any)["command"] = "ls"
		})
		key := `"command":"ls"`
		if !strings.Contains(good, key) {
			t.Fatalf("%s: no %s in %s", f.client, key, good)
		}
		attacks := map[string]string{
			"a BOM before it":         "\ufeff" + good,
			"garbage after it":        good + "x",
			"two objects":             good + good,
			"nested 10,000 deep":      strings.Replace(good, key, key+`,"x":`+strings.Repeat("[", 10000)+strings.Repeat("]", 10000), 1),
			"the command named twice": strings.Replace(good, key, key+`,"command":"cat .leasedeck/policy.json"`, 1),
			"invalid UTF-8":           strings.Replace(good, key, `"command":"ls \xff"`, 1),
		}
		for name, stdin := range attacks {
			for _, exe := range hookPrograms() {
				if r := w.hookOn(exe, f.client, stdin); !refusedByClient(f.client, r) {
					t.Errorf("%s %s: %s: not refused: exit %d\nstdout: %.300s\nstderr: %.300s", filepath.Base(exe), f.client, name, r.code, r.stdout, r.stderr)
				}
			}
		}
		if r := w.hook(f.client, good); refusedByClient(f.client, r) {
			t.Errorf("%s: the well-formed payload was refused: %+v", f.client, r)
		}
	}
	if r := w.run("", "journal", "verify"); r.code != 0 {
		t.Fatalf("journal verify: %+v", r)
	}
}
