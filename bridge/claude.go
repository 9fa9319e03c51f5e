package bridge

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/leasedeck/leasedeck/termtext"
)

// Claude Code hooks (clients.md §1; pinned test client 2.1.328).
//
// Decision formats written, by event and verdict:
//
//	PreToolUse         allow  exit 0 {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"[,…Reason][,"additionalContext"]}}
//	                   deny   exit 0 … "permissionDecision":"deny","permissionDecisionReason":R (R is shown to Claude)
//	                   ask    exit 0 … "permissionDecision":"ask","permissionDecisionReason":R
//	                   block  exit 2, R on stderr (the documented blocking exit; JSON is ignored at exit 2)
//	PermissionRequest  allow  exit 0 {"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}
//	                   deny   exit 0 … "decision":{"behavior":"deny","message":R}
//	                   block  exit 0 … "decision":{"behavior":"deny","message":R,"interrupt":true}
//	                   ask    exit 0, no output (the client shows its own prompt; exit 2 is not honoured here)
//	UserPromptSubmit   allow  exit 0 {"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":C}}
//	                   deny   exit 0 {"decision":"block","reason":R} (the prompt is erased, R shown)
//	SessionStart,      allow  exit 0 {"hookSpecificOutput":{"hookEventName":…,"additionalContext":C}}
//	SubagentStart      deny   cannot block: the refusal goes into additionalContext and systemMessage
//	PostToolUse(-Fail) block  exit 0 {"decision":"block","reason":R} (R is put next to the tool result)
//	Stop, SubagentStop, SessionEnd, StopFailure, PermissionDenied: never a decision (a Stop "block"
//	                   would keep Claude working); warnings only, as systemMessage.
//
// Exit 1 is never used to mean deny: Claude Code treats it as a
// non-blocking error and runs the tool. Warnings go in `systemMessage`,
// which every event accepts.
type claudeAdapter struct{}

func (claudeAdapter) Name() string { return "claude-code" }

var claudeEvents = []EventSpec{
	{Native: "SessionStart", Op: OpBegin},
	{Native: "UserPromptSubmit", Op: OpBegin},
	{Native: "PreToolUse", Op: OpPreTool, Gate: true, Tools: true},
	{Native: "PermissionRequest", Op: OpPreTool, Gate: true, Tools: true},
	{Native: "PostToolUse", Op: OpPostTool, Tools: true},
	{Native: "PostToolUseFailure", Op: OpPostTool, Tools: true},
	{Native: "PermissionDenied", Op: OpPostTool, Tools: true},
	{Native: "SubagentStart", Op: OpBegin},
	{Native: "SubagentStop", Op: OpFinalize},
	{Native: "Stop", Op: OpFinalize},
	{Native: "StopFailure", Op: OpAbort},
	{Native: "SessionEnd", Op: OpFinalize},
}

// claudeObserved are events Claude Code sends that map to no op: parsed,
// answered with no opinion.
var claudeObserved = map[string]bool{
	"Setup": true, "UserPromptExpansion": true, "PostToolBatch": true, "Notification": true,
	"MessageDisplay": true, "TaskCreated": true, "TaskCompleted": true, "TeammateIdle": true,
	"InstructionsLoaded": true, "ConfigChange": true, "CwdChanged": true, "DirectoryAdded": true,
	"FileChanged": true, "WorktreeCreate": true, "WorktreeRemove": true, "PreCompact": true,
	"PostCompact": true, "Elicitation": true, "ElicitationResult": true, "PreModelSwitch": true,
	"PostModelSwitch": true,
}

func (claudeAdapter) Events() []EventSpec { return claudeEvents }

// ClientPrompt: Claude Code asks its user when PreToolUse answers
// permissionDecision "ask"; the PermissionRequest that follows is left
// undecided (no output), so its own prompt decides (in -p mode, where it
// cannot prompt, that is a deny).
func (claudeAdapter) ClientPrompt(native string) bool {
	return native == "PreToolUse" || native == "PermissionRequest"
}

func specOf(specs []EventSpec, native string) (EventSpec, bool) {
	for _, s := range specs {
		if s.Native == native {
			return s, true
		}
	}
	return EventSpec{}, false
}

