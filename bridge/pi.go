package bridge

import (
	"strings"

	"golang.org/x/text/unicode/norm"
)

// pi (@mariozechner/pi-coding-agent; pinned test client 0.73.1) runs
// TypeScript extensions in its own process. leasedeck's extension
// (plugins/pi/leasedeck.ts) bridges these events:
//
//	input             begin (the turn, with the prompt); block → {action:"handled"}: no model call
//	tool_call         pre-tool (gate); deny/block → {block:true, reason:R}: R is the tool result
//	tool_result       post-tool; block → R is appended to the result, which is marked an error
//	agent_end         finalize (the turn)
//	session_shutdown  finalize (the session ends)
//
// session_start maps to no op: the session's lease is issued with its
// first turn.
type piAdapter struct{}

func (piAdapter) Name() string { return "pi" }

var piEvents = []EventSpec{
	{Native: "input", Op: OpBegin},
	{Native: "tool_call", Op: OpPreTool, Gate: true, Tools: true},
	{Native: "tool_result", Op: OpPostTool, Tools: true},
	{Native: "agent_end", Op: OpFinalize},
	{Native: "session_shutdown", Op: OpFinalize},
}

var piObserved = map[string]bool{"session_start": true}

func (piAdapter) Events() []EventSpec { return piEvents }

// Timeout: pi gives a handler none; the extension's own timer is the
// hook's --timeout, which install writes into both.
func (piAdapter) Timeout(string) Timeout { return Timeout{Default: pluginTimeout} }

func (a piAdapter) Parse(stdin []byte) (*Event, error) {
	return parsePlugin(a.Name(), piEvents, piObserved, translatePi, stdin)
}

func (piAdapter) Render(ev *Event, v Verdict) Output {
	return renderPlugin(piEvents, piObserved, ev, v)
}

// translatePi maps pi's built-in tools (bash, read, write, edit, ls,
// find, grep) onto the gate's vocabulary. Anything else (an extension's
// own tool) stays opaque: a lease must name it.
func translatePi(native string, in map[string]any, cwd string) (*ToolCall, error) {
	const client = "pi"
	switch native {
	case "bash":
		cmd, err := pluginNeed(client, native, in, "command")
		if err != nil {
			return nil, err
		}
		return newCall(native, ToolBash, map[string]any{"command": cmd}, in), nil
	case "read", "write", "edit":
		raw, err := piPathOf(native, in)
		if err != nil {
			return nil, err
		}
		p := pluginPath(piExpand(raw), cwd)
		out := map[string]any{"file_path": p}
		name := map[string]string{"read": ToolRead, "write": ToolWrite, "edit": ToolEdit}[native]
		if native == "read" {
			// pi's read falls back to look-alike names when the path does
			// not exist (macOS screenshot spellings, NFD, curly quotes):
			// every one it may open is checked.
			if vs := piReadVariants(p); len(vs) > 1 {
				out["file_paths"] = anyStrings(vs[1:])
			}
		}
		if c, ok := in["content"].(string); ok {
			out["content"] = c
		}
		return newCall(native, name, out, in), nil
	case "ls", "find", "grep":
		dir, err := pluginString(client, native, in, "path")
		if err != nil {
			return nil, err
		}
		out := map[string]any{"path": pluginPath(piExpand(nonEmpty(dir, ".")), cwd), "pattern": "*"}
		tool := ToolGlob
		if native != "ls" {
			pat, err := pluginNeed(client, native, in, "pattern")
			if err != nil {
				return nil, err
			}
			out["pattern"] = pat
		}
		if native == "grep" {
			tool = ToolGrep
			if g, err := pluginString(client, native, in, "glob"); err != nil {
				return nil, err
			} else if g != "" {
				out["glob"] = g
			}
		}
		return newCall(native, tool, out, in), nil
	}
	return opaqueCall(native, in), nil
}

// piPathOf is the file a read/write/edit touches. pi's tools take path;
// its renderers also read file_path, so a call naming both differently is
// refused rather than guessed.
func piPathOf(native string, in map[string]any) (string, error) {
	p, err := pluginString("pi", native, in, "path")
	if err != nil {
		return "", err
	}
	alt, err := pluginString("pi", native, in, "file_path")
	if err != nil {
		return "", err
	}
	switch {
	case p == "" && alt == "":
		return "", toolError("pi", native, "path", "missing (required)")
	case p != "" && alt != "" && p != alt:
		return "", toolError("pi", native, "file_path", "names another file than path")
	}
	return nonEmpty(p, alt), nil
}

var piUnicodeSpaces = lazyRegexp("[\u00A0\u2000-\u200A\u202F\u205F\u3000]")

// piExpand is pi's expandPath: a leading "@" is dropped and Unicode
// spaces become plain ones ("~" and "~/" stay for the registry to expand).
func piExpand(p string) string {
	return piUnicodeSpaces().ReplaceAllString(strings.TrimPrefix(p, "@"), " ")
}

var piAmPm = lazyRegexp(`(?i) (AM|PM)\.`)

// piReadVariants are the paths pi's read may open for p, p first.
func piReadVariants(p string) []string {
	nfd := norm.NFD.String(p)
	curly := func(s string) string { return strings.ReplaceAll(s, "'", "\u2019") }
	out := []string{p}
	for _, v := range []string{piAmPm().ReplaceAllString(p, "\u202F$1."), nfd, curly(p), curly(nfd)} {
		dup := false
		for _, o := range out {
			dup = dup || o == v
		}
		if !dup {
			out = append(out, v)
		}
	}
	return out
}
