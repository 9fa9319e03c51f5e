package setup

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestCopilotInstall(t *testing.T) {
	opts := installOpts("copilot")
	mine := `{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "./audit.sh", "timeoutSec": 5}]}}`
	res, err := Install("copilot", []byte(mine), opts)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res.Bytes), "./audit.sh") {
		t.Errorf("the user's hook is gone:\n%s", res.Bytes)
	}
	hs := handlers(t, "copilot", res.Bytes, opts.Command)
	if g := hs["PreToolUse"]; len(g) != 1 || g[0]["timeoutSec"].(json.Number).String() != "360" || g[0]["type"] != "command" {
		t.Errorf("gate %v\n%s", g, res.Bytes)
	}
	fresh, err := Install("copilot", nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	if m := decodeStd(t, fresh.Bytes); m["version"].(json.Number).String() != "1" {
		t.Errorf("no version: %s", fresh.Bytes)
	}
	for _, c := range []struct {
		scope Scope
		loc   Locations
		want  string
	}{
		{ScopeProject, Locations{Workspace: "/src/shop", Home: "/home/u"}, "/src/shop/.github/hooks/leasedeck-copilot.json"},
		{ScopeUser, Locations{Home: "/home/u"}, "/home/u/.copilot/hooks/leasedeck-copilot.json"},
		{ScopeUser, Locations{CopilotHome: "/cfg/copilot"}, "/cfg/copilot/hooks/leasedeck-copilot.json"},
	} {
		if got, err := SettingsPath("copilot", c.scope, c.loc); err != nil || got != filepath.FromSlash(c.want) {
			t.Errorf("%s %+v: %q %v", c.scope, c.loc, got, err)
		}
	}
}

// doctor reads Copilot's handlers ("bash", no matcher level) as install
// writes them.
func TestCopilotInspect(t *testing.T) {
	opts := installOpts("copilot")
	res, err := Install("copilot", []byte(`{"version":1,"hooks":{"PreToolUse":[{"type":"command","bash":"./audit.sh"}]}}`), opts)
	if err != nil {
		t.Fatal(err)
	}
	in, err := Inspect("copilot", res.Bytes, Owner{Client: "copilot", Commands: []string{opts.Command}})
	if err != nil {
		t.Fatal(err)
	}
	ours := 0
	for _, h := range in.Hooks {
		if h.Ours && h.Command == opts.Command {
			ours++
		}
	}
	if want := len(adapter(t, "copilot").Events()); ours != want {
		t.Errorf("Inspect found %d of leasedeck's %d handlers: %+v", ours, want, in.Hooks)
	}
}
