package bridge

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// What the payloads recorded from leasedeck's own plugins in the real
// clients mean (testdata/opencode, testdata/pi; paths rewritten to
// /home/u/proj).
func init() {
	for k, w := range map[string]want{
		"pi/input":                           {op: OpBegin, prompt: "Work. [[script:main]]"},
		"pi/tool_call.bash":                  {op: OpPreTool, gate: true, tool: "Bash", native: "bash", commands: []string{"ls src"}},
		"pi/tool_call.read":                  {op: OpPreTool, gate: true, tool: "Read", native: "read", reads: []string{"/home/u/proj/src/hello.txt"}},
		"pi/tool_call.write":                 {op: OpPreTool, gate: true, tool: "Write", native: "write", writes: []string{"/home/u/proj/src/made.txt"}},
		"pi/tool_call.edit":                  {op: OpPreTool, gate: true, tool: "Edit", native: "edit", writes: []string{"/home/u/proj/src/made.txt"}},
		"pi/tool_result.bash":                {op: OpPostTool, tool: "Bash", native: "bash", commands: []string{"ls src"}, status: "success"},
		"pi/tool_result.read":                {op: OpPostTool, tool: "Read", native: "read", reads: []string{"/home/u/proj/src/hello.txt"}, status: "success"},
		"pi/tool_result.write":               {op: OpPostTool, tool: "Write", native: "write", writes: []string{"/home/u/proj/src/made.txt"}, status: "success"},
		"pi/tool_result.edit":                {op: OpPostTool, tool: "Edit", native: "edit", writes: []string{"/home/u/proj/src/made.txt"}, status: "success"},
		"pi/agent_end":                       {op: OpFinalize, stop: "completed"},
		"pi/session_shutdown":                {op: OpFinalize, end: true, stop: "completed"},
		"opencode/chat.message":              {op: OpBegin, prompt: `"Work. [[script:main]]"`},
		"opencode/session.idle":              {op: OpFinalize, stop: "completed"},
		"opencode/tool.execute.before.bash":  {op: OpPreTool, gate: true, tool: "Bash", native: "bash", commands: []string{"ls src"}},
		"opencode/tool.execute.before.read":  {op: OpPreTool, gate: true, tool: "Read", native: "read", reads: []string{"/home/u/proj/src/hello.txt"}},
		"opencode/tool.execute.before.write": {op: OpPreTool, gate: true, tool: "Write", native: "write", writes: []string{"/home/u/proj/src/made.txt"}},
		"opencode/tool.execute.before.edit":  {op: OpPreTool, gate: true, tool: "Edit", native: "edit", writes: []string{"/home/u/proj/src/made.txt"}},
		"opencode/tool.execute.before.grep":  {op: OpPreTool, gate: true, tool: "Grep", native: "grep", reads: []string{"/home/u/proj/src"}},
		"opencode/tool.execute.before.glob":  {op: OpPreTool, gate: true, tool: "Glob", native: "glob", reads: []string{"/home/u/proj"}},
		"opencode/tool.execute.after.bash":   {op: OpPostTool, tool: "Bash", native: "bash", commands: []string{"ls src"}, status: "success"},
		"opencode/tool.execute.after.read":   {op: OpPostTool, tool: "Read", native: "read", reads: []string{"/home/u/proj/src/hello.txt"}, status: "success"},
		"opencode/tool.execute.after.write":  {op: OpPostTool, tool: "Write", native: "write", writes: []string{"/home/u/proj/src/made.txt"}, status: "success"},
		"opencode/tool.execute.after.edit":   {op: OpPostTool, tool: "Edit", native: "edit", writes: []string{"/home/u/proj/src/made.txt"}, status: "success"},
	} {
		expectations[k] = w
	}
}

func pluginPayload(event, tool string, input any) []byte {
	m := map[string]any{"hook_event_name": event, "session_id": "ses_1", "cwd": "/home/u/proj", "tool_name": tool, "tool_input": input}
	b, _ := json.Marshal(m)
	return b
}