// eventHead reads the event's name (from the first of nameKeys present)
// and looks it up in specs. known is false for an event the client sends
// that maps to no op (observed: answered with no opinion) and for one
// nobody knows, which is ErrUnknownEvent; ev then names the event only.
//
// A payload that names a tool call but no event leasedeck knows (no name, a
// name of the wrong type, a newer client's event) is a gate that fails
// closed: ev is then a gate event with that name (which Render answers with
// the blocking exit every client honours), never a non-blocking error that
// would let the call run.
func eventHead(p *payload, client string, specs []EventSpec, observed map[string]bool, nameKeys ...string) (ev *Event, spec EventSpec, known bool, err error) {
	name, err := p.need(nameKeys...)
	if err != nil {
		if namesToolCall(p.m) {
			return unknownToolEvent(client, ""), EventSpec{}, false, err
		}
		return nil, EventSpec{}, false, err
	}
	ev = &Event{Client: client, Native: name}
	spec, known = specOf(specs, name)
	if !known && !observed[name] {
		if namesToolCall(p.m) {
			ev = unknownToolEvent(client, name)
		}
		return ev, spec, false, fmt.Errorf("%w: %s sent %q", ErrUnknownEvent, client, name)
	}
	if known {
		ev.Op, ev.Gate = spec.Op, spec.Gate
	}
	return ev, spec, known, nil
}

// Timeout: 600 s for command hooks since v2.1.3; UserPromptSubmit's default
// is 30 s; SessionEnd hooks share 1.5 s, raised to the largest per-hook
// timeout up to 60 s.
func (claudeAdapter) Timeout(native string) Timeout {
	switch native {
	case "UserPromptSubmit":
		return Timeout{Default: 30 * time.Second}
	case "SessionEnd":
		return Timeout{Default: 1500 * time.Millisecond, Max: 60 * time.Second}
	}
	return Timeout{Default: 600 * time.Second}
}

// sniffEvent recovers the event name from a payload too broken to parse, so
// that a broken PreToolUse still fails closed. A broken payload may name
// several events (the real one, and one inside a tool's input): if any of
// them is a gate, or if none is known and the payload names a tool call,
// it is read as a gate, so that it fails closed.
func sniffEvent(client string, specs []EventSpec, stdin []byte) *Event {
	var ev *Event
	for _, name := range sniffNames(stdin, eventNameKeys) {
		s, ok := specOf(specs, name)
		if ok && s.Gate {
			return &Event{Client: client, Native: name, Op: s.Op, Gate: true}
		}
		if ev == nil || (ok && ev.Op == OpNone) {
			ev = &Event{Client: client, Native: name, Op: s.Op}
		}
	}
	if (ev == nil || ev.Op == OpNone) && len(sniffNames(stdin, toolMemberKeys)) > 0 {
		return unknownToolEvent(client, "")
	}
	return ev
}

// The members that name a payload's event, and those that name a tool
// call, each with its quotes (inside a JSON string they would be escaped).
var (
	eventNameKeys  = []string{`"hook_event_name"`, `"hookEventName"`}
	toolMemberKeys = []string{`"tool_name"`, `"toolName"`, `"tool_input"`, `"toolArgs"`, `"toolInput"`}
)

// sniffNames finds every `KEY: "value"` of keys in raw bytes and returns
// the values made of letters, digits, '_' and '.' (a key followed by
// another value counts, with an empty name). It is a scan with
// bytes.Index, linear in the input however many keys it holds: it reads
// payloads of up to 64 MiB.
func sniffNames(stdin []byte, keys []string) []string {
	var names []string
	for _, key := range keys {
		for off := 0; ; {
			i := bytes.Index(stdin[off:], []byte(key))
			if i < 0 {
				break
			}
			off += i + len(key)
			rest := bytes.TrimLeft(stdin[off:], " \t\r\n")
			if len(rest) == 0 || rest[0] != ':' {
				continue
			}
			rest = bytes.TrimLeft(rest[1:], " \t\r\n")
			if len(rest) == 0 || rest[0] != '"' {
				names = append(names, "")
				continue
			}
			n := 1
			for n < len(rest) && n <= 64 && (isNameByte(rest[n]) || rest[n] == '.') {
				n++
			}
			if n < len(rest) && rest[n] == '"' {
				names = append(names, string(rest[1:n]))
			} else {
				names = append(names, "")
			}
		}
	}
	return names
}

