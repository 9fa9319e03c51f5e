package bridge

import (
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/leasedeck/leasedeck/applypatch"
	"github.com/leasedeck/leasedeck/vocab"
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

// codexShellTools are Codex's tools that run a command line (or argv).
var codexShellTools = map[string]bool{"Bash": true, "exec_command": true, "shell": true, "local_shell": true, "unified_exec": true, "container.exec": true}

// translateCodex maps Codex's tools: exec_command arrives as Bash with
// tool_input.command; apply_patch keeps its name with the patch text in
// tool_input.command; spawn_agent is the subagent tool.
func translateCodex(client, native string, in map[string]any) (*ToolCall, error) {
	switch {
	case codexShellTools[native]:
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
			if ops, err := applypatch.Parse(cmd); err == nil {
				tc.Resources.Writes = applypatch.Writes(ops)
			}
		}
		return tc, nil
	case native == "apply_patch":
		patch, argv, err := commandOf(client, native, in, "command", "input", "patch")
		if err != nil {
			return nil, err
		}
		if len(argv) > 0 {
			// ["apply_patch", "<patch>"]: the patch is the last argument.
			patch = argv[len(argv)-1]
		}
		return translatePatch(client, native, patch, in)
	case native == "spawn_agent":
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
	case native == "web_search":
		return newCall(native, ToolWebSearch, copyMap(in), in), nil
	}
	// MCP tools keep mcp__server__tool; anything else (update_plan,
	// "multi_agent_v1wait_agent") is opaque and checked by name.
	return opaqueCall(native, in), nil
}

// codexWorkdir checks a Codex call's workdir, the directory its command
// runs in, and resolves against it the files of a patch that the call
// applies (exec_command ["apply_patch", …] with a workdir writes there,
// not in the session's directory). A workdir that is not a string is
// refused: the gate would start from the session's directory while Codex
// either fails or starts elsewhere.
func codexWorkdir(tc *ToolCall, in map[string]any, cwd string) error {
	v, ok := in["workdir"]
	if !ok || v == nil {
		return nil
	}
	dir, ok := v.(string)
	if !ok {
		return toolError(ClientCodex, tc.Native, "workdir", "expected a string, got "+typeName(v))
	}
	if dir == "" || vocab.IsShell(tc.Name) || !codexShellTools[tc.Native] {
		// A shell call starts there (setShellStartDir); the apply_patch
		// tool has no workdir (Codex ignores the member and applies the
		// patch in the session's directory, where the gate reads it).
		return nil
	}
	if !filepath.IsAbs(dir) && cwd != "" {
		dir = joinSpelled(cwd, dir)
	}
	ps, _ := tc.Input["file_paths"].([]any)
	for i, p := range ps {
		if s, ok := p.(string); ok && !filepath.IsAbs(s) && !strings.HasPrefix(s, "~") {
			ps[i] = joinSpelled(dir, s)
		}
	}
	if len(ps) > 0 {
		tc.Input["file_path"] = ps[0]
	}
	tc.Resources = resourcesOf(tc.Name, tc.Input)
	return nil
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
// heredoc whose body the shell would expand, a carriage return, a NUL or
// invalid UTF-8 the parser and the shell may read differently — is not a patch: the line is then
// gated as the shell line it is (the registry parses it with the full
// shell parser and derives the patch's writes itself; they are named here
// as well).
//
// The recogniser is a few string checks, not the shell parser: the hook
// binary does not link the parser (its package start-up costs as much as
// the rest of a hook's), and it accepts a strict subset of what the
// parser reads as one apply_patch call. A line it does not accept is
// never allowed for it: it is gated whole as shell.
func shellPatch(cmd string, argv []string) (string, bool) {
	if len(argv) == 2 && isApplyPatch(argv[0]) {
		return argv[1], true
	}
	if !strings.Contains(cmd, "*** Begin Patch") || strings.ContainsAny(cmd, "\r\x00") || !utf8.ValidString(cmd) {
		return "", false
	}
	first, rest, _ := strings.Cut(cmd, "\n")
	name, args := cutWord(first)
	if !isApplyPatch(name) {
		return "", false
	}
	var patch string
	var ok bool
	switch trimmed := strings.TrimLeft(args, " \t"); {
	case strings.HasPrefix(trimmed, "<<"):
		patch, ok = heredocPatch(strings.TrimLeft(trimmed[2:], " \t"), rest)
	case trimmed != args && strings.HasPrefix(trimmed, "'"):
		// A blank first: a quote right after the name would be part of it.
		patch, ok = quotedPatch(strings.TrimLeft(cmd[len(name):], " \t"))
	}
	return patch, ok && strings.Contains(patch, "*** Begin Patch")
}

func isApplyPatch(name string) bool { return name == "apply_patch" || name == "applypatch" }

// cutWord splits a line at the end of its first word: letters, digits and
// underscores only.
func cutWord(line string) (word, rest string) {
	i := 0
	for i < len(line) && isNameByte(line[i]) {
		i++
	}
	return line[:i], line[i:]
}

func isNameByte(c byte) bool {
	return c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}

// heredocPatch reads a heredoc operator's delimiter (op, after "<<":
// 'DELIM', "DELIM" or DELIM, of letters, digits and underscores, and then
// nothing but blanks) and body, the lines after it up to the first line
// that is exactly DELIM, which must end the command (blank lines after it
// aside). An unquoted delimiter's body is taken only when it holds nothing
// the shell expands or unescapes.
func heredocPatch(op, lines string) (string, bool) {
	quote := byte(0)
	if op != "" && (op[0] == '\'' || op[0] == '"') {
		quote, op = op[0], op[1:]
	}
	delim, after := cutWord(op)
	if delim == "" {
		return "", false
	}
	if quote != 0 {
		if after == "" || after[0] != quote {
			return "", false
		}
		after = after[1:]
	}
	if strings.Trim(after, " \t") != "" {
		return "", false
	}
	end := -1
	for off := 0; off <= len(lines); {
		line, _, _ := strings.Cut(lines[off:], "\n")
		if line == delim {
			end = off
			break
		}
		off += len(line) + 1
	}
	if end < 0 || strings.Trim(lines[end+len(delim):], " \t\n") != "" {
		return "", false
	}
	body := lines[:end]
	if quote == 0 && strings.ContainsAny(body, "\\$`") {
		return "", false
	}
	return body, true
}

// quotedPatch reads `'PATCH'` (args: the command line after the program's
// name and its blanks, since the patch spans lines): one single-quoted
// word, which the shell takes literally, and nothing after it but blanks.
func quotedPatch(args string) (string, bool) {
	if len(args) < 2 || args[0] != '\'' {
		return "", false
	}
	inner, after, ok := strings.Cut(args[1:], "'")
	if !ok || strings.Trim(after, " \t\n") != "" {
		return "", false
	}
	return inner, true
}
