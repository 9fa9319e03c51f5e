package setup

import (
	"strings"
	"testing"
)

// --tool-outcomes=false leaves out only Claude Code's PostToolUse, in both
// hook kinds: the gates (fail closed), PostToolUseFailure, PermissionDenied
// and the lifecycle events stay. Over a full install it takes out our
// PostToolUse entry and keeps the user's; installing in full again puts it
// back; each is idempotent, and Inspect reads the result back as lean.
func TestInstallWithoutToolOutcomes(t *testing.T) {
	user := `{"hooks":{"PostToolUse":[{"matcher":"Write","hooks":[{"type":"command","command":"my-formatter"}]}]}}`
	for _, kind := range []struct {
		name string
		opts func() InstallOptions
	}{{"http", httpOpts}, {"command", func() InstallOptions { o := installOpts("claude-code"); o.FailClosed = true; return o }}} {
		t.Run(kind.name, func(t *testing.T) {
			full, err := Install("claude-code", []byte(user), kind.opts())
			if err != nil {
				t.Fatal(err)
			}
			lean := kind.opts()
			lean.NoToolOutcomes = true
			res, err := Install("claude-code", full.Bytes, lean)
			if err != nil || !res.Changed {
				t.Fatalf("lean over full: %v %+v", err, res)
			}
			hooks := decodeStd(t, res.Bytes)["hooks"].(map[string]any)
			for _, spec := range claudeEvents() {
				groups, _ := hooks[spec.Native].([]any)
				ours := 0
				for _, g := range groups {
					for _, h := range g.(map[string]any)["hooks"].([]any) {
						if hm := h.(map[string]any); hm["command"] != "my-formatter" {
							ours++
							if spec.Gate && hm["onFailure"] != "block" {
								t.Errorf("%s: the gate does not fail closed: %v", spec.Native, hm)
							}
						}
					}
				}
				if want := map[bool]int{true: 0, false: 1}[spec.Native == "PostToolUse"]; ours != want {
					t.Errorf("%s: %d leasedeck handlers, want %d\n%s", spec.Native, ours, want, res.Bytes)
				}
			}
			if !strings.Contains(string(res.Bytes), "my-formatter") {
				t.Errorf("the user's PostToolUse hook was dropped:\n%s", res.Bytes)
			}
			in, err := Inspect("claude-code", res.Bytes, Owner{Client: "claude-code", Commands: []string{lean.Command}})
			if err != nil || !ToolOutcomesLeftOut("claude-code", ours(in)) || ToolOutcomesLeftOut("claude-code", ours(mustInspect(t, full.Bytes, lean.Command))) {
				t.Errorf("ToolOutcomesLeftOut does not tell the lean install from the full one: %v", err)
			}
			again, err := Install("claude-code", res.Bytes, lean)
			if err != nil || again.Changed {
				t.Errorf("a second lean install changed the file: %v %+v", err, again.Updated)
			}
			back, err := Install("claude-code", res.Bytes, kind.opts())
			if err != nil || string(back.Bytes) != string(full.Bytes) {
				t.Errorf("installing in full again is not the full install: %v\n%s", err, firstDiff(string(full.Bytes), string(back.Bytes)))
			}
			un := UninstallOptions{Owner: Owner{Client: "claude-code", Commands: []string{lean.Command}}, Backup: []byte(user), HaveBackup: true}
			if gone, err := Uninstall("claude-code", res.Bytes, un); err != nil || !gone.Restored || string(gone.Bytes) != user {
				t.Errorf("uninstall of the lean install does not give the user's file back: %v %+v\n%s", err, gone.Removed, gone.Bytes)
			}
			fresh, err := Install("claude-code", []byte(user), lean)
			if err != nil || string(fresh.Bytes) != string(res.Bytes) {
				t.Errorf("a fresh lean install differs from lean over full: %v\n%s", err, firstDiff(string(res.Bytes), string(fresh.Bytes)))
			}
		})
	}
	if ToolOutcomeEvent("codex", "PostToolUse") || ToolOutcomesLeftOut("codex", []InstalledHook{{Event: "PreToolUse"}}) {
		t.Error("--tool-outcomes is Claude Code's only")
	}
}

func mustInspect(t *testing.T, b []byte, command string) Inspection {
	t.Helper()
	in, err := Inspect("claude-code", b, Owner{Client: "claude-code", Commands: []string{command}})
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func ours(in Inspection) []InstalledHook {
	var out []InstalledHook
	for _, h := range in.Hooks {
		if h.Ours {
			out = append(out, h)
		}
	}
	return out
}
