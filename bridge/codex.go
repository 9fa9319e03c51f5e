package bridge

import (
	"strconv"
	"strings"
	"time"

	"github.com/leasedeck/leasedeck/registry/resources"
	"mvdan.cc/sh/v3/syntax"
)

// Codex CLI hooks (clients.md §2.2 and "Testing against the real Codex CLI";
// pinned test client 0.169.0). The payload is Claude Code's shape; the
// output parser is strict: an undocumented key, "ask", an allow without
// updatedInput or a deny without a reason marks the hook failed and the
// tool RUNS. So only formats observed to be honoured are written:
//
//	PreToolUse         allow  exit 0, no output ({"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":C}} when there is context)
//	                   deny   exit 0 {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":R}} (R never empty)
//	                   block  exit 2, R on stderr (honoured; never with an empty stderr)
//	                   ask    exit 0, no output (Codex's own approval flow decides)
//	PermissionRequest  allow  exit 0 {"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}
//	                   deny   exit 0 … "decision":{"behavior":"deny","message":R} (also for block:
//	                          `interrupt` is reserved and fails closed, so it is not written)
//	PostToolUse        block  exit 0 {"decision":"block","reason":R} (replaces the output the model sees)
//	UserPromptSubmit   deny   exit 0 {"decision":"block","reason":R}; allow with context: additionalContext
//	SessionStart       allow  exit 0 {"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":C}}
//	Stop, SubagentStop never a decision (a Stop block starts another model turn)
//
// Warnings go in systemMessage on the events documented to take it, and to
// stderr (which Codex ignores at exit 0) elsewhere.
type codexAdapter struct{}

func (codexAdapter) Name() string { return "codex" }

var codexEvents = []EventSpec{
	{Native: "SessionStart", Op: OpBegin},
	{Native: "UserPromptSubmit", Op: OpBegin},
	{Native: "PreToolUse", Op: OpPreTool, Gate: true, Tools: true},
	{Native: "PermissionRequest", Op: OpPreTool, Gate: true, Tools: true},
	{Native: "PostToolUse", Op: OpPostTool, Tools: true},
	{Native: "SubagentStart", Op: OpBegin},
	{Native: "SubagentStop", Op: OpFinalize},
	{Native: "Stop", Op: OpFinalize},
	{Native: "Interrupt", Op: OpAbort},
	{Native: "SessionEnd", Op: OpFinalize},
}

var codexObserved = map[string]bool{"PreCompact": true, "PostCompact": true}

// codexSystemMessage lists the events whose output may carry
// systemMessage (clients.md §2.2: common output on SessionStart,
// PreCompact, PostCompact, UserPromptSubmit, SubagentStop, Stop; Interrupt
// takes only systemMessage).
var codexSystemMessage = map[string]bool{
	"SessionStart": true, "PreCompact": true, "PostCompact": true, "UserPromptSubmit": true,
	"SubagentStop": true, "Stop": true, "Interrupt": true,
}

func (codexAdapter) Events() []EventSpec { return codexEvents }

// Timeout: 600 s by default; SessionEnd and Interrupt default to 1 s and are
// clamped to 3 s.
func (codexAdapter) Timeout(native string) Timeout {
	switch native {
	case "SessionEnd", "Interrupt":
		return Timeout{Default: time.Second, Max: 3 * time.Second}
	}
	return Timeout{Default: 600 * time.Second}
}

func (a codexAdapter) Parse(stdin []byte) (*Event, error) {
	p, err := decodePayload(a.Name(), stdin)
	if err != nil {
		return sniffEvent(a.Name(), codexEvents, stdin), err
	}
	return parseClaudeLike(p, a.Name(), codexEvents, codexObserved)
}

