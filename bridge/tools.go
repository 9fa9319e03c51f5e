package bridge

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/leasedeck/leasedeck/applypatch"
	"github.com/leasedeck/leasedeck/redact"
	"github.com/leasedeck/leasedeck/vocab"
)

// The gate's tool vocabulary (DESIGN "Tool vocabulary and exit codes"),
// defined once in package resources; these are the names the adapters map
// their clients' tools onto.
const (
	ToolBash         = vocab.Bash
	ToolWrite        = vocab.Write
	ToolEdit         = vocab.Edit
	ToolMultiEdit    = vocab.MultiEdit
	ToolRead         = vocab.Read
	ToolNotebookEdit = vocab.NotebookEdit
	ToolGlob         = vocab.Glob
	ToolGrep         = vocab.Grep
	ToolWebFetch     = vocab.WebFetch
	ToolWebSearch    = vocab.WebSearch
	ToolAgent        = vocab.Agent
)

// toolError is a tool input the gate cannot check: a missing path or
// command. On a gate event it fails closed, which is the point: a Write
// whose path we cannot read must not be waved through as "no path".
func toolError(client, tool, member, msg string) error {
	return &InputError{Client: client, Pointer: "/tool_input/" + redact.EscapePointer(member), Msg: tool + ": " + msg}
}

// newCall finishes a translated call: resources from the gate-shaped input.
func newCall(native, name string, in map[string]any, nativeInput any) *ToolCall {
	sum, _ := hashValue(nativeInput)
	tc := &ToolCall{Native: native, Name: name, Input: in, InputSHA256: sum}
	tc.Resources = resourcesOf(name, in)
	return tc
}

// resourcesOf reads the gate-shaped input the way the registry will.
func resourcesOf(name string, in map[string]any) Resources {
	var r Resources
	paths := func() []string {
		if ps, ok := in["file_paths"].([]any); ok && len(ps) > 0 {
			out := make([]string, 0, len(ps))
			for _, p := range ps {
				if s, ok := p.(string); ok && s != "" {
					out = append(out, s)
				}
			}
			return out
		}
		for _, k := range []string{"file_path", "notebook_path"} {
			if s, _ := in[k].(string); s != "" {
				return []string{s}
			}
		}
		return nil
	}
	switch name {
	case ToolBash, vocab.PowerShell:
		if c, _ := in["command"].(string); c != "" {
			r.Commands = []string{c}
		}
		if ws, ok := in["file_paths"].([]any); ok {
			for _, w := range ws {
				if s, ok := w.(string); ok {
					r.Writes = append(r.Writes, s)
				}
			}
		}
	case ToolWrite, ToolEdit, ToolMultiEdit, ToolNotebookEdit:
		r.Writes = paths()
	case ToolRead:
		r.Reads = paths()
	case ToolGlob, ToolGrep:
		if p, _ := in["path"].(string); p != "" {
			r.Reads = []string{p}
		}
	case ToolWebFetch:
		if us, ok := in["urls"].([]any); ok && len(us) > 0 {
			for _, u := range us {
				if s, ok := u.(string); ok {
					r.URLs = append(r.URLs, s)
				}
			}
		} else if u, _ := in["url"].(string); u != "" {
			r.URLs = []string{u}
		}
	}
	return r
}

// oneOf reads a member that a client's versions have named in several
// ways (file_path, absolute_path, path; dir_path, directory): the value of
// the first of keys that holds a non-empty string. When another of keys
// holds a different one, or one of them holds something other than a
// string, the call is refused: the gate cannot tell which member this
// client reads, and checking one while the client uses the other would
// let it touch what the gate never saw.
func oneOf(client, tool string, in map[string]any, keys ...string) (string, error) {
	got, from := "", ""
	for _, k := range keys {
		v, ok := in[k]
		if !ok || v == nil {
			continue
		}
		s, ok := v.(string)
		if !ok {
			return "", toolError(client, tool, k, "expected a string, got "+typeName(v))
		}
		switch {
		case s == "":
		case got == "":
			got, from = s, k
		case s != got:
			return "", toolError(client, tool, k, "names another value than "+from+" (the gate cannot tell which one the client uses)")
		}
	}
	return got, nil
}

// requireString checks that a gate-relevant member is a non-empty string.
func requireString(client, tool string, in map[string]any, member string) error {
	v, ok := in[member]
	if !ok || v == nil {
		return toolError(client, tool, member, "missing (required)")
	}
	s, ok := v.(string)
	if !ok {
		return toolError(client, tool, member, "expected a string, got "+typeName(v))
	}
	if strings.TrimSpace(s) == "" {
		return toolError(client, tool, member, "empty")
	}
	return nil
}

