package bridge

import (
	"fmt"
	"strings"
	"time"
)

// GitHub Copilot CLI hooks (pinned test client 1.0.102, BYOK mode). Hook
// files are ~/.copilot/hooks/*.json ($COPILOT_HOME) and, with a trusted
// folder only, .github/hooks/*.json. leasedeck installs PascalCase events:
// their payloads name the event (hook_event_name, session_id, tool_name,
// tool_input, Claude's tool names with Copilot's own input members), while
// the camelCase events' payloads do not say which event they are.
//
//	PreToolUse   allow  exit 0 {"permissionDecision":"allow"}
//	             deny   exit 0 {"permissionDecision":"deny","permissionDecisionReason":R} (the model gets
//	                    "Denied by preToolUse hook: R"); also for block and for a leasedeck error: Copilot
//	                    drops the reason of a non-zero exit ("hook exited with code 2"), so the refusal is
//	                    said in JSON
//	             ask    exit 0 {"permissionDecision":"ask",…} (a headless run turns it into a deny)
//	PostToolUse  block  exit 0 {"additionalContext":R} (documented; it cannot undo the call)
//	SessionStart, UserPromptSubmit, Stop, SubagentStop, SessionEnd: Copilot reads no decision there; warnings
//	             go to stderr.
//
// Copilot fails CLOSED when a preToolUse hook crashes, exits non-zero or is
// missing, and OPEN when it times out or prints something that is not
// JSON: the hook's exchange ends before the timeout install writes, and
// every answer is one JSON object.
//
// A subagent's own events carry its id as session_id and the session's as
// parent_agent_id; they are mapped onto the session with the subagent's
// agent id, the way Claude Code reports them, so the subagent gets a child
// lease under the session's.
type copilotAdapter struct{}

func (copilotAdapter) Name() string { return "copilot" }

var copilotEvents = []EventSpec{
	{Native: "SessionStart", Op: OpBegin},
	{Native: "UserPromptSubmit", Op: OpBegin},
	{Native: "PreToolUse", Op: OpPreTool, Gate: true, Tools: true},
	{Native: "PostToolUse", Op: OpPostTool, Tools: true},
	{Native: "PostToolUseFailure", Op: OpPostTool, Tools: true},
	{Native: "SubagentStop", Op: OpFinalize},
	{Native: "Stop", Op: OpFinalize},
	{Native: "SessionEnd", Op: OpFinalize},
}

// copilotObserved: events that carry nothing to decide. permissionRequest
// and subagentStart keep camelCase payloads whatever the config's case,
// without a hook_event_name; they are not installed.
var copilotObserved = map[string]bool{
	"Notification": true, "PreCompact": true, "ErrorOccurred": true, "PermissionRequest": true, "SubagentStart": true,
	"permissionRequest": true, "subagentStart": true,
}

func (copilotAdapter) Events() []EventSpec { return copilotEvents }

// Timeout: timeoutSec defaults to 30 s; no maximum is documented. A
// timeout lets the call run.
func (copilotAdapter) Timeout(string) Timeout { return Timeout{Default: 30 * time.Second} }

func (a copilotAdapter) Parse(stdin []byte) (*Event, error) {
	p, err := decodePayload(a.Name(), stdin)
	if err != nil {
		return sniffEvent(a.Name(), copilotEvents, stdin), err
	}
	if _, ok := p.m["hook_event_name"]; !ok {
		if _, ok := p.m["hookEventName"]; ok {
			// VS Code reads ~/.copilot/hooks too, with its own payloads.
			return parseVSCode(p)
		}
		if n, _ := p.m["hookName"].(string); n != "" && copilotObserved[n] {
			return &Event{Client: a.Name(), Native: n}, nil
		}
		if _, tool := p.m["toolName"]; tool {
			// A camelCase tool event cannot say whether it is before or
			// after the call: refused as a gate would be.
			return &Event{Client: a.Name(), Native: "PreToolUse", Op: OpPreTool, Gate: true},
				&InputError{Client: a.Name(), Pointer: "/hook_event_name", Msg: "missing (a camelCase hook entry: install the hooks with leasedeck install copilot)"}
		}
	}
	if parent, err := p.str("parent_agent_id"); err != nil {
		return sniffEvent(a.Name(), copilotEvents, stdin), err
	} else if parent != "" {
		// The subagent's own events name it as the session.
		p.m["session_id"] = parent
	}
	ev, err := parseClaudeLike(p, a.Name(), copilotEvents, copilotObserved)
	if err != nil || ev == nil || ev.Op == OpNone {
		return ev, err
	}
	switch ev.Native {
	case "PostToolUse":
		res, err := p.object("tool_result")
		if err != nil {
			return ev, err
		}
		ev.Status = copilotStatus(res)
		ev.Result = digestResult(ev.Tool.Name, p.m["tool_result"], ev.Status)
	case "SessionEnd":
		ev.StopReason = copilotEndStop(ev.Source)
	}
	return ev, nil
}