// translateCodex maps Codex's tools: exec_command arrives as Bash with
// tool_input.command; apply_patch keeps its name with the patch text in
// tool_input.command; spawn_agent is the subagent tool.
func translateCodex(client, native string, in map[string]any) (*ToolCall, error) {
	switch native {
	case "Bash", "exec_command", "shell", "local_shell", "unified_exec", "container.exec":
		cmd, argv, err := commandOf(client, native, in, "command", "cmd")
		if err != nil {
			return nil, err
		}
		if patch, ok := shellPatch(cmd, argv); ok {
			return translatePatch(client, native, patch, in)
		}
		out := map[string]any{"command": cmd}
		if d, ok := in["description"].(string); ok && d != "" {
			out["description"] = d
		}
		tc := newCall(native, ToolBash, out, in)
		// A shell line that feeds a patch to apply_patch further in
		// ("cd sub && apply_patch <<'EOF' …") writes the patch's files:
		// name them, relative to wherever the line cd's.
		if strings.Contains(cmd, "apply_patch") && strings.Contains(cmd, "*** Begin Patch") {
			if ops, err := resources.ParseApplyPatch(cmd); err == nil {
				tc.Resources.Writes = resources.PatchWrites(ops)
			}
		}
		return tc, nil
	case "apply_patch":
		patch, argv, err := commandOf(client, native, in, "command", "input", "patch")
		if err != nil {
			return nil, err
		}
		if len(argv) > 0 {
			// ["apply_patch", "<patch>"]: the patch is the last argument.
			patch = argv[len(argv)-1]
		}
		return translatePatch(client, native, patch, in)
	case "spawn_agent":
		out := copyMap(in)
		for _, k := range []string{"message", "prompt", "task"} {
			if s, ok := in[k].(string); ok && s != "" {
				out["prompt"] = s
				break
			}
		}
		for _, k := range []string{"agent_type", "agent", "role"} {
			if s, ok := in[k].(string); ok && s != "" {
				out["subagent_type"] = s
				break
			}
		}
		return newCall(native, ToolAgent, out, in), nil
	case "web_search":
		return newCall(native, ToolWebSearch, copyMap(in), in), nil
	}
	// MCP tools keep mcp__server__tool; anything else (update_plan,
	// "multi_agent_v1wait_agent") is opaque and checked by name.
	return newCall(native, native, copyMap(in), in), nil
}

var exitCodeRe = lazyRegexp(`(?m)^Exit code: (-?\d+)`)

// codexStatus reads a status from Codex's string tool_response where it
// has one: apply_patch's "Exit code: N". A shell's output carries no exit
// code, so its status is unknown (empty), not "success".
func codexStatus(native string, resp any) string {
	s, ok := resp.(string)
	if !ok {
		return ""
	}
	if m := exitCodeRe().FindStringSubmatch(s); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil {
			if n == 0 {
				return "success"
			}
			return "error"
		}
	}
	return ""
}

