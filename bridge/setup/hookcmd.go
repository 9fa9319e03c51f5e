package setup

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/leasedeck/leasedeck/bridge"
	"mvdan.cc/sh/v3/syntax"
)

// HookCommand is a `leasedeck hook CLIENT` command line as install writes
// it: the executable, the client, the workspace it is pinned to and the
// hook timeout it was told.
type HookCommand struct {
	Exe       string
	Client    string
	Workspace string // "" for an unpinned hook (an install from before pinning)
	Timeout   int    // seconds; 0 when the command names none
}

// FormatHookCommand is the command line install writes for a hook pinned
// to workspace (unpinned when workspace is ""), every word quoted for the
// shell the client runs it with.
func FormatHookCommand(exe, client, workspace string, timeoutSeconds int) string {
	words := []string{ShellQuote(exe), "hook", client}
	if workspace != "" {
		words = append(words, "--workspace", ShellQuote(workspace))
	}
	words = append(words, "--timeout", strconv.Itoa(timeoutSeconds))
	return strings.Join(words, " ")
}

// ShellQuote quotes s for a POSIX shell when it needs it.
func ShellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ParseHookCommand reads a handler's command line back. It accepts only a
// single simple command whose words are literal (plain, single- or
// double-quoted without expansions): anything the shell would expand,
// redirect or chain is not a command install wrote, and is not read as
// one (what the shell would run could differ from what it appears to say).
func ParseHookCommand(cmd string) (HookCommand, bool) {
	words, ok := literalWords(cmd)
	if !ok || len(words) < 3 || words[1] != "hook" {
		return HookCommand{}, false
	}
	a, err := bridge.AdapterFor(words[2])
	if err != nil {
		return HookCommand{}, false
	}
	hc := HookCommand{Exe: words[0], Client: a.Name()}
	for i := 3; i < len(words); i++ {
		name, val, hasVal := strings.Cut(strings.TrimLeft(words[i], "-"), "=")
		if !strings.HasPrefix(words[i], "-") {
			return HookCommand{}, false
		}
		if !hasVal {
			if i+1 >= len(words) {
				return HookCommand{}, false
			}
			i++
			val = words[i]
		}
		switch name {
		case "workspace":
			hc.Workspace = val
		case "timeout":
			n, err := strconv.Atoi(val)
			if err != nil {
				return HookCommand{}, false
			}
			hc.Timeout = n
		default:
			return HookCommand{}, false
		}
	}
	return hc, true
}

// literalWords splits a one-command line into its literal words.
func literalWords(cmd string) ([]string, bool) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
	if err != nil || len(f.Stmts) != 1 {
		return nil, false
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || st.Negated || st.Background || st.Coprocess || len(st.Redirs) > 0 || len(call.Assigns) > 0 || len(call.Args) == 0 {
		return nil, false
	}
	words := make([]string, 0, len(call.Args))
	for _, w := range call.Args {
		var b strings.Builder
		for _, p := range w.Parts {
			switch x := p.(type) {
			case *syntax.Lit:
				v, ok := unescape(x.Value, "")
				if !ok {
					return nil, false
				}
				b.WriteString(v)
			case *syntax.SglQuoted:
				if x.Dollar {
					return nil, false
				}
				b.WriteString(x.Value)
			case *syntax.DblQuoted:
				for _, q := range x.Parts {
					l, ok := q.(*syntax.Lit)
					if !ok {
						return nil, false
					}
					v, ok := unescape(l.Value, "$`\"\\")
					if !ok {
						return nil, false
					}
					b.WriteString(v)
				}
			default:
				return nil, false
			}
		}
		if len(w.Parts) == 1 {
			if l, ok := w.Parts[0].(*syntax.Lit); ok && strings.HasPrefix(l.Value, "~") {
				return nil, false // the shell would expand it
			}
		}
		words = append(words, b.String())
	}
	return words, true
}

// unescape removes the shell's backslashes from a literal: outside quotes
// (only "") a backslash takes the next character as it is; inside double
// quotes only before one of special. A backslash-newline (a line
// continuation) is refused.
func unescape(s, special string) (string, bool) {
	if !strings.Contains(s, `\`) {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 >= len(s) || s[i+1] == '\n' {
			return "", false
		}
		if special != "" && !strings.ContainsRune(special, rune(s[i+1])) {
			b.WriteByte('\\')
			continue
		}
		i++
		b.WriteByte(s[i])
	}
	return b.String(), true
}

// Owner says which handlers in a settings file are the ones install wrote
// for one client and workspace: the command lines install writes now and
// the older forms it replaces (Commands, exactly), and any `leasedeck hook
// CLIENT` line pinned to Workspace whatever its executable or timeout (the
// binary may have moved, the policy's approval timeout changed). An
// unpinned line with another executable may be any workspace's: it is
// reported, never taken.
type Owner struct {
	Client    string
	Workspace string
	Commands  []string
}

// OwnsCommand reports whether cmd is one of ours.
func (o Owner) OwnsCommand(cmd string) bool {
	cmd = strings.TrimSpace(cmd)
	for _, c := range o.Commands {
		if cmd == strings.TrimSpace(c) {
			return true
		}
	}
	hc, ok := ParseHookCommand(cmd)
	return ok && hc.Client == o.Client && hc.Workspace != "" && o.Workspace != "" &&
		filepath.Clean(hc.Workspace) == filepath.Clean(o.Workspace)
}

// owns reports whether a handler object is ours: one of our commands, or
// (Claude Code) an HTTP hook to a leasedeck registry's loopback endpoint.
func (o Owner) owns(h *jsonObject) bool {
	if bridge.RuntimeAgent(o.Client) == "claude-code" && isOurHTTPHook(h) {
		return true
	}
	cs := handlerCommand(h)
	return cs != "" && o.OwnsCommand(cs)
}

// handlerCommand is a command handler's command line: "command", or
// Copilot CLI's "bash".
func handlerCommand(h *jsonObject) string {
	for _, k := range []string{"command", "bash"} {
		if v, ok := h.get(k); ok {
			s, _ := v.(string)
			return s
		}
	}
	return ""
}