// The tool vocabulary: what the gate is asked about, per client tool.
func TestPluginTranslation(t *testing.T) {
	for _, c := range []struct {
		client, tool string
		in           map[string]any
		gate         string
		input        map[string]any
	}{
		{"pi", "write", map[string]any{"path": "@.pi/extensions/x.ts", "content": "c"}, "Write", map[string]any{"file_path": "/home/u/proj/.pi/extensions/x.ts", "content": "c"}},
		{"pi", "write", map[string]any{"path": "a\u00a0b.txt", "content": "c"}, "Write", map[string]any{"file_path": "/home/u/proj/a b.txt", "content": "c"}},
		{"pi", "edit", map[string]any{"path": "~/.bashrc", "edits": []any{}}, "Edit", map[string]any{"file_path": "~/.bashrc"}},
		{"pi", "write", map[string]any{"path": "/etc/hosts", "content": ""}, "Write", map[string]any{"file_path": "/etc/hosts", "content": ""}},
		{"pi", "write", map[string]any{"path": "../out.txt", "content": ""}, "Write", map[string]any{"file_path": "/home/u/proj/../out.txt", "content": ""}},
		{"pi", "read", map[string]any{"path": "it's 1 PM.png"}, "Read", map[string]any{"file_path": "/home/u/proj/it's 1 PM.png",
			"file_paths": []any{"/home/u/proj/it's 1\u202fPM.png", "/home/u/proj/it\u2019s 1 PM.png"}}},
		{"pi", "bash", map[string]any{"command": "ls", "timeout": 3}, "Bash", map[string]any{"command": "ls", "cwd": "/home/u/proj"}},
		{"pi", "grep", map[string]any{"pattern": "x", "glob": "*.go"}, "Grep", map[string]any{"pattern": "x", "path": "/home/u/proj", "glob": "*.go"}},
		{"pi", "ls", map[string]any{"path": "src"}, "Glob", map[string]any{"pattern": "*", "path": "/home/u/proj/src"}},
		{"pi", "my_tool", map[string]any{"x": "1"}, "my_tool", map[string]any{"x": "1"}},
		{"opencode", "bash", map[string]any{"command": "ls", "workdir": "sub"}, "Bash", map[string]any{"command": "ls", "cwd": "/home/u/proj/sub"}},
		{"opencode", "bash", map[string]any{"command": "ls", "cwd": "/"}, "Bash", map[string]any{"command": "ls", "cwd": "/home/u/proj"}},
		{"opencode", "write", map[string]any{"filePath": "rel.txt", "content": "c"}, "Write", map[string]any{"file_path": "/home/u/proj/rel.txt", "content": "c"}},
		{"opencode", "edit", map[string]any{"filePath": "/a", "oldString": "x", "newString": "y", "replaceAll": true}, "Edit",
			map[string]any{"file_path": "/a", "old_string": "x", "new_string": "y", "replace_all": true}},
		{"opencode", "webfetch", map[string]any{"url": "https://example.com", "format": "text"}, "WebFetch", map[string]any{"url": "https://example.com"}},
		{"opencode", "list", map[string]any{}, "Glob", map[string]any{"pattern": "*", "path": "/home/u/proj"}},
		{"opencode", "apply_patch", map[string]any{"patchText": "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: /w/b.txt\n@@\n-a\n+b\n*** End Patch"}, "Write",
			map[string]any{"file_path": "/home/u/proj/a.txt", "file_paths": []any{"/home/u/proj/a.txt", "/w/b.txt"}}},
		{"opencode", "github_create_issue", map[string]any{"title": "t"}, "github_create_issue", map[string]any{"title": "t"}},
	} {
		a, _ := AdapterFor(c.client)
		ev, err := a.Parse(pluginPayload(map[string]string{"pi": "tool_call", "opencode": "tool.execute.before"}[c.client], c.tool, c.in))
		if err != nil {
			t.Errorf("%s %s %v: %v", c.client, c.tool, c.in, err)
			continue
		}
		got := ev.Tool.Input
		delete(got, "patch")
		if ev.Tool.Name != c.gate || !reflect.DeepEqual(got, c.input) {
			t.Errorf("%s %s %v:\n got %s %v\nwant %s %v", c.client, c.tool, c.in, ev.Tool.Name, got, c.gate, c.input)
		}
	}
}

