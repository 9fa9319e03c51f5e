package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `leasedeck install opencode|pi` writes leasedeck's plugin where the
// client discovers it, with this binary's absolute path and the workspace
// written in; a file it replaces is kept as a backup; a second install
// changes nothing; and the plugin's hook answers in the plugin's format.
func TestInstallPluginThroughBinary(t *testing.T) {
	w := newWorkspace(t)
	for client, rel := range map[string]string{"opencode": ".opencode/plugins/leasedeck.js", "pi": ".pi/extensions/leasedeck.ts"} {
		path := filepath.Join(w.dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(path), 0o755)
		foreign := "// someone's own plugin\n"
		os.WriteFile(path, []byte(foreign), 0o600)
		dry := w.run("", "install", client, "--dry-run", "--command", binary)
		if b, _ := os.ReadFile(path); dry.code != 0 || string(b) != foreign || !strings.Contains(dry.stdout, "Written by `leasedeck install "+client) {
			t.Fatalf("%s dry run: %+v", client, dry)
		}
		r := w.run("", "install", client, "--command", binary)
		if r.code != 0 || !strings.Contains(r.stderr, "not written by leasedeck") {
			t.Fatalf("%s install: %+v", client, r)
		}
		b, _ := os.ReadFile(path)
		exe, _ := json.Marshal(hookBinary) // the lean hook binary, beside binary
		ws, _ := json.Marshal(w.dir)
		if !strings.Contains(string(b), "const LEASEDECK = "+string(exe)) || !strings.Contains(string(b), string(ws)) || !strings.Contains(string(b), "const TIMEOUT_MS = 150000") {
			t.Errorf("%s: the plugin written:\n%s", client, b)
		}
		if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
			t.Errorf("%s: the file's mode changed to %v", client, st.Mode())
		}
		if bk, err := os.ReadFile(path + ".leasedeck-backup"); err != nil || string(bk) != foreign {
			t.Errorf("%s: backup %v %q", client, err, bk)
		}
		if again := w.run("", "install", client, "--command", binary); again.code != 0 || !strings.Contains(again.stdout, "nothing changed") {
			t.Errorf("%s: second install: %+v", client, again)
		}
		if after, _ := os.ReadFile(path); string(after) != string(b) {
			t.Errorf("%s: a second install rewrote the plugin", client)
		}
	}
	w.serve()
	for _, c := range []struct {
		client, payload, want string
	}{
		{"pi", `{"hook_event_name":"tool_call","session_id":"s1","cwd":"` + w.dir + `","tool_name":"write","tool_input":{"path":"src/a.txt","content":"x"}}`, `{"decision":"allow"}`},
		{"pi", `{"hook_event_name":"tool_call","session_id":"s1","cwd":"` + w.dir + `","tool_name":"write","tool_input":{"path":"@.pi/extensions/x.ts","content":"x"}}`, `"decision":"deny","reason":"write to .pi/extensions/x.ts is refused`},
		{"opencode", `{"hook_event_name":"tool.execute.before","session_id":"s2","cwd":"` + w.dir + `","tool_name":"bash","tool_input":{"command":"echo x > opencode.json"}}`, `"decision":"deny","reason":"write to opencode.json is refused`},
		{"opencode", `{"hook_event_name":"tool.execute.before","session_id":"s2","tool_name":"write","tool_input":{}}`, `"decision":"deny","reason":"leasedeck: leasedeck could not read the hook payload: opencode hook input: /tool_input/filePath`},
	} {
		if r := w.hook(c.client, c.payload); r.code != 0 || !strings.Contains(r.stdout, c.want) {
			t.Errorf("%s %s:\n%+v\nwant %s", c.client, c.payload, r, c.want)
		}
	}
}
