package workspace

import (
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/leasedeck/leasedeck/registry"
)

// DefaultProtectedWrites are policy.json's default "protected_writes":
// files that make a later, ordinary command run a program — git hooks and
// local git config, CI workflows, editor tasks, MCP server lists, Claude
// Code's user state, and the configurations of the commit-hook tools
// (husky, pre-commit, lefthook), which run what they name at the human's
// next commit. No lease may write them (the registry adds its own
// files and every client's hook settings, registry.ImplicitProtectedWrites,
// whatever the file says). Reading them stays allowed: `grep -r` over a
// repository reads .git/config.
var DefaultProtectedWrites = []string{".git/**", ".github/workflows/**",
	".vscode/tasks.json", ".mcp.json", "~/.claude.json",
	".husky/**", ".pre-commit-config.yaml", "lefthook.yml", "lefthook.yaml", ".lefthook.yml",
	".lefthook.yaml", "lefthook-local.yml", "lefthook-local.yaml"}

// parseCallRules reads "protected_writes" (absent: the defaults; [] turns
// them off) and "hold_secrets" (absent: true) from policy.json.
func parseCallRules(path string, obj map[string]any) (registry.CallRules, error) {
	rules := registry.CallRules{ProtectedWrites: DefaultProtectedWrites, ProtectedDirs: ProtectedDirs()}
	if raw, present := obj["protected_writes"]; present {
		items, ok := raw.([]any)
		if !ok {
			return rules, &PolicyError{Path: path, Pointer: "/protected_writes", Msg: "expected an array of path globs"}
		}
		rules.ProtectedWrites = make([]string, 0, len(items))
		for i, it := range items {
			g, ok := it.(string)
			if !ok || !validProtectedGlob(g) {
				return rules, &PolicyError{Path: path, Pointer: "/protected_writes/" + strconv.Itoa(i),
					Msg: "expected a workspace- or home-relative glob (no leading /, no .. segment, no backslash)"}
			}
			rules.ProtectedWrites = append(rules.ProtectedWrites, g)
		}
	}
	if raw, present := obj["hold_secrets"]; present {
		hold, ok := raw.(bool)
		if !ok {
			return rules, &PolicyError{Path: path, Pointer: "/hold_secrets", Msg: "expected true or false"}
		}
		rules.PassSecrets = !hold
	}
	return rules, nil
}

// validProtectedGlob accepts what a manifest's deny.paths accepts.
func validProtectedGlob(g string) bool {
	if g == "" || strings.HasPrefix(g, "/") || strings.Contains(g, `\`) {
		return false
	}
	for _, seg := range strings.Split(g, "/") {
		if seg == ".." {
			return false
		}
	}
	return doublestar.ValidatePattern(strings.TrimPrefix(strings.TrimPrefix(g, "~"), "/"))
}
