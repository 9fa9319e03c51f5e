package bridge

// Gemini CLI's built-in tools, one translator each. Paths may be relative
// to the project directory; they are passed as they came (the registry
// resolves them against the workspace).

// geminiInput is one built-in tool call being translated.
type geminiInput struct {
	// client is the adapter whose payload this is ("" = gemini): Qwen
	// Code inherited these tools.
	client string
	native string
	in     map[string]any
}

func (t geminiInput) who() string { return nonEmpty(t.client, "gemini") }

// first returns the first of keys that holds a non-empty string.
func (t geminiInput) first(keys ...string) string {
	for _, k := range keys {
		if s, ok := t.in[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// need is one for a required value; the error names keys[0].
func (t geminiInput) need(keys ...string) (string, error) {
	s, err := t.one(keys...)
	if err == nil && s == "" {
		err = toolError(t.who(), t.native, keys[0], "missing (required)")
	}
	return s, err
}

// one reads a path or directory that versions of the tool named
// differently (oneOf): several members naming different ones are refused.
func (t geminiInput) one(keys ...string) (string, error) {
	return oneOf(t.who(), t.native, t.in, keys...)
}

func (t geminiInput) call(tool string, out map[string]any) *ToolCall {
	return newCall(t.native, tool, out, t.in)
}

// geminiTools maps each built-in tool name to its translator.
var geminiTools = map[string]func(geminiInput) (*ToolCall, error){
	"run_shell_command":   geminiShell,
	"write_file":          geminiWriteFile,
	"replace":             geminiReplace,
	"read_file":           geminiReadFile,
	"list_directory":      geminiListDir,
	"ls":                  geminiListDir,
	"glob":                geminiGlob,
	"search_file_content": geminiGrep,
	"grep_search":         geminiGrep,
	"grep":                geminiGrep,
	"web_fetch":           geminiWebFetch,
	"google_web_search":   geminiWebSearch,
	"delegate_to_agent":   geminiAgent,
	"invoke_agent":        geminiAgent,
}

func geminiShell(t geminiInput) (*ToolCall, error) {
	cmd, err := t.need("command")
	if err != nil {
		return nil, err
	}
	out := map[string]any{"command": cmd}
	d, err := t.one("dir_path", "directory")
	if err != nil {
		return nil, err
	}
	if d != "" {
		// The command runs there, not in the project root.
		out["cwd"] = d
	}
	if d := t.first("description"); d != "" {
		out["description"] = d
	}
	return t.call(ToolBash, out), nil
}

func geminiWriteFile(t geminiInput) (*ToolCall, error) {
	p, err := t.need("file_path", "absolute_path", "path")
	if err != nil {
		return nil, err
	}
	out := map[string]any{"file_path": p}
	if c, ok := t.in["content"].(string); ok {
		out["content"] = c
	}
	return t.call(ToolWrite, out), nil
}

func geminiReplace(t geminiInput) (*ToolCall, error) {
	p, err := t.need("file_path", "absolute_path", "path")
	if err != nil {
		return nil, err
	}
	out := map[string]any{"file_path": p}
	for from, to := range map[string]string{"old_string": "old_string", "new_string": "new_string", "allow_multiple": "replace_all"} {
		if v, ok := t.in[from]; ok {
			out[to] = v
		}
	}
	return t.call(ToolEdit, out), nil
}

func geminiReadFile(t geminiInput) (*ToolCall, error) {
	p, err := t.need("file_path", "absolute_path", "path")
	if err != nil {
		return nil, err
	}
	return t.call(ToolRead, map[string]any{"file_path": p}), nil
}

func geminiListDir(t geminiInput) (*ToolCall, error) {
	p, err := t.need("dir_path", "path")
	if err != nil {
		return nil, err
	}
	return t.call(ToolGlob, map[string]any{"path": p, "pattern": "*"}), nil
}

func geminiGlob(t geminiInput) (*ToolCall, error) {
	pat, err := t.need("pattern")
	if err != nil {
		return nil, err
	}
	out := map[string]any{"pattern": pat}
	d, err := t.one("dir_path", "path")
	if err != nil {
		return nil, err
	}
	if d != "" {
		out["path"] = d
	}
	return t.call(ToolGlob, out), nil
}

func geminiGrep(t geminiInput) (*ToolCall, error) {
	pat, err := t.need("pattern")
	if err != nil {
		return nil, err
	}
	out := map[string]any{"pattern": pat}
	d, err := t.one("dir_path", "path")
	if err != nil {
		return nil, err
	}
	if d != "" {
		out["path"] = d
	}
	if g := t.first("include"); g != "" {
		out["glob"] = g
	}
	return t.call(ToolGrep, out), nil
}

func geminiWebFetch(t geminiInput) (*ToolCall, error) {
	var urls []string
	if u := t.first("url"); u != "" {
		urls = append(urls, u)
	}
	if pr := t.first("prompt"); pr != "" {
		urls = append(urls, urlsIn(pr)...)
	}
	if len(urls) == 0 {
		// The gate checks hosts; a fetch that names none cannot be
		// checked, so it is refused rather than passed as host-less.
		return nil, toolError(t.who(), t.native, "prompt", "names no http(s) URL")
	}
	out := map[string]any{"url": urls[0]}
	if len(urls) > 1 {
		out["urls"] = anyStrings(urls)
	}
	if pr := t.first("prompt"); pr != "" {
		out["prompt"] = pr
	}
	return t.call(ToolWebFetch, out), nil
}

func geminiWebSearch(t geminiInput) (*ToolCall, error) {
	return t.call(ToolWebSearch, map[string]any{"query": t.first("query")}), nil
}

func geminiAgent(t geminiInput) (*ToolCall, error) {
	out := copyMap(t.in)
	if s := t.first("prompt", "task", "query", "objective"); s != "" {
		out["prompt"] = s
	}
	if s := t.first("agent_name", "name", "agent"); s != "" {
		out["subagent_type"] = s
	}
	return t.call(ToolAgent, out), nil
}
