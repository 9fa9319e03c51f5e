package bridge

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The recorded Copilot CLI 1.0.102 payloads (PascalCase hook entries, a
// headless BYOK run against a scripted model; paths rewritten).
func init() {
	const sub = "2f90857d-d85e-4532-b8e3-2bd49f63fc16"
	for k, w := range map[string]want{
		"copilot/SessionStart":              {op: OpBegin},
		"copilot/UserPromptSubmit":          {op: OpBegin, prompt: "do the task [[script:main]]"},
		"copilot/UserPromptSubmit.subagent": {op: OpBegin, prompt: "list [[script:sub]]", agent: sub},
		"copilot/PreToolUse.Bash":           {op: OpPreTool, gate: true, tool: "Bash", commands: []string{"ls; echo hi > shell.txt"}},
		"copilot/PreToolUse.Bash.subagent":  {op: OpPreTool, gate: true, tool: "Bash", commands: []string{"ls src"}, agent: sub},
		"copilot/PreToolUse.Write":          {op: OpPreTool, gate: true, tool: "Write", writes: []string{"/home/u/proj/made.txt"}},
		"copilot/PreToolUse.Read":           {op: OpPreTool, gate: true, tool: "Read", reads: []string{"/home/u/proj/src/hello.txt"}},
		"copilot/PreToolUse.Edit":           {op: OpPreTool, gate: true, tool: "Edit", writes: []string{"/home/u/proj/src/hello.txt"}},
		"copilot/PreToolUse.Agent":          {op: OpPreTool, gate: true, tool: "Agent"},
		"copilot/PostToolUse.Bash":          {op: OpPostTool, tool: "Bash", commands: []string{"ls; echo hi > shell.txt"}, status: "success"},
		"copilot/PostToolUse.Bash.subagent": {op: OpPostTool, tool: "Bash", commands: []string{"ls src"}, status: "success", agent: sub},
		"copilot/PostToolUse.Write":         {op: OpPostTool, tool: "Write", writes: []string{"/home/u/proj/made.txt"}, status: "success"},
		"copilot/PostToolUse.Read":          {op: OpPostTool, tool: "Read", reads: []string{"/home/u/proj/src/hello.txt"}, status: "success"},
		"copilot/PostToolUse.Edit":          {op: OpPostTool, tool: "Edit", writes: []string{"/home/u/proj/src/hello.txt"}, status: "success"},
		"copilot/PostToolUse.Agent":         {op: OpPostTool, tool: "Agent", status: "success"},
		"copilot/PostToolUseFailure.Read":   {op: OpPostTool, tool: "Read", reads: []string{"/home/u/proj/nope.txt"}, status: "error"},
		"copilot/Stop":                      {op: OpFinalize, stop: "completed"},
		"copilot/Stop.subagent":             {op: OpFinalize, stop: "completed", agent: sub},
		"copilot/SubagentStop":              {op: OpFinalize, stop: "completed", agent: sub, child: true},
		"copilot/SessionEnd":                {op: OpFinalize, stop: "completed", end: true},
	} {
		expectations[k] = w
	}
}

func FuzzCopilotParse(f *testing.F) {
	for _, name := range []string{"permissionRequest", "preToolUse", "subagentStart"} {
		if b, err := os.ReadFile(filepath.Join("testdata", "copilot-camel", name+".json")); err == nil {
			f.Add(b)
		}
	}
	fuzzAdapter(f, "copilot")
}

// A subagent's own events name it as the session (session_id = agent_id);
// they belong to the session under it, which parent_agent_id names, so the
// subagent gets a child lease and not a session lease of its own.
func TestCopilotSubagentIsTheSessionsChild(t *testing.T) {
	a, _ := AdapterFor("copilot")
	files := recorded(t)
	parent, err := a.Parse(files["copilot/PreToolUse.Bash"])
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"copilot/PreToolUse.Bash.subagent", "copilot/UserPromptSubmit.subagent", "copilot/Stop.subagent", "copilot/SubagentStop"} {
		ev, err := a.Parse(files[key])
		if err != nil {
			t.Fatal(err)
		}
		req, err := ev.Request("")
		if err != nil {
			t.Fatal(err)
		}
		session, par, _ := sessionKeys(req)
		if par != parent.Session || session != parent.Session+"/agent/"+ev.Subagent.ID {
			t.Errorf("%s: session %q under %q, want a child of %q", key, session, par, parent.Session)
		}
	}
}

