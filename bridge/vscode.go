package bridge

import (
	"strings"
	"time"
)

// VS Code agent hooks (Preview; clients.md §3.1 and the vscode-docs hooks
// page). Common input is camelCase (sessionId, hookEventName) while the
// tool members are snake_case (tool_name, tool_input, tool_use_id); tool
// inputs are camelCase (filePath). Exit 0 parses stdout as JSON, so every
// answer is a JSON object, `{"continue":true}` when there is nothing to say.
//
//	PreToolUse        allow  {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"[,…]}}
//	                  deny   … "permissionDecision":"deny","permissionDecisionReason":R
//	                  ask    … "permissionDecision":"ask","permissionDecisionReason":R
//	                  block  exit 2, R on stderr (shown to the model)
//	PostToolUse       block  {"decision":"block","reason":R}
//	UserPromptSubmit  deny   {"continue":false,"stopReason":R} (this event takes only the common output)
//	SessionStart,     allow  {"hookSpecificOutput":{"hookEventName":…,"additionalContext":C}}
//	SubagentStart
//	Stop, SubagentStop, PreCompact: never a decision.
//
// Warnings go in systemMessage, which every event takes. VS Code ignores
// matchers (it runs every hook on every tool), which suits a gate that must
// see every tool anyway.
type vscodeAdapter struct{}

func (vscodeAdapter) Name() string { return "vscode" }

var vscodeEvents = []EventSpec{
	{Native: "SessionStart", Op: OpBegin},
	{Native: "UserPromptSubmit", Op: OpBegin},
	{Native: "PreToolUse", Op: OpPreTool, Gate: true, Tools: true},
	{Native: "PostToolUse", Op: OpPostTool, Tools: true},
	{Native: "SubagentStart", Op: OpBegin},
	{Native: "SubagentStop", Op: OpFinalize},
	{Native: "Stop", Op: OpFinalize},
}

var vscodeObserved = map[string]bool{"PreCompact": true}

func (vscodeAdapter) Events() []EventSpec { return vscodeEvents }

// Timeout: 30 s by default; no maximum is documented.
func (vscodeAdapter) Timeout(string) Timeout { return Timeout{Default: 30 * time.Second} }

func (a vscodeAdapter) Parse(stdin []byte) (*Event, error) {
	p, err := decodePayload(a.Name(), stdin)
	if err != nil {
		return sniffEvent(a.Name(), vscodeEvents, stdin), err
	}
	return parseVSCode(p)
}

func parseVSCode(p *payload) (*Event, error) {
	const client = "vscode"
	p.client = client
	ev, _, known, err := eventHead(p, client, vscodeEvents, vscodeObserved, "hookEventName", "hook_event_name")
	if !known {
		return ev, err
	}
	if ev.Session, err = p.need("sessionId", "session_id"); err != nil {
		return ev, err
	}
	if ev.Cwd, err = p.str("cwd"); err != nil {
		return ev, err
	}
	if ev.Timestamp, err = p.str("timestamp"); err != nil {
		return ev, err
	}
	agentID, err := p.str("agent_id", "agentId")
	if err != nil {
		return ev, err
	}
	agentType, err := p.str("agent_type", "agentType")
	if err != nil {
		return ev, err
	}
	if agentID != "" {
		ev.Subagent = &Subagent{ID: agentID, Type: agentType}
	}
	ev.StopHookActive = p.boolean("stop_hook_active")
	switch ev.Native {
	case "SessionStart":
		ev.Source, err = p.str("source")
	case "UserPromptSubmit":
		if _, ok := p.m["prompt"]; !ok {
			return ev, &InputError{Client: client, Pointer: "/prompt", Msg: "missing (required)"}
		}
		ev.Prompt, err = p.str("prompt")
	case "PreToolUse", "PostToolUse":
		err = parseVSCodeTool(p, ev)
	case "SubagentStart", "SubagentStop":
		if agentID == "" {
			return ev, &InputError{Client: client, Pointer: "/agent_id", Msg: "missing (required)"}
		}
		ev.Child = true
		if ev.Native == "SubagentStop" {
			ev.StopReason = "completed"
		}
	case "Stop":
		ev.StopReason = "completed"
	}
	return ev, err
}

