package bridge

import (
	"strings"
	"time"
)

// Qwen Code hooks (pinned test client 0.24.4). The hook system is Claude
// Code's (same payload members, same hookSpecificOutput, exit 2 blocks),
// with Gemini CLI's tool names. It FAILS OPEN on everything but an explicit
// refusal: exit 1 or 3, a crash, a missing binary, a timeout, a non-JSON
// stdout all let the call run. So every refusal is said twice, in the two
// forms Qwen Code honours, and never by a code it ignores:
//
//	PreToolUse         allow  exit 0 {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}
//	                   deny   exit 2, R on stderr (the model gets R verbatim; stdout is ignored at exit 2) and
//	                          the Claude deny JSON on stdout, so a refusal never depends on one channel
//	                   ask    exit 0 … "permissionDecision":"ask" (a headless run turns it into a deny)
//	                   block  as deny (the session's lease is closed: every later call is refused too)
//	PermissionRequest  allow/deny  exit 0 {"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":…}}}
//	UserPromptSubmit   deny   exit 0 {"decision":"block","reason":R}
//	PostToolUse        block  exit 0 {"decision":"block","reason":R}
//	SessionStart, SubagentStart: context only; Stop, SubagentStop, StopFailure: never a decision.
//
// A payload too broken to name its event is answered with exit 2 too: the
// hook is installed on the gate, and exit 1 there would let the call run.
//
// UserPromptSubmit fires before every model call, tool-result sends
// included (with an empty prompt); only the one that carries
// submitted_prompt (the user's own text) begins a turn.
type qwenAdapter struct{}

func (qwenAdapter) Name() string { return "qwen-code" }

var qwenEvents = []EventSpec{
	{Native: "SessionStart", Op: OpBegin},
	{Native: "UserPromptSubmit", Op: OpBegin},
	{Native: "PreToolUse", Op: OpPreTool, Gate: true, Tools: true},
	{Native: "PermissionRequest", Op: OpPreTool, Gate: true, Tools: true},
	{Native: "PostToolUse", Op: OpPostTool, Tools: true},
	{Native: "PostToolUseFailure", Op: OpPostTool, Tools: true},
	{Native: "SubagentStart", Op: OpBegin},
	{Native: "SubagentStop", Op: OpFinalize},
	{Native: "Stop", Op: OpFinalize},
	{Native: "StopFailure", Op: OpAbort},
	{Native: "SessionEnd", Op: OpFinalize},
}

var qwenObserved = map[string]bool{
	"PostToolBatch": true, "UserPromptExpansion": true, "SessionDelete": true, "MessageDisplay": true,
	"PreCompact": true, "PostCompact": true, "Notification": true, "PermissionDenied": true,
	"TodoCreated": true, "TodoCompleted": true, "InstructionsLoaded": true,
}

func (qwenAdapter) Events() []EventSpec { return qwenEvents }

// qwenMaxTimeout: Qwen Code reads a hook timeout of 1000 or more as
// milliseconds (for older settings files), so a longer wait cannot be
// written in seconds.
const qwenMaxTimeout = 999 * time.Second

// Timeout: 60 s for command hooks by default; the timeout fails open.
func (qwenAdapter) Timeout(string) Timeout {
	return Timeout{Default: 60 * time.Second, Max: qwenMaxTimeout}
}

func (a qwenAdapter) Parse(stdin []byte) (*Event, error) {
	p, err := decodePayload(a.Name(), stdin)
	if err != nil {
		return sniffEvent(a.Name(), qwenEvents, stdin), err
	}
	ev, err := parseClaudeLike(p, a.Name(), qwenEvents, qwenObserved)
	if err != nil || ev == nil {
		return ev, err
	}
	if ev.Native == "UserPromptSubmit" {
		sub, err := p.str("submitted_prompt")
		if err != nil {
			return ev, err
		}
		if _, present := p.m["submitted_prompt"]; !present || strings.TrimSpace(sub) == "" {
			// A tool-result (or hook) send: the turn goes on.
			ev.Op, ev.Prompt = OpNone, ""
		}
	}
	if ev.Native == "PostToolUse" && ev.Tool != nil {
		ev.Status = geminiStatus(p.m["tool_response"])
		ev.Result = digestResult(ev.Tool.Name, p.m["tool_response"], ev.Status)
	}
	return ev, nil
}

// translateQwen maps Qwen Code's tools onto the gate's vocabulary: the
// Gemini CLI built-ins it inherited, plus its own edit, monitor (which
// starts a shell command, reached through tool_call), agent and
// notebook_edit. Anything else (cron_create, enter_worktree, skill, MCP
// tools) stays opaque: a lease must name it to allow it.
func translateQwen(client, native string, in map[string]any) (*ToolCall, error) {
	t := geminiInput{client: client, native: native, in: in}
	switch native {
	case "edit":
		return geminiReplace(t)
	case "monitor":
		return geminiShell(t)
	case "agent", "task":
		return geminiAgent(t)
	case "notebook_edit":
		p, err := t.need("notebook_path", "file_path")
		if err != nil {
			return nil, err
		}
		out := copyMap(in)
		out["file_path"] = p
		return t.call(ToolNotebookEdit, out), nil
	}
	if translate := geminiTools[native]; translate != nil {
		return translate(t)
	}
	return opaqueCall(native, in), nil
}

func (a qwenAdapter) Render(ev *Event, v Verdict) Output {
	if ev == nil || ev.Native == "" {
		return unreadableOutput(v)
	}
	if _, known := specOf(qwenEvents, ev.Native); !known && !qwenObserved[ev.Native] {
		return unknownEventOutput(v)
	}
	if ev.Native == "PreToolUse" && (v.Kind == Deny || v.Kind == Fail || v.Kind == Block) {
		r := reasonOf(v, "denied by leasedeck")
		out := claudeAdapter{}.Render(ev, Verdict{Kind: Deny, Reason: r, Warnings: v.Warnings})
		out.Stderr, out.ExitCode = textOut(r), 2
		return out
	}
	if _, ok := specOf(claudeEvents, ev.Native); !ok && !claudeObserved[ev.Native] {
		// Qwen-only events (SessionDelete, TodoCreated …) decide nothing.
		if w := systemMessage(warningsOf(v)); w != "" {
			return Output{Stdout: jsonOut(obj{{"systemMessage", w}})}
		}
		return Output{}
	}
	// Every other answer is Claude Code's, which Qwen Code reads as is.
	return claudeAdapter{}.Render(ev, v)
}
