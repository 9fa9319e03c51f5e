package setup

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/bridge"
)

func pluginOpts() PluginOptions {
	return PluginOptions{Executable: "/opt/leasedeck/bin/leasedeck", Workspace: "/src/it's \"shop\"", Timeout: 150 * time.Second}
}

func TestPluginSource(t *testing.T) {
	for _, client := range []string{"opencode", "pi"} {
		src, err := PluginSource(client, pluginOpts())
		if err != nil {
			t.Fatal(err)
		}
		s := string(src)
		for _, want := range []string{
			`const LEASEDECK = "/opt/leasedeck/bin/leasedeck"`,
			`const ARGS = ["hook","` + client + `","--workspace","/src/it's \"shop\"","--timeout","150"]`,
			`const TIMEOUT_MS = 150000`,
			pluginMarker + client + "`",
		} {
			if !strings.Contains(s, want) {
				t.Errorf("%s: the plugin lacks %s", client, want)
			}
		}
		if strings.Contains(s, "@@") {
			t.Errorf("%s: a placeholder is left", client)
		}
		for _, bad := range []PluginOptions{{Executable: "leasedeck", Workspace: "/w", Timeout: time.Minute},
			{Executable: "/l", Workspace: "w", Timeout: time.Minute}, {Executable: "/l", Workspace: "/w"}} {
			if _, err := PluginSource(client, bad); err == nil {
				t.Errorf("%s: %+v accepted", client, bad)
			}
		}
	}
	if _, err := PluginSource("codex", pluginOpts()); err == nil {
		t.Error("codex has no plugin")
	}
}

func TestInstallPlugin(t *testing.T) {
	for _, client := range []string{"opencode", "pi"} {
		first, err := InstallPlugin(client, nil, pluginOpts())
		if err != nil || !first.Changed || first.Foreign {
			t.Fatalf("%s: %+v %v", client, first, err)
		}
		again, err := InstallPlugin(client, first.Bytes, pluginOpts())
		if err != nil || again.Changed || again.Foreign || !bytes.Equal(again.Bytes, first.Bytes) {
			t.Errorf("%s: not idempotent: %+v %v", client, again, err)
		}
		moved := pluginOpts()
		moved.Executable = "/usr/local/bin/leasedeck"
		up, _ := InstallPlugin(client, first.Bytes, moved)
		if !up.Changed || up.Foreign {
			t.Errorf("%s: a new binary path did not update leasedeck's own plugin: %+v", client, up)
		}
		foreign, _ := InstallPlugin(client, []byte("export default function () {}\n"), pluginOpts())
		if !foreign.Changed || !foreign.Foreign {
			t.Errorf("%s: a file leasedeck did not write: %+v", client, foreign)
		}
		if _, err := Install(client, nil, installOpts("claude-code")); err == nil {
			t.Errorf("%s: Install merged settings entries for a plugin client", client)
		}
	}
}

func TestPluginPath(t *testing.T) {
	loc := Locations{Workspace: "/w", Home: "/h"}
	for _, c := range []struct {
		client string
		scope  Scope
		loc    Locations
		want   string
	}{
		{"opencode", ScopeProject, loc, "/w/.opencode/plugins/leasedeck.js"},
		{"opencode", ScopeUser, loc, "/h/.config/opencode/plugins/leasedeck.js"},
		{"opencode", ScopeUser, Locations{Home: "/h", ConfigHome: "/x"}, "/x/opencode/plugins/leasedeck.js"},
		{"pi", ScopeProject, loc, "/w/.pi/extensions/leasedeck.ts"},
		{"pi", ScopeUser, loc, "/h/.pi/agent/extensions/leasedeck.ts"},
		{"pi", ScopeUser, Locations{PiAgentDir: "/p"}, "/p/extensions/leasedeck.ts"},
	} {
		got, err := SettingsPath(c.client, c.scope, c.loc)
		if err != nil || got != c.want {
			t.Errorf("%s %s: %q %v, want %q", c.client, c.scope, got, err, c.want)
		}
	}
	if _, err := PluginPath("pi", ScopeUser, Locations{Workspace: "/w"}); err == nil {
		t.Error("user scope without a home: no error")
	}
	if _, err := PluginPath("pi", "global", loc); err == nil {
		t.Error("bad scope: no error")
	}
	if !bridge.IsPluginClient("opencode-ai") || bridge.IsPluginClient("gemini") || bridge.IsPluginClient("nope") {
		t.Error("IsPluginClient")
	}
}

// The embedded plugins are the files in the repository (a test that the
// template placeholders stay quoted, so the templates themselves parse).
func TestPluginTemplatesQuoted(t *testing.T) {
	for _, tmpl := range pluginTemplates {
		b, err := os.ReadFile(tmpl)
		if err != nil {
			t.Fatal(err)
		}
		for _, ph := range []string{`"@@LEASEDECK@@"`, `"@@ARGS@@"`, `"@@TIMEOUT_MS@@"`} {
			if bytes.Count(b, []byte(ph)) != 1 {
				t.Errorf("%s: placeholder %s appears %d times", tmpl, ph, bytes.Count(b, []byte(ph)))
			}
		}
	}
}

// doctor reads back what install wrote into a plugin.
func TestInspectPlugin(t *testing.T) {
	opts := pluginOpts()
	for _, client := range []string{"opencode", "pi"} {
		src, _ := PluginSource(client, opts)
		in, err := Inspect(client, src, Owner{Client: client, Workspace: opts.Workspace})
		a, _ := bridge.AdapterFor(client)
		if err != nil || len(in.Hooks) != len(a.Events()) {
			t.Fatalf("%s: %+v %v", client, in, err)
		}
		h := in.Hooks[0]
		if !h.Ours || !h.Parsed || h.Hook.Exe != opts.Executable || h.Hook.Workspace != opts.Workspace || h.Hook.Timeout != 150 {
			t.Errorf("%s: %+v", client, h)
		}
		if in, _ := Inspect(client, src, Owner{Client: client, Workspace: "/elsewhere"}); len(in.Hooks) == 0 || in.Hooks[0].Ours {
			t.Errorf("%s: another workspace's plugin counted as ours: %+v", client, in)
		}
		if in, _ := Inspect(client, []byte("export default function () {}\n"), Owner{Client: client, Workspace: opts.Workspace}); len(in.Hooks) != 0 || len(in.Notes) != 1 {
			t.Errorf("%s: a foreign file: %+v", client, in)
		}
		broken := bytes.Replace(src, []byte("const ARGS = ["), []byte("const ARGS = ("), 1)
		if in, _ := Inspect(client, broken, Owner{Client: client, Workspace: opts.Workspace}); len(in.Hooks) == 0 || in.Hooks[0].Parsed || in.Hooks[0].Ours {
			t.Errorf("%s: an edited plugin: %+v", client, in)
		}
	}
}

// A task's session reaches the registry as a subagent of its parent.
