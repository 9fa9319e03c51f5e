package registry

import (
	"strings"
	"testing"
)

// A git command that writes a tree of the workspace's repository into the
// work tree copies a denied file's bytes to a name the deny list does not
// match: git worktree add src/wt writes src/wt/.env, git clone . src/c
// writes src/c/.env, and a plain cat reads them. Real git shows the copy
// holds the secret; the gate refuses (or holds) the copying line.
func TestGateRefusesGitCopiesOfDeniedFiles(t *testing.T) {
	for _, tc := range []struct {
		copy, read string
	}{
		{"git worktree add src/wt", "cat src/wt/.env"},
		{"git worktree add src/wt HEAD", "cat src/wt/.env"},
		{"git worktree add --detach src/wt", "cat src/wt/.env"},
		{"git worktree add -b side src/wt", "cat src/wt/.env"},
		{"git worktree add -f src/wt main", "cat src/wt/.env"},
		{"git branch wt && git worktree add src/wt", "cat src/wt/.env"},
		{"git clone -q . src/c", "cat src/c/.env"},
		{"git clone -q ./ src/c", "cat src/c/.env"},
		{"git clone -q --no-local . src/c", "cat src/c/.env"},
		{"git clone -q -b main . src/c", "cat src/c/.env"},
		{"git clone -q \"file://$PWD\" src/c", ""},
		{"cd src && git clone -q .. c", "cat src/c/.env"},
		{"git -C src clone -q .. c", "cat src/c/.env"},
		// A bare copy writes no file from the tree; a clone of it is a
		// command in a repository the agent wrote, held.
		{"git clone -q --bare . src/b && git clone -q src/b src/c", "cat src/c/.env"},
	} {
		t.Run(tc.copy, func(t *testing.T) {
			f, lease := gitObjectsFixture(t, gitCommitted...)
			ans := f.svc.Gate(t.Context(), GateRequest{LeaseID: lease, Call: ToolCall{Tool: "Bash", Input: map[string]any{"command": tc.copy}}, Client: "test", DryRun: true})
			if ans.Verdict == VerdictAllow {
				t.Errorf("%q: allowed (%s), want it refused or held", tc.copy, ans.Reason)
			}
			if tc.read == "" {
				return
			}
			gitOut(t, f.dir, tc.copy)
			if out := gitOut(t, f.dir, tc.read); !strings.Contains(out, gitSecret) {
				t.Errorf("%q after %q: real git wrote no copy of the secret, so the line is no attack:\n%s", tc.read, tc.copy, out)
			}
		})
	}
	// The second step alone, once the bare copy is made.
	f, lease := gitObjectsFixture(t, append(append([]string{}, gitCommitted...), "git clone -q --bare . src/b")...)
	for _, line := range []string{"git clone -q src/b src/c", "git clone src/b/ src/c", "git worktree add src/wt"} {
		ans := f.svc.Gate(t.Context(), GateRequest{LeaseID: lease, Call: ToolCall{Tool: "Bash", Input: map[string]any{"command": line}}, Client: "test", DryRun: true})
		if ans.Verdict == VerdictAllow {
			t.Errorf("%q after a bare clone: allowed (%s), want it refused or held", line, ans.Reason)
		}
	}
	// Ordinary lines stay allowed.
	f, lease = gitObjectsFixture(t, "mkdir -p src && echo 'package a' > src/a.go && git add . && git commit -qm one")
	for _, line := range []string{"git worktree add src/wt", "git worktree add --no-checkout src/x", "git worktree list",
		"git clone -q . src/c", "git clone https://github.com/x/y src/y"} {
		ans := f.svc.Gate(t.Context(), GateRequest{LeaseID: lease, Call: ToolCall{Tool: "Bash", Input: map[string]any{"command": line}}, Client: "test", DryRun: true})
		if ans.Verdict != VerdictAllow {
			t.Errorf("%q with nothing denied committed: %s %s, want allow", line, ans.Verdict, ans.Reason)
		}
	}
}
