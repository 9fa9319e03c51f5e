package setup

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/leasedeck/leasedeck/bridge"
)

func installOpts(client string) InstallOptions {
	return InstallOptions{Command: "leasedeck hook " + client, ApprovalTimeout: secs(300)}
}

// decodeStd reads JSON with numbers as json.Number, for comparisons.
func decodeStd(t *testing.T, b []byte) map[string]any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	return m
}

// handlers lists the leasedeck handlers per event in a merged file.
func handlers(t *testing.T, client string, b []byte, command string) map[string][]map[string]any {
	t.Helper()
	m := decodeStd(t, b)
	hooks, _ := m["hooks"].(map[string]any)
	out := map[string][]map[string]any{}
	for ev, v := range hooks {
		list, _ := v.([]any)
		for _, e := range list {
			o, _ := e.(map[string]any)
			var hs []any
			if flatHandlers(client) {
				hs = []any{o}
			} else {
				hs, _ = o["hooks"].([]any)
			}
			for _, h := range hs {
				hm, _ := h.(map[string]any)
				if hm["command"] == command || hm["bash"] == command {
					hm["_matcher"] = o["matcher"]
					out[ev] = append(out[ev], hm)
				}
			}
		}
	}
	return out
}

func TestInstallEmpty(t *testing.T) {
	for _, client := range bridge.Clients() {
		if bridge.IsPluginClient(client) {
			continue // a plugin file: plugins_install_test.go
		}
		for _, existing := range [][]byte{nil, []byte(""), []byte("  \n"), []byte("{}")} {
			opts := installOpts(client)
			res, err := Install(client, existing, opts)
			if err != nil {
				t.Fatalf("%s: %v", client, err)
			}
			if !res.Changed {
				t.Errorf("%s: not changed", client)
			}
			a, _ := bridge.AdapterFor(client)
			hs := handlers(t, client, res.Bytes, opts.Command)
			for _, spec := range a.Events() {
				got := hs[spec.Native]
				if spec.Optional {
					if len(got) != 0 {
						t.Errorf("%s: optional %s installed by default", client, spec.Native)
					}
					continue
				}
				if len(got) != 1 {
					t.Fatalf("%s %s: %d leasedeck handlers\n%s", client, spec.Native, len(got), res.Bytes)
				}
				h := got[0]
				if h["type"] != "command" {
					t.Errorf("%s %s: type %v", client, spec.Native, h["type"])
				}
				to, _ := h["timeout"].(json.Number)
				if client == "copilot" {
					to, _ = h["timeoutSec"].(json.Number)
				}
				n, _ := to.Int64()
				want := int64(360) // bridge.HookTimeoutFor(300 s), in seconds
				switch {
				case client == "gemini":
					want = 360000 // milliseconds
				case client == "codex" && (spec.Native == "SessionEnd" || spec.Native == "Interrupt"):
					want = 3
				case client == "claude-code" && spec.Native == "SessionEnd":
					want = 60
				}
				if n != want {
					t.Errorf("%s %s: timeout %v, want %d", client, spec.Native, h["timeout"], want)
				}
				if !flatHandlers(client) {
					wantMatcher := any(nil)
					if spec.Tools {
						wantMatcher = "*"
					}
					if h["_matcher"] != wantMatcher {
						t.Errorf("%s %s: matcher %v", client, spec.Native, h["_matcher"])
					}
				}
			}
			again, err := Install(client, res.Bytes, opts)
			if err != nil {
				t.Fatal(err)
			}
			if again.Changed || !bytes.Equal(again.Bytes, res.Bytes) || len(again.Added)+len(again.Updated) != 0 {
				t.Errorf("%s: second install changed something: %+v", client, again)
			}
		}
	}
}