// Copilot CLI drops a non-zero exit's reason, and runs the call when the
// hook prints no JSON: every refusal is one JSON object at exit 0 that
// carries the reason.
func TestCopilotRefusalsCarryTheReason(t *testing.T) {
	a, _ := AdapterFor("copilot")
	ev, err := a.Parse(recorded(t)["copilot/PreToolUse.Bash"])
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []Verdict{
		{Kind: Deny, Reason: "command sudo is denied"},
		{Kind: Block, Reason: "lease L-1 was revoked"},
		FailVerdict("enforce", ev, "leasedeck could not read the hook payload"),
		VerdictFor(ev, Unreachable("enforce", ev)),
	} {
		out := a.Render(ev, v)
		var o map[string]string
		if err := json.Unmarshal(out.Stdout, &o); err != nil || out.ExitCode != 0 || o["permissionDecision"] != "deny" || o["permissionDecisionReason"] == "" {
			t.Errorf("%v: exit %d stdout %s (%v)", v.Kind, out.ExitCode, out.Stdout, err)
		}
	}
}

// Payloads a PascalCase install never sends, and hostile ones: a gate
// that cannot be read is denied with the member named, never a crash.
func TestCopilotHostilePayloads(t *testing.T) {
	a, _ := AdapterFor("copilot")
	camel := func(name string) string {
		b, err := os.ReadFile(filepath.Join("testdata", "copilot-camel", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, c := range []struct {
		name, stdin, member string
	}{
		{"camelCase preToolUse", camel("preToolUse"), "/hook_event_name"},
		{"no session", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`, "/session_id"},
		{"command an array", `{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Bash","tool_input":{"command":["rm","-rf","/"]}}`, "/tool_input/command"},
		{"write without path", `{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Write","tool_input":{"file_text":"x"}}`, "/tool_input/path"},
		{"view path a number", `{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"view","tool_input":{"path":7}}`, "/tool_input/path"},
		{"parent not a string", `{"hook_event_name":"PreToolUse","session_id":"s","parent_agent_id":[],"tool_name":"Bash","tool_input":{"command":"ls"}}`, "/parent_agent_id"},
		{"tool_input a string", `{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Bash","tool_input":"ls"}`, "/tool_input"},
		{"a patch that cannot be read", `{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"apply_patch","tool_input":{"input":"not a patch"}}`, "cannot read the patch"},
		{"truncated", `{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Ba`, "/"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ev, err := a.Parse([]byte(c.stdin))
			if err == nil {
				t.Fatalf("parsed: %+v", ev)
			}
			if !strings.Contains(err.Error(), c.member) {
				t.Errorf("error %q does not name %s", err, c.member)
			}
			if ev == nil || !ev.Gate {
				t.Fatalf("a broken gate payload is not a gate event: %+v", ev)
			}
			out := Render(a, ev, FailVerdict("enforce", ev, "leasedeck could not read the hook payload: "+err.Error()))
			var o map[string]string
			if jerr := json.Unmarshal(out.Stdout, &o); jerr != nil || o["permissionDecision"] != "deny" || !strings.Contains(o["permissionDecisionReason"], c.member) {
				t.Errorf("exit %d stdout %s: not a deny naming %s", out.ExitCode, out.Stdout, c.member)
			}
		})
	}
	// The camelCase events a PascalCase install still receives decide nothing.
	for _, name := range []string{"permissionRequest", "subagentStart"} {
		ev, err := a.Parse([]byte(camel(name)))
		if name == "permissionRequest" && (err != nil || ev.Op != OpNone) {
			t.Errorf("%s: %+v %v", name, ev, err)
		}
		out := Render(a, ev, Verdict{Kind: NoOpinion})
		if out.ExitCode == 2 {
			t.Errorf("%s: %+v", name, out)
		}
	}
}

// VS Code also runs the files in ~/.copilot/hooks, with its own payloads.
func TestCopilotHandsVSCodePayloadsOn(t *testing.T) {
	a, _ := AdapterFor("copilot")
	for key, data := range recorded(t) {
		if !strings.HasPrefix(key, "vscode/PreToolUse") {
			continue
		}
		ev, err := a.Parse(data)
		if err != nil {
			continue
		}
		if ev.Client != "vscode" {
			t.Errorf("%s: parsed as %s", key, ev.Client)
		}
		out := Render(a, ev, Verdict{Kind: Deny, Reason: "no"})
		if !strings.Contains(string(out.Stdout), `"permissionDecision":"deny"`) || !strings.Contains(string(out.Stdout), "hookSpecificOutput") {
			t.Errorf("%s: not VS Code's deny: %s", key, out.Stdout)
		}
	}
}
