package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Under the default claude-code lease, in a workspace whose repository has
// .env (denied) committed, git worktree add and a clone of the workspace's
// own repository write .env's bytes under src/, where the deny list does
// not reach: through the built hook against a real registry, both are
// refused, and real git shows the copy would hold the secret.
func TestHookRefusesGitCopiesOfDeniedFiles(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	const secret = "SECRET=hunter2-copy"
	w := newWorkspace(t)
	home := t.TempDir()
	sh := func(line string) string {
		t.Helper()
		c := exec.Command("bash", "-c", line)
		c.Dir = w.dir
		c.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com"}
		out, _ := c.CombinedOutput()
		return string(out)
	}
	if out := sh("git init -q . && mkdir -p src && echo 'package a' > src/a.go && echo " + secret + " > .env && git add .env src && git commit -qm one && git rev-parse HEAD"); len(strings.TrimSpace(out)) != 40 {
		t.Fatalf("setting up the repository: %s", out)
	}
	w.serve()
	for _, c := range []struct{ copy, read string }{
		{"git worktree add src/wt", "cat src/wt/.env"},
		{"git clone -q . src/c", "cat src/c/.env"},
	} {
		r := w.hook("claude-code", w.payload("claude-code", "PreToolUse", func(m map[string]any) {
			m["tool_input"].(map[string]any)["command"] = c.copy
		}))
		if got := r.stdout + r.stderr; !strings.Contains(got, `"permissionDecision":"deny"`) || !strings.Contains(got, "content of .env") {
			t.Errorf("%q: %s, want it refused as the content of .env", c.copy, got)
		}
		sh(c.copy)
		if out := sh(c.read); !strings.Contains(out, secret) {
			t.Errorf("%q after %q: no copy of the secret, so the line is no attack:\n%s", c.read, c.copy, out)
		}
	}
}
