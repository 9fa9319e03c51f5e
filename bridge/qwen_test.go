package bridge

import (
	"encoding/json"
	"strings"
	"testing"
)

// The recorded Qwen Code 0.24.4 payloads (a headless --yolo run against a
// scripted model; paths rewritten), plus tool calls built on the same
// envelope.
func init() {
	for k, w := range map[string]want{
		"qwen-code/SessionStart":                  {op: OpBegin},
		"qwen-code/UserPromptSubmit":              {op: OpBegin, prompt: "do the task [[script:main]]"},
		"qwen-code/UserPromptSubmit.continuation": {}, // a tool-result send: no new turn
		"qwen-code/PreToolUse":                    {op: OpPreTool, gate: true, tool: "Bash", native: "run_shell_command", commands: []string{"ls; echo hi > shell.txt"}},
		"qwen-code/PreToolUse.directory":          {op: OpPreTool, gate: true, tool: "Bash", native: "run_shell_command", commands: []string{"ls"}},
		"qwen-code/PreToolUse.monitor":            {op: OpPreTool, gate: true, tool: "Bash", native: "monitor", commands: []string{"echo z > via_monitor.txt"}},
		"qwen-code/PreToolUse.write_file":         {op: OpPreTool, gate: true, tool: "Write", native: "write_file", writes: []string{"/home/u/proj/src/made.txt"}},
		"qwen-code/PreToolUse.edit":               {op: OpPreTool, gate: true, tool: "Edit", native: "edit", writes: []string{"/home/u/proj/src/a.ts"}},
		"qwen-code/PreToolUse.read_file":          {op: OpPreTool, gate: true, tool: "Read", native: "read_file", reads: []string{"/home/u/proj/README.md"}},
		"qwen-code/PreToolUse.agent":              {op: OpPreTool, gate: true, tool: "Agent", native: "agent"},
		"qwen-code/PreToolUse.cron_create":        {op: OpPreTool, gate: true, tool: "cron_create"},
		"qwen-code/PreToolUse.subagent": {op: OpPreTool, gate: true, tool: "Bash", native: "run_shell_command", commands: []string{"ls src"},
			agent: "general-purpose-call_main_4_0"},
		"qwen-code/PostToolUse":        {op: OpPostTool, tool: "Bash", native: "run_shell_command", commands: []string{"ls; echo hi > shell.txt"}, status: "success"},
		"qwen-code/PostToolUse.agent":  {op: OpPostTool, tool: "Agent", native: "agent", status: "success"},
		"qwen-code/PostToolUseFailure": {op: OpPostTool, tool: "Bash", native: "run_shell_command", commands: []string{"exit 3"}, status: "error"},
		"qwen-code/SubagentStart":      {op: OpBegin, agent: "general-purpose-call_main_4_0", child: true},
		"qwen-code/SubagentStop":       {op: OpFinalize, agent: "general-purpose-call_main_4_0", child: true, stop: "completed"},
		"qwen-code/Stop":               {op: OpFinalize, stop: "completed"},
		"qwen-code/PostToolBatch":      {}, "qwen-code/Notification": {}, "qwen-code/InstructionsLoaded": {},
	} {
		expectations[k] = w
	}
}

func FuzzQwenParse(f *testing.F) { fuzzAdapter(f, "qwen-code") }

func qwenPayload(t *testing.T, file string) []byte {
	t.Helper()
	b, ok := recorded(t)["qwen-code/"+file]
	if !ok {
		t.Fatalf("no testdata/qwen-code/%s.json", file)
	}
	return b
}

