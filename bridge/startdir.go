package bridge

import (
	"path/filepath"
	"strings"

	"github.com/leasedeck/leasedeck/vocab"
)

// setShellStartDir sets the directory a shell call starts in, which the
// gate resolves the line's relative paths against: the hook payload's cwd
// (Claude Code keeps its shell's directory from one call to the next), and
// for Codex the call's workdir, relative to it. A cwd member that arrived in
// a Claude Code Bash input is not a parameter of the tool, and an agent
// could put anything there, so it is replaced (or dropped when the payload
// names no directory).
func setShellStartDir(tc *ToolCall, client, payloadCwd string, in map[string]any) {
	if tc == nil || tc.Input == nil || !vocab.IsShell(tc.Name) {
		return
	}
	delete(tc.Input, "cwd")
	dir := payloadCwd
	// The member that names the directory a call runs in, relative to
	// the payload's cwd.
	workdir := map[string]string{"codex": "workdir", "qwen-code": "directory"}[client]
	if workdir != "" {
		if w, ok := in[workdir].(string); ok && w != "" {
			if filepath.IsAbs(w) || dir == "" {
				dir = w
			} else {
				dir = joinSpelled(dir, w)
			}
		}
	}
	if dir != "" {
		tc.Input["cwd"] = dir
	}
}

// joinSpelled is dir/p as spelled, not cleaned: a ".." after a symbolic
// link leads elsewhere for the kernel (which the client's shell and its
// file operations use) than for a lexical clean, and the gate, which
// resolves a path both ways, must see the ".." to do so.
func joinSpelled(dir, p string) string {
	if !hasDotDot(dir) && !hasDotDot(p) {
		return filepath.Join(dir, p)
	}
	return strings.TrimRight(dir, string(filepath.Separator)) + string(filepath.Separator) + p
}

func hasDotDot(p string) bool {
	for _, c := range strings.Split(filepath.ToSlash(p), "/") {
		if c == ".." {
			return true
		}
	}
	return false
}
