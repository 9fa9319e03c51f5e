package bridge

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/leasedeck/leasedeck/vocab"
)

// pathMembers are the gate-shaped members that name a file or directory.
var pathMembers = []string{"file_path", "notebook_path", "path", "cwd"}

// isURI reports whether a path is a URI of some scheme ("vscode-remote://",
// "file://" left over): whether the client opens it as a URI or as a
// relative path is not the gate's to guess. (No regexp: the lean hook
// compiles none at start.)
func isURI(p string) bool {
	scheme, _, ok := strings.Cut(p, "://")
	if !ok || scheme == "" {
		return false
	}
	for i, c := range scheme {
		letter := ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
		if !letter && (i == 0 || !(('0' <= c && c <= '9') || c == '+' || c == '.' || c == '-')) {
			return false
		}
	}
	return true
}

// vetted passes on a translated call (or translate's error) only when every
// path it names reads one way: no white space at either end (some clients
// trim a path, others do not, so " /home/u/.ssh/id_rsa" is a relative path
// to one and the key to another; checked in each component, since an
// adapter may have joined the path to the client's directory), no NUL, no URI, valid UTF-8 (a lone
// surrogate escape the gate keeps as is and the client turns into U+FFFD),
// and, for the clients whose tools are not Claude Code's, no opaque tool
// that carries a name of the gate's own vocabulary.
func vetted(client string, tc *ToolCall, err error) (*ToolCall, error) {
	if err != nil || tc == nil {
		return tc, err
	}
	if tc.opaque && client != ClientClaudeCode && client != ClientVSCode {
		for _, name := range append(vocab.Tools(), vocab.PowerShell) {
			if strings.EqualFold(tc.Native, name) {
				return nil, &InputError{Client: client, Pointer: "/tool_name", Msg: tc.Native + ": not a tool of " + client +
					" leasedeck knows, and it carries the gate's own name " + name + ": a lease's grant of " + name + " does not cover it"}
			}
		}
	}
	for _, k := range pathMembers {
		if s, ok := tc.Input[k].(string); ok {
			if msg := oddPath(s); msg != "" {
				return nil, toolError(client, tc.Native, k, msg)
			}
		}
	}
	if ps, ok := tc.Input["file_paths"].([]any); ok {
		for _, p := range ps {
			s, ok := p.(string)
			if !ok {
				return nil, toolError(client, tc.Native, "file_paths", "expected strings, got "+typeName(p))
			}
			if msg := oddPath(s); msg != "" {
				return nil, toolError(client, tc.Native, "file_paths", msg)
			}
		}
	}
	return tc, nil
}

// oddPath says why a path cannot be read one way, or "".
func oddPath(p string) string {
	switch {
	case !utf8.ValidString(p):
		return "the path is not valid UTF-8 (a lone surrogate escape?): the client would open another name"
	case strings.IndexByte(p, 0) >= 0:
		return "the path holds a NUL byte"
	case isURI(filepath.ToSlash(p)):
		return "the path is a URI, which the client may open as a URI or as a relative path"
	}
	// Component by component: an adapter that joins a relative path to
	// the client's directory buries a leading blank inside the path.
	for _, c := range strings.Split(filepath.ToSlash(p), "/") {
		if strings.TrimFunc(c, unicode.IsSpace) != c {
			return "white space at an end of a path component: whether the client trims it is not the gate's to guess"
		}
	}
	return ""
}

// opaqueCall is a tool call the adapter has no translation for: checked by
// name only, so a lease must name it.
func opaqueCall(native string, in map[string]any) *ToolCall {
	tc := newCall(native, native, copyMap(in), in)
	tc.opaque = true
	return tc
}

// stringList reads a member that holds one string or an array of them. An
// element of another type is refused rather than skipped: the client may
// well read it (a path as an object, a URL as a number) where the gate
// would not.
func stringList(client, tool string, in map[string]any, key string) ([]string, error) {
	switch v := in[key].(type) {
	case nil:
		return nil, nil
	case string:
		if v == "" {
			return nil, nil
		}
		return []string{v}, nil
	case []any:
		out := make([]string, 0, len(v))
		for i, e := range v {
			s, ok := e.(string)
			if !ok {
				return nil, toolError(client, tool, fmt.Sprintf("%s/%d", key, i), "expected a string, got "+typeName(e))
			}
			if s != "" {
				out = append(out, s)
			}
		}
		return out, nil
	default:
		return nil, toolError(client, tool, key, "expected a string or an array of strings, got "+typeName(v))
	}
}