// namesToolCall reports whether a payload names a tool call.
func namesToolCall(m map[string]any) bool {
	for _, k := range []string{"tool_name", "toolName", "tool_input", "toolArgs", "toolInput"} {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// unknownToolEvent is a tool call whose event leasedeck cannot tell: it is
// answered as a gate that refuses.
func unknownToolEvent(client, native string) *Event {
	return &Event{Client: client, Native: native, Op: OpPreTool, Gate: true}
}

func (a claudeAdapter) Parse(stdin []byte) (*Event, error) {
	p, err := decodePayload(a.Name(), stdin)
	if err != nil {
		return sniffEvent(a.Name(), claudeEvents, stdin), err
	}
	// VS Code reads Claude Code's settings files and runs their hooks with
	// its own payloads (camelCase hookEventName and sessionId).
	if _, ok := p.m["hook_event_name"]; !ok {
		if _, ok := p.m["hookEventName"]; ok {
			p.client = "vscode"
			return parseVSCode(p)
		}
	}
	return parseClaudeLike(p, a.Name(), claudeEvents, claudeObserved)
}

// parseClaudeLike reads the Claude Code payload shape, which Codex shares
// almost member for member (clients.md §2.2: "same vocabulary").
func parseClaudeLike(p *payload, client string, specs []EventSpec, observed map[string]bool) (*Event, error) {
	ev, _, known, err := eventHead(p, client, specs, observed, "hook_event_name")
	if !known {
		return ev, err
	}
	ev.PermissionPhase = ev.Native == "PermissionRequest"
	if ev.Session, err = p.need("session_id"); err != nil {
		return ev, err
	}
	for _, f := range []struct {
		dst  *string
		keys []string
	}{
		{&ev.Cwd, []string{"cwd"}},
		{&ev.Turn, []string{"turn_id", "prompt_id"}},
		{&ev.Model, []string{"model"}},
		{&ev.Timestamp, []string{"timestamp"}},
	} {
		if *f.dst, err = p.str(f.keys...); err != nil {
			return ev, err
		}
	}
	agentID, err := p.str("agent_id")
	if err != nil {
		return ev, err
	}
	agentType, err := p.str("agent_type")
	if err != nil {
		return ev, err
	}
	if agentID != "" {
		ev.Subagent = &Subagent{ID: agentID, Type: agentType}
	}
	ev.StopHookActive = p.boolean("stop_hook_active")

	switch ev.Native {
	case "SessionStart":
		if ev.Source, err = p.str("source"); err != nil {
			return ev, err
		}
	case "UserPromptSubmit":
		if _, ok := p.m["prompt"]; !ok {
			return ev, &InputError{Client: client, Pointer: "/prompt", Msg: "missing (required)"}
		}
		if ev.Prompt, err = p.str("prompt"); err != nil {
			return ev, err
		}
	case "PreToolUse", "PermissionRequest", "PostToolUse", "PostToolUseFailure", "PermissionDenied":
		if err := parseClaudeTool(p, ev, client); err != nil {
			return ev, err
		}
	case "SubagentStart", "SubagentStop":
		if agentID == "" {
			return ev, &InputError{Client: client, Pointer: "/agent_id", Msg: "missing (required)"}
		}
		ev.Child = true
		if ev.Native == "SubagentStop" {
			ev.StopReason = "completed"
			if client == "claude-code" {
				// The subagent's own transcript holds only its run; the
				// payload's transcript_path is the parent's.
				claudeTurnUsage(p, ev, "agent_transcript_path", "")
			}
		}
	case "Stop":
		ev.StopReason = "completed"
		if client == "claude-code" {
			claudeTurnUsage(p, ev, "transcript_path", ev.Turn)
		}
	case "StopFailure":
		e, err := p.str("error")
		if err != nil {
			return ev, err
		}
		ev.AbortReason = "stop_failure: " + nonEmpty(e, "unknown")
		ev.StopReason = "error"
	case "Interrupt":
		ev.AbortReason = "user_interrupt"
		ev.StopReason = "user_interrupt"
	case "SessionEnd":
		if ev.Source, err = p.str("reason"); err != nil {
			return ev, err
		}
		ev.SessionEnd = true
		ev.StopReason = sessionEndStop(ev.Source)
	}
	return ev, nil
}

// sessionEndStop maps a SessionEnd reason to a finalize stop_reason. Only
// reasons that say the user ended the session normally count as completed;
// "other" (Codex uses it for SIGINT too) says nothing.
func sessionEndStop(reason string) string {
	switch reason {
	case "clear", "resume", "logout", "prompt_input_exit", "exit":
		return "completed"
	}
	return ""
}

// transcriptNotes holds, per parsed event, why its transcript gave no
// usage; Render shows it as a warning (and forgets it).
var transcriptNotes sync.Map // *Event → string

// claudeTurnUsage sets ev.Telemetry to the turn's provider-reported usage
// read from the transcript the payload names under key. Hook payloads
// carry no usage; without it the turn cannot be certified. A transcript
// that is missing or unreadable only costs the telemetry: it never fails
// the event.
func claudeTurnUsage(p *payload, ev *Event, key, promptID string) {
	path, _ := p.str(key)
	if path == "" {
		return
	}
	t, err := TranscriptUsage(path, promptID)
	switch {
	case err != nil:
		transcriptNotes.Store(ev, "no token usage for this turn (transcript unreadable: "+termtext.Clip(err.Error(), 200)+")")
	case t == nil:
		transcriptNotes.Store(ev, "no token usage for this turn in its transcript")
	default:
		if t.Model == "" {
			t.Model = ev.Model
		}
		ev.Telemetry = t
	}
}

func parseClaudeTool(p *payload, ev *Event, client string) error {
	native, err := p.need("tool_name")
	if err != nil {
		return err
	}
	in, err := p.toolInput("tool_input")
	if err != nil {
		return err
	}
	useID, err := p.str("tool_use_id")
	if err != nil {
		return err
	}
	translate := translateClaude
	switch client {
	case "codex":
		translate = translateCodex
	case "qwen-code":
		translate = translateQwen
	case "copilot":
		translate = translateCopilot
	}
	tc, err := translate(client, native, in)
	if err == nil && client == ClientCodex {
		err = codexWorkdir(tc, in, ev.Cwd)
	}
	tc, err = vetted(client, tc, err)
	if err != nil {
		if ev.Gate {
			return err
		}
		// Evidence of a call that already happened is still worth keeping
		// when its input is odd: record it as an opaque tool.
		tc = newCall(native, native, copyMap(in), in)
	}
	tc.UseID = useID
	setShellStartDir(tc, client, ev.Cwd, in)
	ev.Tool = tc
	ev.DurationMS = p.int64("duration_ms")
	switch ev.Native {
	case "PostToolUse":
		ev.Status = "success"
		resp := p.m["tool_response"]
		if client == "codex" {
			ev.Status = codexStatus(native, resp)
		}
		ev.Result = digestResult(tc.Name, resp, ev.Status)
	case "PostToolUseFailure":
		ev.Status = "error"
		ev.Interrupted = p.boolean("is_interrupt")
		e, err := p.str("error")
		if err != nil {
			return err
		}
		ev.Result = digestResult(tc.Name, map[string]any{"error": e}, ev.Status)
	case "PermissionDenied":
		ev.Status = "denied"
		r, err := p.str("reason")
		if err != nil {
			return err
		}
		ev.Result = digestResult(tc.Name, map[string]any{"error": r}, ev.Status)
	}
	return nil
}

// systemMessage prefixes a user-facing warning so the user can tell where
// it came from.
func systemMessage(s string) string {
	if s == "" || strings.HasPrefix(s, "leasedeck") {
		return s
	}
	return "leasedeck: " + s
}

func (a claudeAdapter) Render(ev *Event, v Verdict) Output {
	if ev == nil || ev.Native == "" {
		return unreadableOutput(v)
	}
	if ev.Client == "vscode" {
		// A VS Code payload that came through Claude Code's hook file is
		// answered the way VS Code reads answers.
		return vscodeAdapter{}.Render(ev, v)
	}
	if _, known := specOf(claudeEvents, ev.Native); !known && !claudeObserved[ev.Native] {
		return unknownEventOutput(v)
	}
	warn := warningsOf(v)
	if n, ok := transcriptNotes.LoadAndDelete(ev); ok {
		warn = strings.TrimSpace(warn + "; " + n.(string))
		warn = strings.TrimPrefix(warn, "; ")
	}
	warn = systemMessage(warn)
	hso := func(fields ...kv) obj {
		return append(obj{{"hookEventName", ev.Native}}, fields...)
	}
	top := func(o obj) Output {
		o = o.with("systemMessage", warn)
		if len(o) == 0 {
			return Output{}
		}
		return Output{Stdout: jsonOut(o)}
	}
	switch ev.Native {
	case "PreToolUse":
		switch v.Kind {
		case Allow:
			return top(obj{{"hookSpecificOutput", hso(kv{"permissionDecision", "allow"}).
				with("permissionDecisionReason", strings.TrimSpace(v.Reason)).
				with("additionalContext", contextOf(v))}})
		case Deny, Fail:
			return top(obj{{"hookSpecificOutput", hso(kv{"permissionDecision", "deny"},
				kv{"permissionDecisionReason", reasonOf(v, "denied by leasedeck")})}})
		case Ask:
			return top(obj{{"hookSpecificOutput", hso(kv{"permissionDecision", "ask"},
				kv{"permissionDecisionReason", reasonOf(v, "leasedeck asks you to confirm this call")})}})
		case Block:
			return Output{Stderr: textOut(reasonOf(v, "blocked by leasedeck")), ExitCode: 2}
		}
		return top(nil)
	case "PermissionRequest":
		switch v.Kind {
		case Allow:
			return top(obj{{"hookSpecificOutput", hso(kv{"decision", obj{{"behavior", "allow"}}})}})
		case Deny, Fail:
			return top(obj{{"hookSpecificOutput", hso(kv{"decision", obj{{"behavior", "deny"},
				{"message", reasonOf(v, "denied by leasedeck")}}})}})
		case Block:
			return top(obj{{"hookSpecificOutput", hso(kv{"decision", obj{{"behavior", "deny"},
				{"message", reasonOf(v, "blocked by leasedeck")}, {"interrupt", true}}})}})
		}
		return top(nil)
	case "UserPromptSubmit":
		switch v.Kind {
		case Deny, Block:
			return top(obj{{"decision", "block"}, {"reason", reasonOf(v, "refused by leasedeck")}})
		case Allow:
			if c := contextOf(v); c != "" {
				return top(obj{{"hookSpecificOutput", hso(kv{"additionalContext", c})}})
			}
		}
		return top(nil)
	case "SessionStart", "SubagentStart":
		c := contextOf(v)
		if v.Kind == Deny || v.Kind == Block {
			// Neither event can be blocked; tell the agent and the user
			// that its tool calls will be refused.
			r := "leasedeck refused a lease for this session: " + reasonOf(v, "refused") +
				". Its tool calls will be refused."
			c = strings.TrimSpace(r + "\n" + c)
			warn = systemMessage(strings.TrimSpace(r + " " + warn))
		}
		if c != "" {
			return top(obj{{"hookSpecificOutput", hso(kv{"additionalContext", c})}})
		}
		return top(nil)
	case "PostToolUse", "PostToolUseFailure":
		o := obj{}
		if v.Kind == Block || v.Kind == Deny {
			o = o.with("decision", "block").with("reason", reasonOf(v, "leasedeck revoked this session's lease"))
		}
		if c := contextOf(v); c != "" {
			o = append(o, kv{"hookSpecificOutput", hso(kv{"additionalContext", c})})
		}
		return top(o)
	}
	return top(nil)
}

// unknownEventOutput answers an event the adapter does not know by a name
// it could read, with no tool call in it (a tool call is a gate: Render
// refuses it): its output keys are unknown too, so only a failure (when
// there is one) is reported, the non-blocking way (exit 1, message on
// stderr), which leaves the action to the client.
func unknownEventOutput(v Verdict) Output {
	if v.Kind == NoOpinion && len(v.Warnings) == 0 {
		return Output{}
	}
	return nonBlockingOutput(v, "unknown hook event")
}

// nonBlockingOutput is a failure reported the non-blocking way: exit 1,
// the message (def when v has none) on stderr.
func nonBlockingOutput(v Verdict, def string) Output {
	msg := nonEmpty(v.Reason, warningsOf(v))
	return Output{Stderr: textOut(systemMessage(nonEmpty(msg, def))), ExitCode: 1}
}

// unreadableOutput is the answer to a payload whose event cannot be told
// at all (no name, or none that can be read, and no tool call in it). Every
// event runs the same hook command, so it may be the client's pre-tool
// gate: it is refused the blocking way, exit 2 with the reason on stderr,
// which every client honours on its gate (Claude Code, Codex, Gemini CLI,
// Qwen Code, VS Code; Copilot CLI and the plugins block on any non-zero
// exit). Exit 1 would be read as a non-blocking error, and the call run.
// On another event the same exit blocks what that event can block (a
// prompt, a stop), which is the price of never letting a call through
// unseen: a client whose payloads cannot be read is not governed anyway.
func unreadableOutput(v Verdict) Output {
	return blockingRefusal(Verdict{Reason: nonEmpty(nonEmpty(v.Reason, warningsOf(v)), "unreadable hook input")})
}
