package setup

import (
	"strings"
	"testing"

	"github.com/leasedeck/leasedeck/bridge"
)

func TestParseHookCommand(t *testing.T) {
	cases := []struct {
		cmd  string
		ok   bool
		want HookCommand
	}{
		{"/usr/local/bin/leasedeck hook claude-code --workspace /src/shop --timeout 150", true, HookCommand{"/usr/local/bin/leasedeck", "claude-code", "/src/shop", 150}},
		{"'/opt/my tools/leasedeck' hook codex --workspace '/src/it'\\''s' --timeout 30", true, HookCommand{"/opt/my tools/leasedeck", "codex", "/src/it's", 30}},
		{`leasedeck hook gemini-cli --workspace="/w" --timeout=60`, true, HookCommand{"leasedeck", "gemini", "/w", 60}},
		{"leasedeck hook vscode --timeout 30", true, HookCommand{"leasedeck", "vscode", "", 30}},
		{"leasedeck hook claude-code --workspace $HOME/w", false, HookCommand{}},
		{"leasedeck hook claude-code --workspace ~/w", false, HookCommand{}},
		{"leasedeck hook claude-code; rm -rf /", false, HookCommand{}},
		{"leasedeck hook claude-code > /tmp/x", false, HookCommand{}},
		{"X=1 leasedeck hook claude-code", false, HookCommand{}},
		{"leasedeck hook emacs", false, HookCommand{}},
		{"leasedeck hook claude-code --timeout soon", false, HookCommand{}},
		{"leasedeck hook claude-code --other 1", false, HookCommand{}},
		{"leasedeck hook claude-code stray", false, HookCommand{}},
		{"leasedeck hook claude-code --workspace", false, HookCommand{}},
		{"my-own-check", false, HookCommand{}},
		{"", false, HookCommand{}},
	}
	for _, c := range cases {
		got, ok := ParseHookCommand(c.cmd)
		if ok != c.ok || got != c.want {
			t.Errorf("%q: %+v %v, want %+v %v", c.cmd, got, ok, c.want, c.ok)
		}
	}
}

// What install writes reads back as itself, whatever the paths hold.
func TestFormatParseRoundTrip(t *testing.T) {
	for _, p := range []string{"/usr/bin/leasedeck", "/usr/bin/leasedeck-hook", "/opt/a b/leasedeck", "/x/it's", `/x/"q"`, "/x/$HOME", "/x/*", "/x/~a"} {
		cmd := FormatHookCommand(p, "claude-code", p+"/ws", 150)
		got, ok := ParseHookCommand(cmd)
		if !ok || got != (HookCommand{p, "claude-code", p + "/ws", 150}) {
			t.Errorf("%q → %q → %+v %v", p, cmd, got, ok)
		}
	}
}

func FuzzParseHookCommand(f *testing.F) {
	f.Add("/usr/local/bin/leasedeck hook claude-code --workspace /src/shop --timeout 150")
	f.Add("'a b' hook codex --workspace=\"/w\"")
	f.Fuzz(func(t *testing.T, cmd string) {
		hc, ok := ParseHookCommand(cmd)
		if !ok {
			return
		}
		// A parsed line formats back to one that parses the same.
		again, ok := ParseHookCommand(FormatHookCommand(hc.Exe, hc.Client, hc.Workspace, hc.Timeout))
		if !ok || again != hc {
			t.Fatalf("%q → %+v → %+v %v", cmd, hc, again, ok)
		}
	})
}

func TestOwner(t *testing.T) {
	o := Owner{Client: "claude-code", Workspace: "/src/shop", Commands: []string{"leasedeck hook claude-code --timeout 150"}}
	cases := map[string]bool{
		"leasedeck hook claude-code --timeout 150":                                 true, // an exact older form
		"/moved/leasedeck hook claude-code --workspace /src/shop --timeout 999":    true, // pinned here
		"/moved/leasedeck hook claude-code --workspace /src/shop/ --timeout 999":   true,
		"/bin/leasedeck-hook hook claude-code --workspace /src/shop --timeout 150": true,  // the lean binary, pinned here
		"/moved/leasedeck hook claude-code --workspace /src/other --timeout 150":   false, // another workspace's
		"/opt/leasedeck hook claude-code --timeout 150":                            false, // unpinned, another binary
		"/moved/leasedeck hook codex --workspace /src/shop --timeout 150":          false, // another client's
		"my-own-check": false,
		"/moved/leasedeck hook claude-code --workspace /src/shop && my-own-check": false,
	}
	for cmd, want := range cases {
		if got := o.OwnsCommand(cmd); got != want {
			t.Errorf("%q: %v, want %v", cmd, got, want)
		}
	}
}

func TestVersions(t *testing.T) {
	if v := VersionIn("2.1.328 (Claude Code)\n"); v != "2.1.328" {
		t.Error(v)
	}
	if v := VersionIn("codex-cli 0.169.0"); v != "0.169.0" {
		t.Error(v)
	}
	if v := VersionIn("no version here"); v != "" {
		t.Error(v)
	}
	for _, c := range []struct {
		a, b string
		want int
		ok   bool
	}{{"2.1.328", "2.1.295", 1, true}, {"2.1.295", "2.1.295", 0, true}, {"2.1.99", "2.1.295", -1, true}, {"3.0", "2.1.295", 1, true}, {"", "2.1.295", 0, false}} {
		got, ok := CompareVersions(c.a, c.b)
		if got != c.want || ok != c.ok {
			t.Errorf("%s vs %s: %d %v", c.a, c.b, got, ok)
		}
	}
}

func TestClaudeFailure(t *testing.T) {
	gate := func(onFailure string) []InstalledHook {
		return []InstalledHook{{Event: "PreToolUse", Ours: true, OnFailure: onFailure}, {Event: "PermissionRequest", Ours: true, OnFailure: onFailure}, {Event: "Stop", Ours: true}}
	}
	cases := []struct {
		name    string
		version string
		hooks   []InstalledHook
		blocks  bool
		fix     string
		wrong   bool
	}{
		{"current, fail closed", "2.1.328", gate("block"), true, "", false},
		{"current, no onFailure", "2.1.328", gate(""), false, "--fail-closed", false},
		{"one gate without", "2.1.328", append(gate("block"), InstalledHook{Event: "PreToolUse", Ours: true}), false, "--fail-closed", false},
		{"old, onFailure written", "2.1.200", gate("block"), false, "--fail-closed=false", true},
		{"old, none", "2.1.200", gate(""), false, "", false},
		{"unknown version", "", gate(""), false, "--fail-closed", false},
	}
	for _, c := range cases {
		fm := claudeFailure(c.version, c.hooks)
		if fm.Blocks != c.blocks || fm.Fix != c.fix || (fm.Wrong != "") != c.wrong || fm.Detail == "" {
			t.Errorf("%s: %+v", c.name, fm)
		}
	}
	// Every client install knows has facts (doctor reports them).
	for _, c := range bridge.Clients() {
		if f, ok := Facts(c); !ok || len(f.Programs) == 0 || !strings.Contains(f.Failure("", nil).Detail, " ") {
			t.Errorf("no facts for %s: add what it does with a hook that fails to clientFacts (bridge/clientfacts.go); doctor reports it", c)
		}
	}
}
