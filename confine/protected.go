package confine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// protectedGlobPaths turns the policy's protected-write globs (and the
// registry's implicit ones: every client's hook configuration and plugins,
// MCP server lists, editor tasks, CI workflows) into the paths the tree
// must not write. The gate refuses those writes when it can see them; a
// program the lease lets run (make, npm, an interpreter) writes where the
// gate cannot look, and what it plants there runs later, outside the
// confinement: when the human opens the editor, starts another client or
// pushes. So the kernel holds them too.
//
//   - A glob without wildcards is its path ("~/.claude.json").
//   - "dir/**", "dir/*" and any other glob with wildcards is the directory
//     before its first wildcard (".github/workflows/**" → .github/workflows,
//     ".claude/settings*.json" → .claude): a name that does not exist yet
//     cannot be protected one by one, and a directory can.
//   - A glob whose directory is the workspace or the home directory itself
//     is the files it matches now: the whole workspace cannot be read-only.
//   - A glob over git's own directory is left to gitProtected: git must
//     write its objects, index and refs; its hooks and config are what run
//     code.
//   - A path that is, or holds, the client's own state is left out: the
//     client must write there. Its hook configuration inside that state is
//     the profile's HookConfig, protected by name.
func protectedGlobPaths(globs []string, ws, home string, state []string) ([]string, error) {
	var out []string
	for _, g := range globs {
		base, rest := splitGlob(g)
		abs := expand(base, ws, home)
		if isGitDir(abs) {
			continue
		}
		paths := []string{abs}
		if rest != "" && (abs == ws || abs == home) {
			m, err := denyMatches([]string{g}, ws, home)
			if err != nil {
				return nil, fmt.Errorf("protected write %q: %w", g, err)
			}
			paths = m
		}
		for _, p := range paths {
			if holdsState(p, state) || missingHookMachinery(p) {
				continue
			}
			out = append(out, p)
		}
	}
	return out, nil
}

// hookMachinery are the configurations of the commit-hook tools that
// policy.json protects by default (workspace.DefaultProtectedWrites).
// Each runs only through a hook that git's own directory holds (husky's
// core.hooksPath, the shims pre-commit and lefthook install in
// .git/hooks), which no run can write: where the configuration is
// missing, the tool is not installed, and a file planted there runs
// nothing. So a missing one is left missing rather than held by a
// placeholder that would show in every confined run's work tree.
var hookMachinery = map[string]bool{".husky": true, ".pre-commit-config.yaml": true,
	"lefthook.yml": true, "lefthook.yaml": true, ".lefthook.yml": true, ".lefthook.yaml": true,
	"lefthook-local.yml": true, "lefthook-local.yaml": true}

// missingHookMachinery: p is a hook tool's configuration that does not
// exist (see hookMachinery).
func missingHookMachinery(p string) bool {
	if !hookMachinery[filepath.Base(p)] {
		return false
	}
	_, err := os.Lstat(p)
	return errors.Is(err, fs.ErrNotExist)
}

// isGitDir: p is a repository's .git directory.
func isGitDir(p string) bool {
	return filepath.Base(p) == ".git"
}

// holdsState: p is one of the client's state paths or lies above one.
func holdsState(p string, state []string) bool {
	for _, s := range state {
		if within(s, p) {
			return true
		}
	}
	return false
}

// stateOf is every path the profile lets the client write, made absolute.
func stateOf(prof Profile, ws, home string) []string {
	var out []string
	for _, s := range append(append([]string(nil), prof.State...), prof.StateFiles...) {
		out = append(out, filepath.Clean(expand(s, ws, home)))
	}
	return out
}

// placeholderContent is what a missing protected file is created with so
// that a read-only bind can hold it: what the program that reads the file
// takes as "nothing configured".
func placeholderContent(p string) string {
	switch {
	case filepath.Base(p) == ".mcp.json":
		return "{\"mcpServers\":{}}\n"
	case strings.HasSuffix(p, ".json"), strings.HasSuffix(p, ".jsonc"):
		return "{}\n"
	}
	return ""
}