// A hostile or malformed payload is refused with the member named; a gate
// event fails closed.
func TestPluginHostilePayloads(t *testing.T) {
	for _, c := range []struct {
		client, payload, pointer string
	}{
		{"pi", `{"hook_event_name":"tool_call","session_id":"s","tool_name":"write","tool_input":{"content":"x"}}`, "/tool_input/path"},
		{"pi", `{"hook_event_name":"tool_call","session_id":"s","tool_name":"write","tool_input":{"path":7}}`, "/tool_input/path"},
		{"pi", `{"hook_event_name":"tool_call","session_id":"s","tool_name":"write","tool_input":{"path":"src/a","file_path":".pi/x.ts"}}`, "/tool_input/file_path"},
		{"pi", `{"hook_event_name":"tool_call","session_id":"s","tool_name":"bash","tool_input":{"command":" "}}`, "/tool_input/command"},
		{"pi", `{"hook_event_name":"tool_call","session_id":"s","tool_name":"bash","tool_input":"rm -rf /"}`, "/tool_input"},
		{"pi", `{"hook_event_name":"tool_call","tool_name":"bash","tool_input":{"command":"ls"}}`, "/session_id"},
		{"pi", `{"hook_event_name":"tool_call","session_id":"s","cwd":"relative","tool_name":"bash","tool_input":{"command":"ls"}}`, "/cwd"},
		{"pi", `{"hook_event_name":"tool_call","session_id":"s","tool_name":["bash"],"tool_input":{}}`, "/tool_name"},
		{"pi", `{"hook_event_name":"input","session_id":"s"}`, "/prompt"},
		{"opencode", `{"hook_event_name":"tool.execute.before","session_id":"s","tool_name":"write","tool_input":{"path":"/a"}}`, "/tool_input/filePath"},
		{"opencode", `{"hook_event_name":"tool.execute.before","session_id":"s","tool_name":"bash","tool_input":{"command":"ls","workdir":1}}`, "/tool_input/workdir"},
		{"opencode", `{"hook_event_name":"tool.execute.before","session_id":"s","tool_name":"apply_patch","tool_input":{"patchText":"not a patch"}}`, "/tool_input/command"},
		{"opencode", `{"hook_event_name":"tool.execute.before","session_id":"s","tool_name":"grep","tool_input":{"path":"/"}}`, "/tool_input/pattern"},
	} {
		a, _ := AdapterFor(c.client)
		ev, err := a.Parse([]byte(c.payload))
		var ie *InputError
		if !errors.As(err, &ie) || ie.Pointer != c.pointer {
			t.Errorf("%s %s: error %v, want one naming %s", c.client, c.payload, err, c.pointer)
			continue
		}
		if ev == nil {
			continue
		}
		out := Render(a, ev, FailVerdict("enforce", ev, err.Error()))
		if ev.Gate {
			var o map[string]any
			if json.Unmarshal(out.Stdout, &o) != nil || o["decision"] != "deny" || !strings.Contains(o["reason"].(string), c.pointer) {
				t.Errorf("%s %s: %s", c.client, c.payload, out.Stdout)
			}
		}
	}
	// A payload too broken to parse still names a gate event: fail closed.
	a, _ := AdapterFor("pi")
	ev, err := a.Parse([]byte(`{"hook_event_name":"tool_call","session_id":`))
	if err == nil || ev == nil || !ev.Gate {
		t.Fatalf("truncated gate payload: %+v %v", ev, err)
	}
	if out := Render(a, ev, FailVerdict("enforce", ev, err.Error())); !bytes.Contains(out.Stdout, []byte(`"decision":"deny"`)) {
		t.Errorf("truncated gate payload: %s", out.Stdout)
	}
	// An event the plugin never sends is an error; one it observes is not.
	if _, err := a.Parse([]byte(`{"hook_event_name":"turn_start","session_id":"s"}`)); !errors.Is(err, ErrUnknownEvent) {
		t.Errorf("unknown event: %v", err)
	}
	if ev, err := a.Parse([]byte(`{"hook_event_name":"session_start","session_id":"s"}`)); err != nil || ev.Op != OpNone {
		t.Errorf("observed event: %+v %v", ev, err)
	}
}

func TestPluginSessionEnds(t *testing.T) {
	a, _ := AdapterFor("pi")
	for reason, stop := range map[string]string{"quit": "completed", "": "completed", "reload": "", "fork": ""} {
		ev, err := a.Parse([]byte(`{"hook_event_name":"session_shutdown","session_id":"s","reason":"` + reason + `"}`))
		if err != nil || !ev.SessionEnd || ev.StopReason != stop {
			t.Errorf("%q: %+v %v", reason, ev, err)
		}
	}
	o, _ := AdapterFor("opencode")
	ev, err := o.Parse([]byte(`{"hook_event_name":"session.error","session_id":"s","reason":"ProviderAuthError"}`))
	if err != nil || ev.Op != OpAbort || ev.AbortReason != "session_error: ProviderAuthError" {
		t.Errorf("session.error: %+v %v", ev, err)
	}
}

func TestPluginSubagent(t *testing.T) {
	o, _ := AdapterFor("opencode")
	ev, err := o.Parse([]byte(`{"hook_event_name":"tool.execute.before","session_id":"ses_p","agent_id":"ses_c","agent_type":"task","tool_name":"bash","tool_input":{"command":"ls"}}`))
	if err != nil || ev.Subagent == nil || ev.Subagent.ID != "ses_c" || ev.Child {
		t.Fatalf("%+v %v", ev, err)
	}
	req, _ := ev.Request("")
	if s, parent, name := sessionKeys(req); parent != "ses_p" || s != "ses_p/agent/ses_c" || name != "subagent task" {
		t.Errorf("session keys %q %q %q", s, parent, name)
	}
	ev, err = o.Parse([]byte(`{"hook_event_name":"session.idle","session_id":"ses_p","agent_id":"ses_c","agent_type":"task"}`))
	if err != nil || !ev.Child || ev.SessionEnd {
		t.Errorf("the task's session going idle ends the child: %+v %v", ev, err)
	}
	if _, err := o.Parse([]byte(`{"hook_event_name":"session.idle","session_id":"ses_p","agent_id":7}`)); err == nil {
		t.Error("a number as agent_id")
	}
}

func FuzzOpenCodeParse(f *testing.F) { fuzzAdapter(f, "opencode") }
func FuzzPiParse(f *testing.F)       { fuzzAdapter(f, "pi") }