func parseVSCodeTool(p *payload, ev *Event) error {
	native, err := p.need("tool_name", "toolName")
	if err != nil {
		return err
	}
	key := "tool_input"
	if _, ok := p.m[key]; !ok {
		key = "toolInput"
	}
	in, err := p.toolInput(key)
	if err != nil {
		return err
	}
	useID, err := p.str("tool_use_id", "toolUseId")
	if err != nil {
		return err
	}
	tc, err := translateVSCode(native, in)
	tc, err = vetted(ClientVSCode, tc, err)
	if err != nil {
		if ev.Gate {
			return err
		}
		tc = newCall(native, native, copyMap(in), in)
	}
	tc.UseID = useID
	setShellStartDir(tc, "vscode", ev.Cwd, in)
	ev.Tool = tc
	if ev.Native == "PostToolUse" {
		// PostToolUse fires only after a tool completed successfully.
		ev.Status = "success"
		ev.Result = digestResult(tc.Name, p.m["tool_response"], ev.Status)
	}
	return nil
}

// claudeVocabulary: a VS Code session on the Claude harness sends Claude
// Code's own tool names.
var claudeVocabulary = map[string]bool{
	"Bash": true, "PowerShell": true, "Write": true, "Edit": true, "MultiEdit": true, "Read": true,
	"NotebookEdit": true, "Glob": true, "Grep": true, "WebFetch": true, "WebSearch": true,
	"Agent": true, "Task": true,
}

// translateVSCode maps VS Code's built-in tools (Copilot's names, camelCase
// inputs) onto the gate's vocabulary.
func translateVSCode(native string, in map[string]any) (*ToolCall, error) {
	if claudeVocabulary[native] {
		return translateClaude("vscode", native, in)
	}
	if translate := vscodeTools[native]; translate != nil {
		return translate(vscodeInput{native: native, in: in})
	}
	return opaqueCall(native, in), nil
}

func (a vscodeAdapter) Render(ev *Event, v Verdict) Output {
	if ev == nil || ev.Native == "" {
		return unreadableOutput(v)
	}
	if _, known := specOf(vscodeEvents, ev.Native); !known && !vscodeObserved[ev.Native] {
		return unknownEventOutput(v)
	}
	warn := systemMessage(warningsOf(v))
	out := func(o obj) Output {
		o = o.with("systemMessage", warn)
		if len(o) == 0 {
			o = obj{{"continue", true}}
		}
		return Output{Stdout: jsonOut(o)}
	}
	hso := func(fields ...kv) obj {
		return append(obj{{"hookEventName", ev.Native}}, fields...)
	}
	switch ev.Native {
	case "PreToolUse":
		switch v.Kind {
		case Allow:
			return out(obj{{"hookSpecificOutput", hso(kv{"permissionDecision", "allow"}).
				with("permissionDecisionReason", strings.TrimSpace(v.Reason)).
				with("additionalContext", contextOf(v))}})
		case Deny, Fail:
			return out(obj{{"hookSpecificOutput", hso(kv{"permissionDecision", "deny"},
				kv{"permissionDecisionReason", reasonOf(v, "denied by leasedeck")})}})
		case Ask:
			return out(obj{{"hookSpecificOutput", hso(kv{"permissionDecision", "ask"},
				kv{"permissionDecisionReason", reasonOf(v, "leasedeck asks you to confirm this call")})}})
		case Block:
			return Output{Stderr: textOut(reasonOf(v, "blocked by leasedeck")), ExitCode: 2}
		}
		return out(nil)
	case "PostToolUse":
		o := obj{}
		if v.Kind == Block || v.Kind == Deny {
			o = append(o, kv{"decision", "block"}, kv{"reason", reasonOf(v, "leasedeck revoked this session's lease")})
		}
		if c := contextOf(v); c != "" {
			o = append(o, kv{"hookSpecificOutput", hso(kv{"additionalContext", c})})
		}
		return out(o)
	case "UserPromptSubmit":
		if v.Kind == Deny || v.Kind == Block {
			return out(obj{{"continue", false}, {"stopReason", reasonOf(v, "refused by leasedeck")}})
		}
		return out(nil)
	case "SessionStart", "SubagentStart":
		c := contextOf(v)
		if v.Kind == Deny || v.Kind == Block {
			r := "leasedeck refused a lease for this session: " + reasonOf(v, "refused") + ". Its tool calls will be refused."
			c = strings.TrimSpace(r + "\n" + c)
			warn = systemMessage(strings.TrimSpace(r + " " + warn))
		}
		if c != "" {
			return out(obj{{"hookSpecificOutput", hso(kv{"additionalContext", c})}})
		}
		return out(nil)
	}
	return out(nil)
}
