package redact

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/leasedeck/leasedeck/termtext"
)

// DefaultSummaryMax is the audit journal's summary cap (the contract's
// reference writer caps `summary` at 300 characters).
const DefaultSummaryMax = 300

// Summary renders a tool call as one redacted line of at most max
// characters (runes; DefaultSummaryMax when max <= 0), e.g.
// `Bash: git status && rm -rf build`, `Write: src/a.go (1.2 KB)`. tool is a
// name in the gate's vocabulary and input its (translated) tool_input. File
// contents never appear: writes and edits are summarised by path and size.
func Summary(tool string, input any, max int) string {
	if max <= 0 {
		max = DefaultSummaryMax
	}
	m, _ := input.(map[string]any)
	var body string
	switch tool {
	case "Bash", "PowerShell":
		body = str(m, "command")
	case "Write":
		body = pathsOf(m)
		if c, ok := m["content"].(string); ok {
			body += " (" + HumanBytes(len(c)) + ")"
		}
	case "Edit":
		body = pathsOf(m)
	case "MultiEdit":
		body = pathsOf(m)
		if e, ok := m["edits"].([]any); ok {
			body += fmt.Sprintf(" (%d edits)", len(e))
		}
	case "Read", "NotebookEdit":
		body = pathsOf(m)
	case "Glob", "Grep":
		body = str(m, "pattern")
		if p := str(m, "path"); p != "" {
			body += " in " + p
		}
	case "WebFetch":
		body = str(m, "url")
		if u, ok := m["urls"].([]any); ok && len(u) > 1 {
			body += fmt.Sprintf(" (+%d more)", len(u)-1)
		}
	case "WebSearch":
		body = str(m, "query")
	case "Agent", "Task":
		body = str(m, "subagent_type")
		if d := str(m, "description"); d != "" {
			if body != "" {
				body += ": "
			}
			body += d
		}
	default:
		body = opaqueArgs(m)
	}
	line := tool
	if body != "" {
		line += ": " + body
	}
	// Redact before clipping (a clipped secret may no longer match its
	// pattern), but only a window of the text: a 10 MB command must not
	// cost a 10 MB scan to produce 300 characters.
	window := max*utf8.UTFMax + 1024
	if len(line) > window {
		line = line[:window]
	}
	line, _ = Redact(line)
	return termtext.Clip(termtext.Flatten(line), max)
}

// contentKeys hold payloads, never shown in a summary of an opaque tool.
var contentKeys = map[string]bool{
	"content": true, "contents": true, "body": true, "text": true, "data": true, "patch": true,
	"code": true, "new_string": true, "old_string": true, "newstring": true, "oldstring": true,
	"input": true, "source": true, "new_source": true, "diff": true, "message": true, "prompt": true,
	"file_text": true, "edits": true,
}

func opaqueArgs(m map[string]any) string {
	if len(m) == 0 {
		return ""
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		switch v := m[k].(type) {
		case string:
			if contentKeys[strings.ToLower(k)] || IsSecretKey(k) || utf8.RuneCountInString(v) > 80 {
				parts = append(parts, k+"=<"+HumanBytes(len(v))+">")
			} else {
				parts = append(parts, k+"="+v)
			}
		case map[string]any:
			parts = append(parts, k+"={…}")
		case []any:
			parts = append(parts, fmt.Sprintf("%s=[%d]", k, len(v)))
		case nil:
			parts = append(parts, k+"=null")
		default:
			parts = append(parts, fmt.Sprintf("%s=%v", k, v))
		}
	}
	return strings.Join(parts, ", ")
}

func pathsOf(m map[string]any) string {
	var paths []string
	if ps, ok := m["file_paths"].([]any); ok {
		for _, p := range ps {
			if s, ok := p.(string); ok {
				paths = append(paths, s)
			}
		}
	}
	if len(paths) == 0 {
		p := str(m, "file_path")
		if p == "" {
			p = str(m, "notebook_path")
		}
		return p
	}
	const show = 3
	if len(paths) <= show {
		return strings.Join(paths, ", ")
	}
	return strings.Join(paths[:show], ", ") + fmt.Sprintf(" (+%d more)", len(paths)-show)
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

// HumanBytes renders a size the way a person reads it: 512 B, 1.2 KB, 3.4 MB.
func HumanBytes(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	default:
		return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
	}
}

// OneLine is s redacted, flattened to one line and clipped to max runes:
// for reasons and messages that come from elsewhere and must fit one line
// of a terminal or journal.
func OneLine(s string, max int) string {
	r, _ := Redact(s)
	return termtext.Clip(termtext.Flatten(r), max)
}