// Qwen Code runs a tool whenever a hook fails, so every refusal on the gate
// is exit 2 with the reason on stderr (what the model is shown), with the
// deny JSON on stdout as well; no refusal is ever exit 0 alone or exit 1.
func TestQwenRefusalsAreExit2(t *testing.T) {
	a, _ := AdapterFor("qwen")
	ev, err := a.Parse(qwenPayload(t, "PreToolUse"))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []Verdict{
		{Kind: Deny, Reason: "command sudo is denied"},
		{Kind: Block, Reason: "lease L-1 was revoked"},
		{Kind: Fail, Reason: "registry error"},
		FailVerdict("enforce", ev, "leasedeck could not read the hook payload"),
		VerdictFor(ev, Unreachable("enforce", ev)),
	} {
		out := a.Render(ev, v)
		if out.ExitCode != 2 || strings.TrimSpace(string(out.Stderr)) == "" {
			t.Errorf("%v: exit %d stderr %q", v.Kind, out.ExitCode, out.Stderr)
		}
		var o struct {
			HSO struct {
				Decision string `json:"permissionDecision"`
				Reason   string `json:"permissionDecisionReason"`
			} `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal(out.Stdout, &o); err != nil || o.HSO.Decision != "deny" || o.HSO.Reason != strings.TrimSpace(string(out.Stderr)) {
			t.Errorf("%v: stdout %s (%v)", v.Kind, out.Stdout, err)
		}
	}
	if out := a.Render(ev, Verdict{Kind: Allow}); out.ExitCode != 0 || !strings.Contains(string(out.Stdout), `"permissionDecision":"allow"`) {
		t.Errorf("allow: %+v", out)
	}
}

// Hostile or broken payloads: denied on the gate with the member named,
// never a crash, never exit 1 (which Qwen Code ignores).
func TestQwenHostilePayloads(t *testing.T) {
	a, _ := AdapterFor("qwen-code")
	for _, c := range []struct {
		name, stdin, member string
	}{
		{"not JSON", `{"hook_event_name":"PreToolUse","tool_name":`, "/"},
		{"no session", `{"hook_event_name":"PreToolUse","tool_name":"run_shell_command","tool_input":{"command":"ls"}}`, "/session_id"},
		{"tool_input not an object", `{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"run_shell_command","tool_input":"rm -rf /"}`, "/tool_input"},
		{"command not a string", `{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"run_shell_command","tool_input":{"command":["rm","-rf","/"]}}`, "/tool_input/command"},
		{"monitor without command", `{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"monitor","tool_input":{}}`, "/tool_input/command"},
		{"write without path", `{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"write_file","tool_input":{"content":"x"}}`, "/tool_input/file_path"},
		{"edit path a number", `{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"edit","tool_input":{"file_path":7}}`, "/tool_input/file_path"},
		{"cwd an object", `{"hook_event_name":"PreToolUse","session_id":"s","cwd":{},"tool_name":"read_file","tool_input":{"file_path":"/a"}}`, "/cwd"},
		{"empty", ``, "/"},
		{"an array", `[{"hook_event_name":"PreToolUse"}]`, "/"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ev, err := a.Parse([]byte(c.stdin))
			if err == nil {
				t.Fatalf("parsed: %+v", ev)
			}
			if !strings.Contains(err.Error(), c.member) {
				t.Errorf("error %q does not name %s", err, c.member)
			}
			if ev == nil {
				ev = &Event{Client: a.Name()}
			}
			out := Render(a, ev, FailVerdict("enforce", ev, "leasedeck could not read the hook payload: "+err.Error()))
			if out.ExitCode != 2 || !strings.Contains(string(out.Stderr), c.member) {
				t.Errorf("exit %d stderr %q: a broken gate payload must be refused (exit 2) with the member named", out.ExitCode, out.Stderr)
			}
		})
	}
}

// A shell call's directory member moves where its relative paths resolve:
// relative to the payload's cwd, and never a cwd the model put in the input.
func TestQwenShellDirectory(t *testing.T) {
	a, _ := AdapterFor("qwen-code")
	ev, err := a.Parse(qwenPayload(t, "PreToolUse.directory"))
	if err != nil {
		t.Fatal(err)
	}
	if got := ev.Tool.Input["cwd"]; got != "/home/u/proj/sub" {
		t.Errorf("cwd = %v", got)
	}
	b := []byte(strings.Replace(string(qwenPayload(t, "PreToolUse")), `"tool_input":{`, `"tool_input":{"cwd":"/","directory":"/etc",`, 1))
	if ev, err = a.Parse(b); err != nil {
		t.Fatal(err)
	}
	if got := ev.Tool.Input["cwd"]; got != "/etc" {
		t.Errorf("cwd = %v, want the directory member", got)
	}
}