func TestInstallKeepsUserSettings(t *testing.T) {
	orig, err := os.ReadFile(filepath.Join("testdata", "install", "claude-settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	opts := installOpts("claude-code")
	res, err := Install("claude-code", orig, opts)
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "install", "claude-settings.golden.json")
	if *update {
		if err := os.WriteFile(golden, res.Bytes, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(res.Bytes, want) {
		t.Errorf("merge differs from %s:\n%s", golden, firstDiff(string(want), string(res.Bytes)))
	}

	before, after := decodeStd(t, orig), decodeStd(t, res.Bytes)
	// Every member of the original is still there, unchanged, except that
	// hook event arrays may have grown at their end.
	for k, v := range before {
		if k == "hooks" {
			continue
		}
		if !reflect.DeepEqual(after[k], v) {
			t.Errorf("%s changed: %v → %v", k, v, after[k])
		}
	}
	bh, ah := before["hooks"].(map[string]any), after["hooks"].(map[string]any)
	for ev, v := range bh {
		old := v.([]any)
		now := ah[ev].([]any)
		if len(now) < len(old) || !reflect.DeepEqual(now[:len(old)], old) {
			t.Errorf("hooks.%s: the user's entries changed", ev)
		}
	}
	// Number literals and member order survive byte for byte.
	for _, lit := range []string{`"ratio": 1.50`, `"big": 12345678901234567890`, `"$schema"`} {
		if !strings.Contains(string(res.Bytes), lit) {
			t.Errorf("lost %s", lit)
		}
	}
	order := []string{`"$schema"`, `"permissions"`, `"env"`, `"model"`, `"cleanupPeriodDays"`, `"someFutureSetting"`, `"hooks"`, `"statusLine"`}
	last := -1
	for _, k := range order {
		i := strings.Index(string(res.Bytes), k)
		if i <= last {
			t.Errorf("member order changed at %s", k)
		}
		last = i
	}
	// The user's PreToolUse hook on Bash is kept and ours is added beside it.
	if hs := handlers(t, "claude-code", res.Bytes, "~/bin/audit-bash.sh")["PreToolUse"]; len(hs) != 1 || hs[0]["_matcher"] != "Bash" {
		t.Errorf("user hook: %v", hs)
	}
	again, _ := Install("claude-code", res.Bytes, opts)
	if again.Changed || !bytes.Equal(again.Bytes, res.Bytes) {
		t.Error("not idempotent on a user file")
	}
}

func TestInstallUpdatesOnlyItsOwnEntry(t *testing.T) {
	opts := installOpts("claude-code")
	first, _ := Install("claude-code", nil, opts)
	opts.ApprovalTimeout = secs(900)
	opts.FailClosed = true
	res, err := Install("claude-code", first.Bytes, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Added) != 0 || len(res.Updated) == 0 {
		t.Fatalf("added %v updated %v", res.Added, res.Updated)
	}
	hs := handlers(t, "claude-code", res.Bytes, opts.Command)
	for ev, list := range hs {
		if len(list) != 1 {
			t.Errorf("%s: %d entries", ev, len(list))
		}
		h := list[0]
		gate := ev == "PreToolUse" || ev == "PermissionRequest"
		if (h["onFailure"] == "block") != gate {
			t.Errorf("%s: onFailure %v", ev, h["onFailure"])
		}
		if ev != "SessionEnd" && h["timeout"] != json.Number("1080") {
			t.Errorf("%s: timeout %v", ev, h["timeout"])
		}
	}
	// A stale leasedeck entry with another command is reported, not touched.
	stale := strings.Replace(string(first.Bytes), `"leasedeck hook claude-code"`, `"/opt/old/leasedeck hook claude-code"`, 1)
	res, err = Install("claude-code", []byte(stale), installOpts("claude-code"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res.Bytes), "/opt/old/leasedeck hook claude-code") || !strings.Contains(strings.Join(res.Notes, "\n"), "another leasedeck entry") {
		t.Errorf("stale entry: notes %v", res.Notes)
	}
}

func TestInstallNarrowMatcherNote(t *testing.T) {
	in := `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"leasedeck hook claude-code","timeout":360,"statusMessage":"Checking with leasedeck"}]}]}}`
	res, err := Install("claude-code", []byte(in), installOpts("claude-code"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), `matcher "Bash"`) {
		t.Errorf("notes %v", res.Notes)
	}
}

func TestInstallRefusals(t *testing.T) {
	jsonc, _ := os.ReadFile(filepath.Join("testdata", "install", "gemini-settings.jsonc"))
	if _, err := Install("gemini", jsonc, installOpts("gemini")); !errors.Is(err, errJSONC) {
		t.Errorf("JSONC: %v", err)
	}
	for name, in := range map[string]string{
		"not an object": `[1]`,
		"hooks array":   `{"hooks":[]}`,
		"event object":  `{"hooks":{"PreToolUse":{"matcher":"*"}}}`,
		"not json":      `{"a":`,
		"trailing":      `{} {}`,
	} {
		if _, err := Install("claude-code", []byte(in), installOpts("claude-code")); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := Install("claude-code", nil, InstallOptions{Command: "x"}); err == nil {
		t.Error("no timeout: no error")
	}
	if _, err := Install("claude-code", nil, InstallOptions{Command: "x", ApprovalTimeout: secs(600), Timeout: secs(600)}); err == nil {
		t.Error("hook timeout not above the approval timeout: no error")
	}
	if _, err := Install("claude-code", nil, InstallOptions{ApprovalTimeout: secs(60)}); err == nil {
		t.Error("empty command: no error")
	}
	if _, err := Install("emacs", nil, installOpts("emacs")); err == nil {
		t.Error("unknown client: no error")
	}
}

func TestInstallClientSpecifics(t *testing.T) {
	// Gemini: name, milliseconds, the optional AfterModel on request, the
	// "disabled" list left alone.
	in := `{"hooks":{"disabled":["leasedeck"],"BeforeTool":[{"matcher":"write_file","hooks":[{"name":"mine","type":"command","command":"./mine.sh"}]}]},"tools":{"enableHooks":false}}`
	opts := installOpts("gemini")
	opts.Optional = true
	res, err := Install("gemini", []byte(in), opts)
	if err != nil {
		t.Fatal(err)
	}
	hs := handlers(t, "gemini", res.Bytes, opts.Command)
	if len(hs["AfterModel"]) != 1 || hs["BeforeTool"][0]["name"] != "leasedeck" {
		t.Errorf("gemini handlers %v", hs)
	}
	m := decodeStd(t, res.Bytes)
	if !reflect.DeepEqual(m["hooks"].(map[string]any)["disabled"], []any{"leasedeck"}) {
		t.Error("hooks.disabled changed")
	}
	notes := strings.Join(res.Notes, "\n")
	if !strings.Contains(notes, "disabled") || !strings.Contains(notes, "enableHooks") {
		t.Errorf("gemini notes %v", res.Notes)
	}
	// VS Code: no matcher level.
	res, _ = Install("vscode", nil, installOpts("vscode"))
	if strings.Contains(string(res.Bytes), "matcher") {
		t.Errorf("vscode file has matchers:\n%s", res.Bytes)
	}
	// Codex: only description and hooks at the root of a new file.
	res, _ = Install("codex", nil, installOpts("codex"))
	root := decodeStd(t, res.Bytes)
	if len(root) != 1 || root["hooks"] == nil {
		t.Errorf("codex root %v", root)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "trust") {
		t.Errorf("codex notes %v", res.Notes)
	}
	// Claude: disableAllHooks is reported.
	res, _ = Install("claude-code", []byte(`{"disableAllHooks":true}`), installOpts("claude-code"))
	if !strings.Contains(strings.Join(res.Notes, "\n"), "disableAllHooks") {
		t.Errorf("claude notes %v", res.Notes)
	}
	// Indentation is the file's own.
	res, _ = Install("claude-code", []byte("{\n\t\"model\": \"opus\"\n}\n"), installOpts("claude-code"))
	if !strings.Contains(string(res.Bytes), "\n\t\"model\"") {
		t.Errorf("indentation not kept:\n%s", res.Bytes)
	}
}

func TestSettingsPath(t *testing.T) {
	loc := Locations{Workspace: "/w", Home: "/home/u"}
	for _, c := range []struct {
		client string
		scope  Scope
		loc    Locations
		want   string
	}{
		{"claude-code", ScopeProject, loc, "/w/.claude/settings.json"},
		{"claude-code", ScopeUser, loc, "/home/u/.claude/settings.json"},
		{"codex", ScopeProject, loc, "/w/.codex/hooks.json"},
		{"codex", ScopeUser, loc, "/home/u/.codex/hooks.json"},
		{"codex", ScopeUser, Locations{CodexHome: "/srv/codex"}, "/srv/codex/hooks.json"},
		{"gemini", ScopeProject, loc, "/w/.gemini/settings.json"},
		{"gemini", ScopeUser, loc, "/home/u/.gemini/settings.json"},
		{"gemini", ScopeUser, Locations{Home: "/home/u", GeminiHome: "/g"}, "/g/.gemini/settings.json"},
		{"vscode", ScopeProject, loc, "/w/.github/hooks/leasedeck.json"},
		{"vscode", ScopeUser, loc, "/home/u/.copilot/hooks/leasedeck.json"},
		{"claude", ScopeProject, Locations{}, ".claude/settings.json"},
	} {
		got, err := SettingsPath(c.client, c.scope, c.loc)
		if err != nil || got != c.want {
			t.Errorf("%s %s: %q %v, want %q", c.client, c.scope, got, err, c.want)
		}
	}
	if _, err := SettingsPath("claude-code", ScopeUser, Locations{Workspace: "/w"}); err == nil {
		t.Error("user scope without home: no error")
	}
	if _, err := SettingsPath("claude-code", "global", loc); err == nil {
		t.Error("bad scope: no error")
	}
}

// An install from before hooks were pinned to their workspace is replaced,
// not left running beside the pinned one.
func TestInstallReplacesTheUnpinnedForm(t *testing.T) {
	for _, client := range bridge.Clients() {
		if bridge.IsPluginClient(client) {
			continue // a plugin file: plugins_install_test.go
		}
		old := installOpts(client)
		first, err := Install(client, nil, old)
		if err != nil {
			t.Fatal(err)
		}
		pinned := old
		pinned.Command = old.Command + " --workspace /src/shop"
		pinned.Replaces = []string{old.Command}
		res, err := Install(client, first.Bytes, pinned)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Updated) == 0 || len(res.Added) != 0 {
			t.Errorf("%s: added %v, updated %v", client, res.Added, res.Updated)
		}
		if left := handlers(t, client, res.Bytes, old.Command); len(left) != 0 {
			t.Errorf("%s: unpinned handlers left: %v", client, left)
		}
		a, _ := bridge.AdapterFor(client)
		hs := handlers(t, client, res.Bytes, pinned.Command)
		for _, spec := range a.Events() {
			if !spec.Optional && len(hs[spec.Native]) != 1 {
				t.Errorf("%s %s: %d pinned handlers", client, spec.Native, len(hs[spec.Native]))
			}
		}
		again, _ := Install(client, res.Bytes, pinned)
		if again.Changed {
			t.Errorf("%s: a second pinned install changed the file", client)
		}
	}
}
