package bridge

// OpenCode (opencode-ai; pinned test client 1.18.33) runs JavaScript
// plugins in its own process. leasedeck's plugin
// (plugins/opencode/leasedeck.js) bridges these hooks and bus events:
//
//	chat.message         begin (the turn, with the prompt's text); block → the plugin throws: the prompt fails
//	tool.execute.before  pre-tool (gate); deny/block → the plugin throws Error(R): R is the tool result
//	tool.execute.after   post-tool; block → R is appended to the tool's output
//	session.idle         finalize (the turn)
//	session.error        abort
//	session.deleted      finalize (the session ends)
//
// session.created maps to no op: the session's lease is issued with its
// first turn.
type opencodeAdapter struct{}

func (opencodeAdapter) Name() string { return "opencode" }

var opencodeEvents = []EventSpec{
	{Native: "chat.message", Op: OpBegin},
	{Native: "tool.execute.before", Op: OpPreTool, Gate: true, Tools: true},
	{Native: "tool.execute.after", Op: OpPostTool, Tools: true},
	{Native: "session.idle", Op: OpFinalize},
	{Native: "session.error", Op: OpAbort},
	{Native: "session.deleted", Op: OpFinalize},
}

var opencodeObserved = map[string]bool{"session.created": true}

func (opencodeAdapter) Events() []EventSpec { return opencodeEvents }

// Timeout: OpenCode gives a hook none; the plugin's own timer is the
// hook's --timeout, which install writes into both.
func (opencodeAdapter) Timeout(string) Timeout { return Timeout{Default: pluginTimeout} }

func (a opencodeAdapter) Parse(stdin []byte) (*Event, error) {
	return parsePlugin(a.Name(), opencodeEvents, opencodeObserved, translateOpenCode, stdin)
}

func (opencodeAdapter) Render(ev *Event, v Verdict) Output {
	return renderPlugin(opencodeEvents, opencodeObserved, ev, v)
}

// opencodeFileTools are OpenCode's tools that take one filePath.
var opencodeFileTools = map[string]string{"read": ToolRead, "write": ToolWrite, "edit": ToolEdit, "multiedit": ToolMultiEdit}

// translateOpenCode maps OpenCode's built-in tools onto the gate's
// vocabulary. MCP tools (<server>_<tool>), skill and anything newer stay
// opaque: a lease must name them.
func translateOpenCode(native string, in map[string]any, cwd string) (*ToolCall, error) {
	const client = "opencode"
	if tool, ok := opencodeFileTools[native]; ok {
		p, err := pluginNeed(client, native, in, "filePath")
		if err != nil {
			return nil, err
		}
		out := map[string]any{"file_path": pluginPath(p, cwd)}
		for from, to := range map[string]string{"content": "content", "oldString": "old_string", "newString": "new_string", "replaceAll": "replace_all", "edits": "edits"} {
			if v, ok := in[from]; ok {
				out[to] = v
			}
		}
		return newCall(native, tool, out, in), nil
	}
	switch native {
	case "bash":
		cmd, err := pluginNeed(client, native, in, "command")
		if err != nil {
			return nil, err
		}
		dir, err := pluginString(client, native, in, "workdir")
		if err != nil {
			return nil, err
		}
		out := map[string]any{"command": cmd}
		if d := pluginPath(nonEmpty(dir, cwd), cwd); d != "" {
			// The command runs there, not where OpenCode was started.
			out["cwd"] = d
		}
		return newCall(native, ToolBash, out, in), nil
	case "list", "glob", "grep":
		return opencodeSearch(native, in, cwd)
	case "webfetch":
		u, err := pluginNeed(client, native, in, "url")
		if err != nil {
			return nil, err
		}
		return newCall(native, ToolWebFetch, map[string]any{"url": u}, in), nil
	case "websearch":
		q, err := pluginString(client, native, in, "query")
		if err != nil {
			return nil, err
		}
		return newCall(native, ToolWebSearch, map[string]any{"query": q}, in), nil
	case "task":
		out := copyMap(in)
		if s, _ := in["subagent_type"].(string); s != "" {
			out["subagent_type"] = s
		}
		return newCall(native, ToolAgent, out, in), nil
	case "todowrite":
		return newCall(native, "TodoWrite", copyMap(in), in), nil
	case "apply_patch", "patch":
		patch, err := pluginNeed(client, native, in, "patchText")
		if err != nil {
			return nil, err
		}
		tc, err := translatePatch(client, native, patch, in)
		if err != nil {
			return nil, err
		}
		opencodeResolveWrites(tc, cwd)
		return tc, nil
	}
	return opaqueCall(native, in), nil
}

func opencodeSearch(native string, in map[string]any, cwd string) (*ToolCall, error) {
	const client = "opencode"
	dir, err := pluginString(client, native, in, "path")
	if err != nil {
		return nil, err
	}
	out := map[string]any{"path": pluginPath(nonEmpty(dir, cwd), cwd), "pattern": "*"}
	if out["path"] == "" {
		delete(out, "path")
	}
	tool := ToolGlob
	if native != "list" {
		pat, err := pluginNeed(client, native, in, "pattern")
		if err != nil {
			return nil, err
		}
		out["pattern"] = pat
	}
	if native == "grep" {
		tool = ToolGrep
		inc, err := pluginString(client, native, in, "include")
		if err != nil {
			return nil, err
		}
		if inc != "" {
			out["glob"] = inc
		}
	}
	return newCall(native, tool, out, in), nil
}

// opencodeResolveWrites resolves a patch's relative paths against the
// directory OpenCode runs in, as its patch tool does.
func opencodeResolveWrites(tc *ToolCall, cwd string) {
	ps, _ := tc.Input["file_paths"].([]any)
	for i, p := range ps {
		if s, ok := p.(string); ok {
			ps[i] = pluginPath(s, cwd)
		}
	}
	if len(ps) > 0 {
		tc.Input["file_path"] = ps[0]
	}
	tc.Resources = resourcesOf(tc.Name, tc.Input)
}