func (a codexAdapter) Render(ev *Event, v Verdict) Output {
	if ev == nil || ev.Native == "" {
		return unreadableOutput(v)
	}
	if _, known := specOf(codexEvents, ev.Native); !known && !codexObserved[ev.Native] {
		return unknownEventOutput(v)
	}
	warn := systemMessage(warningsOf(v))
	hso := func(fields ...kv) obj {
		return append(obj{{"hookEventName", ev.Native}}, fields...)
	}
	out := func(o obj) Output {
		var res Output
		if codexSystemMessage[ev.Native] {
			o = o.with("systemMessage", warn)
		} else if warn != "" {
			res.Stderr = textOut(warn)
		}
		if len(o) > 0 {
			res.Stdout = jsonOut(o)
		}
		return res
	}
	switch ev.Native {
	case "PreToolUse":
		switch v.Kind {
		case Deny, Fail:
			return out(obj{{"hookSpecificOutput", hso(kv{"permissionDecision", "deny"},
				kv{"permissionDecisionReason", reasonOf(v, "denied by leasedeck")})}})
		case Block:
			return Output{Stderr: textOut(reasonOf(v, "blocked by leasedeck")), ExitCode: 2}
		case Allow:
			if c := contextOf(v); c != "" {
				return out(obj{{"hookSpecificOutput", hso(kv{"additionalContext", c})}})
			}
		}
		return out(nil)
	case "PermissionRequest":
		switch v.Kind {
		case Allow:
			return out(obj{{"hookSpecificOutput", hso(kv{"decision", obj{{"behavior", "allow"}}})}})
		case Deny, Fail, Block:
			return out(obj{{"hookSpecificOutput", hso(kv{"decision", obj{{"behavior", "deny"},
				{"message", reasonOf(v, "denied by leasedeck")}}})}})
		}
		return out(nil)
	case "PostToolUse":
		o := obj{}
		if v.Kind == Block || v.Kind == Deny {
			o = o.with("decision", "block").with("reason", reasonOf(v, "leasedeck revoked this session's lease"))
		}
		if c := contextOf(v); c != "" {
			o = append(o, kv{"hookSpecificOutput", hso(kv{"additionalContext", c})})
		}
		return out(o)
	case "UserPromptSubmit":
		switch v.Kind {
		case Deny, Block:
			return out(obj{{"decision", "block"}, {"reason", reasonOf(v, "refused by leasedeck")}})
		case Allow:
			if c := contextOf(v); c != "" {
				return out(obj{{"hookSpecificOutput", hso(kv{"additionalContext", c})}})
			}
		}
		return out(nil)
	case "SessionStart":
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

// shellPatch recognises a shell command that is exactly one apply_patch
// invocation and returns the patch text: argv ["apply_patch", patch], the
// line `apply_patch <<'EOF'` followed by the patch and its terminator, or
// `apply_patch 'patch'`. Codex applies these itself instead of running them.
// Anything more — a second command, an assignment, another redirection, a
// heredoc whose body the shell would expand, a carriage return the parser
// and the shell may read differently — is not a patch: the line is then
// gated as the shell line it is (with the patch's writes named as well).
func shellPatch(cmd string, argv []string) (string, bool) {
	if len(argv) == 2 && isApplyPatch(argv[0]) {
		return argv[1], true
	}
	if !strings.Contains(cmd, "*** Begin Patch") || strings.ContainsRune(cmd, '\r') {
		return "", false
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
	if err != nil || len(f.Stmts) != 1 {
		return "", false
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || st.Negated || st.Background || st.Coprocess || len(call.Assigns) > 0 || len(call.Args) == 0 {
		return "", false
	}
	if name, ok := plainWord(call.Args[0], false); !ok || !isApplyPatch(name) {
		return "", false
	}
	switch {
	case len(call.Args) == 1 && len(st.Redirs) == 1:
		r := st.Redirs[0]
		if r.N != nil || (r.Op != syntax.Hdoc && r.Op != syntax.DashHdoc) || r.Hdoc == nil {
			return "", false
		}
		delim, ok := plainWord(r.Word, true)
		if !ok || delim == "" {
			return "", false
		}
		quoted := wordQuoted(r.Word)
		body, ok := heredocBody(r.Hdoc, quoted)
		return body, ok && strings.Contains(body, "*** Begin Patch")
	case len(call.Args) == 2 && len(st.Redirs) == 0:
		patch, ok := plainWord(call.Args[1], true)
		return patch, ok && strings.Contains(patch, "*** Begin Patch")
	}
	return "", false
}

func isApplyPatch(name string) bool { return name == "apply_patch" || name == "applypatch" }

// plainWord is the value of a word the shell does not expand: literals
// without backslashes, and (when quotes is set) single-quoted text.
func plainWord(w *syntax.Word, quotes bool) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(x.Value, "\\*?[{~$`") {
				return "", false
			}
			b.WriteString(x.Value)
		case *syntax.SglQuoted:
			if !quotes || x.Dollar {
				return "", false
			}
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			// "EOF" as a heredoc delimiter: literal parts only.
			if !quotes || x.Dollar {
				return "", false
			}
			for _, q := range x.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok || strings.ContainsAny(l.Value, "\\$`") {
					return "", false
				}
				b.WriteString(l.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// wordQuoted reports a heredoc delimiter with quotes in it, which makes the
// shell take the body literally.
func wordQuoted(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			return true
		}
	}
	return false
}

// heredocBody is a heredoc's text when the shell would not change it: any
// body after a quoted delimiter, and an unquoted one's only when it holds
// nothing the shell expands or unescapes.
func heredocBody(w *syntax.Word, quoted bool) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		l, ok := p.(*syntax.Lit)
		if !ok || (!quoted && strings.ContainsAny(l.Value, "\\$`")) {
			return "", false
		}
		b.WriteString(l.Value)
	}
	return b.String(), true
}
