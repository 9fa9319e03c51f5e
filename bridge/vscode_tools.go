package bridge

import (
	"fmt"
	"strings"
)

// VS Code's built-in tools (Copilot's names, camelCase inputs), one
// translator each, looked up by every name the tool has gone by.

// vscodeInput is one built-in tool call being translated.
type vscodeInput struct {
	native string
	in     map[string]any
}

// first returns the first of keys that holds a non-empty string.
func (t vscodeInput) first(keys ...string) string {
	for _, k := range keys {
		if s, ok := t.in[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// needPath reads a required path, which may be given as a file URI, from
// the members versions of the tool named it by (oneOf: members naming
// different paths are refused).
func (t vscodeInput) needPath(keys ...string) (string, error) {
	s, err := oneOf("vscode", t.native, t.in, keys...)
	if err != nil {
		return "", err
	}
	if s = fromFileURI(s); s == "" {
		return "", toolError("vscode", t.native, keys[0], "missing (required)")
	}
	return s, nil
}

func (t vscodeInput) missing(key string) error {
	return toolError("vscode", t.native, key, "missing (required)")
}

func (t vscodeInput) call(tool string, out map[string]any) *ToolCall {
	return newCall(t.native, tool, out, t.in)
}

// vscodeTools maps each built-in tool name to its translator.
var vscodeTools = map[string]func(vscodeInput) (*ToolCall, error){}

func init() {
	for _, tool := range []struct {
		names     []string
		translate func(vscodeInput) (*ToolCall, error)
	}{
		{[]string{"run_in_terminal", "runInTerminal", "runTerminalCommand", "run_terminal_command", "runCommands"}, vscodeTerminal},
		{[]string{"create_file", "createFile"}, vscodeCreateFile},
		{[]string{"create_directory", "createDirectory"}, vscodeCreateDirectory},
		{[]string{"replace_string_in_file", "replaceStringInFile"}, vscodeReplaceString},
		{[]string{"insert_edit_into_file", "insertEditIntoFile", "edit_file"}, vscodeInsertEdit},
		{[]string{"multi_replace_string_in_file", "multiReplaceStringInFile"}, vscodeMultiReplace},
		{[]string{"editFiles", "edit_files"}, vscodeEditFiles},
		{[]string{"apply_patch", "applyPatch"}, vscodeApplyPatch},
		{[]string{"edit_notebook_file", "editNotebook", "editNotebookFile"}, vscodeEditNotebook},
		{[]string{"read_file", "readFile"}, vscodeReadFile},
		{[]string{"list_dir", "listDirectory", "list_directory"}, vscodeListDir},
		{[]string{"file_search", "fileSearch"}, vscodeFileSearch},
		{[]string{"grep_search", "textSearch", "text_search"}, vscodeTextSearch},
		{[]string{"fetch_webpage", "fetch", "fetchWebpage"}, vscodeFetch},
		{[]string{"runSubagent", "run_subagent", "runTask"}, vscodeSubagent},
	} {
		for _, name := range tool.names {
			vscodeTools[name] = tool.translate
		}
	}
}

func vscodeTerminal(t vscodeInput) (*ToolCall, error) {
	cmd, err := oneOf("vscode", t.native, t.in, "command", "cmd")
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(cmd) == "" {
		return nil, t.missing("command")
	}
	return t.call(ToolBash, map[string]any{"command": cmd}), nil
}

func vscodeCreateFile(t vscodeInput) (*ToolCall, error) {
	p, err := t.needPath("filePath", "file_path", "path")
	if err != nil {
		return nil, err
	}
	out := map[string]any{"file_path": p}
	if c, ok := t.in["content"].(string); ok {
		out["content"] = c
	}
	return t.call(ToolWrite, out), nil
}

func vscodeCreateDirectory(t vscodeInput) (*ToolCall, error) {
	p, err := t.needPath("dirPath", "path")
	if err != nil {
		return nil, err
	}
	return t.call(ToolWrite, map[string]any{"file_path": p}), nil
}

func vscodeReplaceString(t vscodeInput) (*ToolCall, error) {
	p, err := t.needPath("filePath", "file_path")
	if err != nil {
		return nil, err
	}
	out := map[string]any{"file_path": p}
	if s, ok := t.in["oldString"]; ok {
		out["old_string"] = s
	}
	if s, ok := t.in["newString"]; ok {
		out["new_string"] = s
	}
	return t.call(ToolEdit, out), nil
}

func vscodeInsertEdit(t vscodeInput) (*ToolCall, error) {
	p, err := t.needPath("filePath", "file_path")
	if err != nil {
		return nil, err
	}
	out := map[string]any{"file_path": p}
	if s, ok := t.in["code"]; ok {
		out["new_string"] = s
	}
	return t.call(ToolEdit, out), nil
}

// vscodeMultiReplace: replacements in one file are a MultiEdit; across
// several files, an Edit naming every file, so the gate checks them all.
func vscodeMultiReplace(t vscodeInput) (*ToolCall, error) {
	reps, ok := t.in["replacements"].([]any)
	if v := t.in["replacements"]; !ok && v != nil {
		return nil, toolError("vscode", t.native, "replacements", "expected an array, got "+typeName(v))
	}
	var paths []string
	var edits []any
	seen := map[string]bool{}
	for i, r := range reps {
		rm, ok := r.(map[string]any)
		if !ok {
			return nil, toolError("vscode", t.native, fmt.Sprintf("replacements/%d", i), "expected an object, got "+typeName(r))
		}
		if v, ok := rm["filePath"]; ok && v != nil {
			if _, ok := v.(string); !ok {
				return nil, toolError("vscode", t.native, fmt.Sprintf("replacements/%d/filePath", i), "expected a string, got "+typeName(v))
			}
		}
		p, _ := rm["filePath"].(string)
		p = fromFileURI(p)
		if p == "" {
			return nil, toolError("vscode", t.native, "replacements", "a replacement names no filePath")
		}
		if !seen[p] {
			seen[p] = true
			paths = append(paths, p)
		}
		edits = append(edits, map[string]any{"old_string": rm["oldString"], "new_string": rm["newString"]})
	}
	if len(paths) == 0 {
		return nil, t.missing("replacements")
	}
	if len(paths) == 1 {
		return t.call(ToolMultiEdit, map[string]any{"file_path": paths[0], "edits": edits}), nil
	}
	return t.call(ToolEdit, map[string]any{"file_path": paths[0], "file_paths": anyStrings(paths)}), nil
}

func vscodeEditFiles(t vscodeInput) (*ToolCall, error) {
	files, err := stringList("vscode", t.native, t.in, "files")
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, p := range files {
		paths = append(paths, fromFileURI(p))
	}
	if len(paths) == 0 {
		return nil, t.missing("files")
	}
	out := map[string]any{"file_path": paths[0]}
	if len(paths) > 1 {
		out["file_paths"] = anyStrings(paths)
	}
	return t.call(ToolEdit, out), nil
}

func vscodeApplyPatch(t vscodeInput) (*ToolCall, error) {
	patch := t.first("input", "patch", "command")
	if patch == "" {
		return nil, t.missing("input")
	}
	return translatePatch("vscode", t.native, patch, t.in)
}

func vscodeEditNotebook(t vscodeInput) (*ToolCall, error) {
	p, err := t.needPath("filePath", "file_path")
	if err != nil {
		return nil, err
	}
	return t.call(ToolNotebookEdit, map[string]any{"file_path": p, "notebook_path": p}), nil
}

func vscodeReadFile(t vscodeInput) (*ToolCall, error) {
	p, err := t.needPath("filePath", "file_path", "path")
	if err != nil {
		return nil, err
	}
	return t.call(ToolRead, map[string]any{"file_path": p}), nil
}

func vscodeListDir(t vscodeInput) (*ToolCall, error) {
	p, err := t.needPath("path", "dirPath")
	if err != nil {
		return nil, err
	}
	return t.call(ToolGlob, map[string]any{"path": p, "pattern": "*"}), nil
}

func vscodeFileSearch(t vscodeInput) (*ToolCall, error) {
	q := t.first("query", "pattern")
	if q == "" {
		return nil, t.missing("query")
	}
	return t.call(ToolGlob, map[string]any{"pattern": q}), nil
}

func vscodeTextSearch(t vscodeInput) (*ToolCall, error) {
	q := t.first("query", "pattern")
	if q == "" {
		return nil, t.missing("query")
	}
	out := map[string]any{"pattern": q}
	if g := t.first("includePattern", "include"); g != "" {
		out["glob"] = g
	}
	return t.call(ToolGrep, out), nil
}

func vscodeFetch(t vscodeInput) (*ToolCall, error) {
	urls, err := stringList("vscode", t.native, t.in, "urls")
	if err != nil {
		return nil, err
	}
	if u := t.first("url"); u != "" {
		urls = append([]string{u}, urls...)
	}
	if len(urls) == 0 {
		return nil, t.missing("urls")
	}
	out := map[string]any{"url": urls[0]}
	if len(urls) > 1 {
		out["urls"] = anyStrings(urls)
	}
	return t.call(ToolWebFetch, out), nil
}

func vscodeSubagent(t vscodeInput) (*ToolCall, error) {
	out := copyMap(t.in)
	if s := t.first("agentName", "agent"); s != "" {
		out["subagent_type"] = s
	}
	return t.call(ToolAgent, out), nil
}