// translateClaude maps a Claude Code tool call (already in the gate's
// vocabulary) and checks the members the gate reads.
func translateClaude(client, name string, in map[string]any) (*ToolCall, error) {
	out := copyMap(in)
	gate := name
	switch name {
	case vocab.Task:
		// Renamed Agent in v2.1.63; Task stays an alias.
		gate = ToolAgent
	case ToolBash, vocab.PowerShell:
		if err := requireString(client, name, in, "command"); err != nil {
			return nil, err
		}
	case ToolWrite, ToolEdit, ToolMultiEdit, ToolRead:
		if err := requireString(client, name, in, "file_path"); err != nil {
			return nil, err
		}
	case ToolNotebookEdit:
		// The gate reads file_path; the tool names it notebook_path.
		p, err := oneOf(client, name, in, "notebook_path", "file_path")
		if err != nil {
			return nil, err
		}
		if p == "" {
			return nil, toolError(client, name, "notebook_path", "missing (required)")
		}
		out["file_path"] = p
	case ToolGlob, ToolGrep:
		if err := requireString(client, name, in, "pattern"); err != nil {
			return nil, err
		}
	case ToolWebFetch:
		if err := requireString(client, name, in, "url"); err != nil {
			return nil, err
		}
	}
	return newCall(name, gate, out, in), nil
}

// translatePatch maps an apply_patch call onto Edit (the patch only updates
// files in place) or Write (it creates, deletes or moves files, which
// Claude Code's Edit cannot do). Every written file is in file_paths and in
// Resources.Writes: a multi-file patch is one call, and checking only the
// first path would let the rest through.
func translatePatch(client, native, patch string, nativeInput any) (*ToolCall, error) {
	ops, err := applypatch.Parse(patch)
	if err == nil {
		err = applypatch.Whole(patch)
	}
	if err != nil {
		return nil, toolError(client, native, "command", "cannot read the patch: "+err.Error())
	}
	gate := ToolEdit
	for _, op := range ops {
		if op.Kind != "update" || op.MoveTo != "" {
			gate = ToolWrite
		}
	}
	writes := applypatch.Writes(ops)
	fp := make([]any, len(writes))
	for i, w := range writes {
		fp[i] = w
	}
	in := map[string]any{"file_path": writes[0], "file_paths": fp, "patch": patch}
	return newCall(native, gate, in, nativeInput), nil
}

// shellWord matches an argument that needs no quoting.
var shellWord = lazyRegexp(`^[A-Za-z0-9_@%+=:,./-]+$`)

// quoteArgv renders an argv array as one shell command line, so that an
// older Codex's ["bash","-lc","…"] reaches the registry's shell parser with
// the same meaning it had as an exec.
func quoteArgv(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && shellWord().MatchString(a) {
			parts[i] = a
		} else {
			parts[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(parts, " ")
}

// commandOf reads a shell command that may be a string or an argv array.
func commandOf(client, tool string, in map[string]any, keys ...string) (string, []string, error) {
	named := 0
	for _, k := range keys {
		if v, ok := in[k]; ok && v != nil {
			named++
		}
	}
	if named > 1 {
		// Which one the client runs is not the gate's to guess.
		return "", nil, toolError(client, tool, keys[1], "a second command member beside "+keys[0])
	}
	for _, k := range keys {
		switch v := in[k].(type) {
		case nil:
			continue
		case string:
			if strings.TrimSpace(v) == "" {
				return "", nil, toolError(client, tool, k, "empty")
			}
			return v, nil, nil
		case []any:
			argv := make([]string, 0, len(v))
			for i, a := range v {
				s, ok := a.(string)
				if !ok {
					return "", nil, toolError(client, tool, fmt.Sprintf("%s/%d", k, i), "expected a string, got "+typeName(a))
				}
				argv = append(argv, s)
			}
			if len(argv) == 0 {
				return "", nil, toolError(client, tool, k, "empty")
			}
			return quoteArgv(argv), argv, nil
		default:
			return "", nil, toolError(client, tool, k, "expected a string or an array, got "+typeName(v))
		}
	}
	return "", nil, toolError(client, tool, keys[0], "missing (required)")
}

// urlRe finds http(s) URLs in free text (Gemini's web_fetch takes a prompt
// that names its URLs).
var urlRe = lazyRegexp(`https?://[^\s"'<>()\[\]{}]+`)

func urlsIn(s string) []string {
	var out []string
	for _, u := range urlRe().FindAllString(s, -1) {
		out = append(out, strings.TrimRight(u, ".,;:!?"))
	}
	return out
}

// fromFileURI turns a file:// URI (VS Code sometimes sends them) into a path.
func fromFileURI(p string) string {
	if !strings.HasPrefix(p, "file://") {
		return p
	}
	u, err := url.Parse(p)
	if err != nil || u.Path == "" {
		return strings.TrimPrefix(p, "file://")
	}
	return u.Path
}

func anyStrings(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func stringsOf(v any) []string {
	switch x := v.(type) {
	case string:
		if x != "" {
			return []string{x}
		}
	case []any:
		var out []string
		for _, e := range x {
			if s, ok := e.(string); ok && s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}
