package bridge

import (
	"encoding/json"
	"strings"
	"testing"
)

// fuzzAdapter: whatever stdin holds, parsing, building the request and
// rendering every verdict never panic; a gate event never renders a refusal
// as exit 1; stdout is empty or one JSON object.
func fuzzAdapter(f *testing.F, client string) {
	a, err := AdapterFor(client)
	if err != nil {
		f.Fatal(err)
	}
	for key, data := range recorded(f) {
		if strings.HasPrefix(key, client+"/") {
			f.Add(data)
		}
	}
	f.Add([]byte(""))
	f.Add([]byte("{}"))
	f.Add([]byte(`{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"apply_patch","tool_input":{"command":["apply_patch","*** Begin Patch\n*** Add File: x\n+1\n*** End Patch"]}}`))
	f.Add([]byte(`{"hookEventName":"PreToolUse","sessionId":"s","tool_name":"multi_replace_string_in_file","tool_input":{"replacements":[{"filePath":7}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := a.Parse(data)
		if ev != nil && err == nil && ev.Op != OpNone {
			req, rerr := ev.Request("adm")
			if rerr == nil {
				if _, merr := json.Marshal(req); merr != nil {
					t.Fatalf("marshal request: %v", merr)
				}
			}
		}
		for _, vc := range verdicts {
			out := Render(a, ev, vc.v)
			if len(out.Stdout) > 0 {
				var o map[string]any
				if jerr := json.Unmarshal(out.Stdout, &o); jerr != nil {
					t.Fatalf("stdout not a JSON object: %q", out.Stdout)
				}
			}
			if ev != nil && ev.Gate && (vc.v.Kind == Deny || vc.v.Kind == Block) && out.ExitCode == 1 {
				t.Fatalf("gate refusal rendered as exit 1")
			}
		}
		if err != nil && len(sniffNames(data, toolMemberKeys)) > 0 && (ev == nil || ev.Op == OpNone) {
			t.Fatalf("a broken payload that names a tool call is read as no event (%+v)", ev)
		}
		if err != nil {
			out := Render(a, ev, FailVerdict("enforce", ev, err.Error()))
			if ev != nil && ev.Gate && out.ExitCode == 1 {
				t.Fatalf("broken gate payload fails open")
			}
		}
	})
}

func FuzzClaudeParse(f *testing.F) { fuzzAdapter(f, "claude-code") }
func FuzzCodexParse(f *testing.F)  { fuzzAdapter(f, "codex") }
func FuzzGeminiParse(f *testing.F) { fuzzAdapter(f, "gemini") }
func FuzzVSCodeParse(f *testing.F) { fuzzAdapter(f, "vscode") }
