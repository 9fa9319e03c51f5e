package registry

import (
	"path/filepath"
	"strings"
	"testing"
)

// A git command that rewrites the work tree writes from the repository's
// top level wherever in it it runs: `cd src && git reset --hard` restores
// ../.mcp.json as well. An agent that planted a protected file in the
// index or a commit (git update-index --cacheinfo, git commit) must not
// get it written by running the rewrite from a subdirectory, or from a
// shell whose cwd is one: the gate reads what each command writes from the
// repository (the index planted, a branch and a stash entry carrying
// .mcp.json) and refuses the protected path.
func TestWorkTreeRewriteFromASubdirectory(t *testing.T) {
	f := newFixture(t)
	f.svc.cfg.Calls.ProtectedWrites = []string{".git/hooks/**", ".git/config", ".mcp.json"}
	gitSteps(t, f.dir, "git init -q . && mkdir -p src && echo a > src/a.go && git add src && git commit -qm one",
		"git checkout -qb topic && echo '{}' > .mcp.json && git add .mcp.json && git commit -qm mcp && git checkout -q main",
		"echo '{}' > .mcp.json && git add .mcp.json && git stash -q",
		"git update-index --add --cacheinfo 100644,$(echo '{}' | git hash-object -w --stdin),.mcp.json")
	id := f.issue(agentManifest("worktree", 100, func(m map[string]any) {
		m["approvals"] = []any{}
	}), "")
	for _, c := range []struct {
		line, cwd string
		want      Verdict
	}{
		{"cd src && git reset --hard", "", VerdictDeny},
		{"git -C src reset --hard", "", VerdictDeny},
		{"cd src && git stash", "", VerdictDeny},
		{"cd src && git checkout topic", "", VerdictDeny},
		{"cd src && git merge topic", "", VerdictDeny},
		{"git -C src checkout-index -a", "", VerdictDeny},
		{"git reset --hard", "src", VerdictDeny},
		{"git stash pop", "src", VerdictDeny},
		{"git update-index --add --cacheinfo 100644,9e26dfeeb6e641a33dae4961196235bdb965b21b,.mcp.json", "", VerdictDeny},
		{"git update-index --add --cacheinfo 100644 9e26dfeeb6e641a33dae4961196235bdb965b21b .mcp.json", "", VerdictDeny},
		{"git update-index --add --cacheinfo 100644,9e26dfeeb6e641a33dae4961196235bdb965b21b,../.mcp.json", "src", VerdictDeny},
		{"git update-index --index-info", "", VerdictDeny},
		{"git ls-files -s | git update-index --stdin", "", VerdictDeny},
		// What stays allowed: paths inside the subdirectory, index flags.
		{"git checkout -- .", "src", VerdictAllow},
		{"cd src && git checkout HEAD -- .", "", VerdictAllow},
		{"git update-index --refresh", "", VerdictAllow},
		{"git update-index --add src/a.go", "", VerdictAllow},
		{"git status", "src", VerdictAllow},
	} {
		in := map[string]any{"command": c.line}
		if c.cwd != "" {
			in["cwd"] = filepath.Join(f.dir, c.cwd)
		}
		got := f.gate(id, "Bash", in)
		if got.Verdict != c.want {
			t.Errorf("%s (cwd %q): %s (%s), want %s", c.line, c.cwd, got.Verdict, got.Reason, c.want)
		}
		if c.want == VerdictDeny && strings.Contains(c.line, "reset --hard") && !strings.Contains(got.Reason, ".mcp.json") {
			t.Errorf("%s: refused for another reason: %s", c.line, got.Reason)
		}
	}
}