// copilotStatus reads tool_result.result_type ("success", "failure",
// "rejected", "denied").
func copilotStatus(res map[string]any) string {
	switch t, _ := res["result_type"].(string); t {
	case "success":
		return "success"
	case "rejected", "denied":
		return "denied"
	case "":
		return ""
	}
	return "error"
}

// copilotEndStop maps sessionEnd's reason (complete, error, abort,
// timeout, user_exit) to a finalize stop_reason.
func copilotEndStop(reason string) string {
	switch reason {
	case "complete", "user_exit":
		return "completed"
	case "abort":
		return "user_interrupt"
	case "error":
		return "error"
	case "timeout":
		return "timeout"
	}
	return ""
}

// copilotTools maps Copilot CLI's tools (PascalCase hooks rename them to
// Claude Code's names, camelCase ones do not; both are accepted) onto the
// gate's vocabulary. The inputs keep Copilot's members: path, file_text,
// old_str, new_str.
var copilotTools = map[string]func(client, native string, in map[string]any) (*ToolCall, error){
	"bash": copilotShell, "powershell": copilotShell,
	"write": copilotFile(ToolWrite), "create": copilotFile(ToolWrite),
	"read": copilotFile(ToolRead), "view": copilotFile(ToolRead),
	"edit":  copilotFile(ToolEdit),
	"agent": copilotAgent, "task": copilotAgent,
	"grep": copilotSearch(ToolGrep), "glob": copilotSearch(ToolGlob),
	"webfetch": copilotFetch, "web_fetch": copilotFetch, "fetch": copilotFetch,
	"apply_patch": copilotPatch,
}

func translateCopilot(client, native string, in map[string]any) (*ToolCall, error) {
	if translate := copilotTools[strings.ToLower(native)]; translate != nil {
		return translate(client, native, in)
	}
	// read_bash, write_bash (input to a running shell), stop_bash, sql,
	// skill, MCP tools …: opaque, a lease must name them.
	return opaqueCall(native, in), nil
}

func copilotShell(client, native string, in map[string]any) (*ToolCall, error) {
	if err := requireString(client, native, in, "command"); err != nil {
		return nil, err
	}
	out := map[string]any{"command": in["command"]}
	if d, ok := in["description"].(string); ok && d != "" {
		out["description"] = d
	}
	gate := ToolBash
	if strings.EqualFold(native, "powershell") {
		gate = "PowerShell"
	}
	return newCall(native, gate, out, in), nil
}

// copilotFile maps a one-file tool: path → file_path, and Copilot's
// content members onto the gate's.
func copilotFile(gate string) func(client, native string, in map[string]any) (*ToolCall, error) {
	return func(client, native string, in map[string]any) (*ToolCall, error) {
		key := "path"
		if _, ok := in["path"]; !ok {
			if _, ok := in["file_path"]; ok {
				key = "file_path"
			}
		}
		if err := requireString(client, native, in, key); err != nil {
			return nil, err
		}
		if _, err := oneOf(client, native, in, "path", "file_path"); err != nil {
			return nil, err
		}
		out := map[string]any{"file_path": in[key]}
		for from, to := range map[string]string{"file_text": "content", "content": "content", "old_str": "old_string", "new_str": "new_string"} {
			if v, ok := in[from]; ok {
				out[to] = v
			}
		}
		return newCall(native, gate, out, in), nil
	}
}

func copilotAgent(client, native string, in map[string]any) (*ToolCall, error) {
	out := copyMap(in)
	if s, ok := in["prompt"].(string); ok {
		out["prompt"] = s
	}
	for _, k := range []string{"agent_type", "subagent_type", "name"} {
		if s, ok := in[k].(string); ok && s != "" {
			out["subagent_type"] = s
			break
		}
	}
	return newCall(native, ToolAgent, out, in), nil
}

func copilotSearch(gate string) func(client, native string, in map[string]any) (*ToolCall, error) {
	return func(client, native string, in map[string]any) (*ToolCall, error) {
		if err := requireString(client, native, in, "pattern"); err != nil {
			return nil, err
		}
		out := copyMap(in)
		if p, ok := in["path"].(string); !ok || p == "" {
			delete(out, "path")
		}
		return newCall(native, gate, out, in), nil
	}
}

func copilotFetch(client, native string, in map[string]any) (*ToolCall, error) {
	if err := requireString(client, native, in, "url"); err != nil {
		return nil, err
	}
	return newCall(native, ToolWebFetch, copyMap(in), in), nil
}

func copilotPatch(client, native string, in map[string]any) (*ToolCall, error) {
	patch, argv, err := commandOf(client, native, in, "input", "patch", "command")
	if err != nil {
		return nil, err
	}
	if len(argv) > 0 {
		patch = argv[len(argv)-1]
	}
	return translatePatch(client, native, patch, in)
}

func (a copilotAdapter) Render(ev *Event, v Verdict) Output {
	if ev == nil || ev.Native == "" {
		// Non-zero: a preToolUse hook that exits non-zero blocks the
		// call, so exit 1 refuses there already. Not exit 2: Copilot CLI
		// sends subagentStart in camelCase with no event name whatever the
		// configuration's case, and a subagent must not be blocked for it.
		return nonBlockingOutput(v, "unreadable hook input")
	}
	if ev.Client == "vscode" {
		return vscodeAdapter{}.Render(ev, v)
	}
	if _, known := specOf(copilotEvents, ev.Native); !known && !copilotObserved[ev.Native] {
		return unknownEventOutput(v)
	}
	warn := systemMessage(warningsOf(v))
	out := func(o obj) Output {
		r := Output{Stdout: jsonOut(o)}
		if warn != "" {
			r.Stderr = textOut(warn)
		}
		return r
	}
	switch ev.Native {
	case "PreToolUse":
		switch v.Kind {
		case Allow:
			return out(obj{{"permissionDecision", "allow"}})
		case Deny, Fail:
			return out(obj{{"permissionDecision", "deny"}, {"permissionDecisionReason", reasonOf(v, "denied by leasedeck")}})
		case Block:
			return out(obj{{"permissionDecision", "deny"}, {"permissionDecisionReason", reasonOf(v, "blocked by leasedeck")}})
		case Ask:
			return out(obj{{"permissionDecision", "ask"}, {"permissionDecisionReason", reasonOf(v, "leasedeck asks you to confirm this call")}})
		}
		return out(obj{})
	case "PostToolUse", "PostToolUseFailure":
		o := obj{}
		if v.Kind == Block || v.Kind == Deny {
			o = append(o, kv{"additionalContext", reasonOf(v, "leasedeck revoked this session's lease")})
		} else if c := contextOf(v); c != "" {
			o = append(o, kv{"additionalContext", c})
		}
		return out(o)
	case "SessionStart", "UserPromptSubmit":
		if v.Kind == Deny || v.Kind == Block {
			// Copilot cannot refuse a session or a prompt from a hook; the
			// calls that follow are refused.
			warn = systemMessage(strings.TrimSpace(fmt.Sprintf("leasedeck refused a lease for this session: %s. Its tool calls will be refused. %s",
				reasonOf(v, "refused"), warn)))
		}
	}
	return out(obj{})
}
