package registry

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The git repository an ordinary git command uses is whichever git finds
// from its working directory. One the agent made, or one whose
// configuration points into files the agent can write, decides what git
// runs (core.fsmonitor on git status, hooks on git commit): such a command
// is held for a human. Each variant is planted the way an agent could
// (files written in the workspace), then checked through the service's
// Gate; where git is installed, the same command is run by real git to
// show the planted program really runs when the gate is not there.

// gitProtected are the default protected writes (the workspace package's
// defaults, which this package cannot import).
var gitProtected = []string{".git/**", ".github/workflows/**", ".vscode/tasks.json", ".mcp.json", "~/.claude.json"}

// gitFixture is a service whose workspace is a git repository, whose root
// policy allows the programs the variants use, and whose call rules are
// the default policy's.
func gitFixture(t *testing.T) *fixture {
	t.Helper()
	f := newFixtureWith(t, func(c *Config) {
		c.Calls = CallRules{ProtectedWrites: gitProtected}
		c.Root = mustManifest(t, map[string]any{
			"schema_version": "1.2",
			"agent":          map[string]any{"name": "root", "kind": "native", "runtime_agent": "unknown"},
			"intent":         map[string]any{"purpose": "root policy"},
			"allow": map[string]any{"tools": []any{"Bash", "Read", "Write", "Edit"},
				"read_paths": []any{"**"}, "write_paths": []any{"**"}, "hosts": []any{"*"},
				"commands": []any{"ls", "cat", "git", "echo", "sed", "find", "grep", "cp", "mv", "tee", "ln", "rm", "mkdir"}},
			"deny":      map[string]any{"commands": []any{"sudo"}, "paths": []any{".leasedeck/**"}, "hosts": []any{}},
			"budget":    map[string]any{"depth": int64(4), "fan_out": int64(8)},
			"approvals": []any{},
		})
	})
	makeRepo(t, filepath.Join(f.dir, ".git"), "[core]\n\trepositoryformatversion = 0\n\tbare = false\n")
	return f
}

// gitLease is the strict lease of the threat corpus (ls cat git echo sed
// find grep, no approvals), writing anywhere in the workspace: the
// protection must not depend on write_paths.
func gitLease(f *fixture, extra ...string) string {
	cmds := []any{"ls", "cat", "git", "echo", "sed", "find", "grep"}
	for _, c := range extra {
		cmds = append(cmds, c)
	}
	return f.issue(agentManifest("git", 1000, func(m map[string]any) {
		m["allow"] = map[string]any{"tools": []any{"Bash", "Read", "Write", "Edit"}, "read_paths": []any{"**"},
			"write_paths": []any{"**"}, "hosts": []any{"github.com"}, "commands": cmds}
		m["approvals"] = []any{}
	}), "")
}

// makeRepo writes a git directory by hand: what git init makes, as far
// as git's discovery looks (HEAD, objects, refs) and a configuration.
func makeRepo(t *testing.T, gitDir, config string) {
	t.Helper()
	for _, d := range []string{"objects", "refs/heads", "hooks", "info"} {
		if err := os.MkdirAll(filepath.Join(gitDir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(gitDir, "HEAD"), "ref: refs/heads/main\n", 0o644)
	writeFile(t, filepath.Join(gitDir, "config"), config, 0o644)
}

func writeFile(t *testing.T, p, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

// pwnConfig is a repository configuration whose fsmonitor (run by git
// status) and ssh command (run by git fetch) leave a mark.
func pwnConfig(mark string) string {
	return "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = \"touch " + mark + "; false\"\n" +
		"\tsshCommand = \"touch " + mark + "; false\"\n[remote \"origin\"]\n\turl = ssh://git@github.com/x/y\n"
}

func pwnHook(mark string) string { return "#!/bin/sh\ntouch " + mark + "\n" }

type gitVariant struct {
	name  string
	plant func(t *testing.T, ws, mark string) // what the agent wrote before
	cmd   string
	cwd   string // the Bash call's cwd member, relative to the workspace; "" is the workspace
	// honest: real git, given the planted files, runs the planted program
	// on cmd (checked where git is installed). False where running cmd
	// needs the network (git clone).
	honest bool
}

var gitVariants = []gitVariant{
	{name: "nested .git, git -C", plant: nestedRepo, cmd: "git -C d status", honest: true},
	{name: "nested .git, cd", plant: nestedRepo, cmd: "cd d && git status", honest: true},
	{name: "nested .git, shell already there", plant: nestedRepo, cmd: "git status", cwd: "d", honest: true},
	{name: "nested .git, below it", plant: nestedRepo, cmd: "cd d/sub && git status", honest: true},
	{name: "nested .git, --git-dir", plant: nestedRepo, cmd: "git --git-dir=d/.git --work-tree=d status", honest: true},
	{name: "nested .git, fetch", plant: nestedRepo, cmd: "cd d && git fetch origin", honest: true},
	{name: "nested hooks, commit", plant: nestedHook, cmd: "git -C d commit --allow-empty -m x", honest: true},
	{name: "gitfile to an agent-made directory", plant: gitfileRepo, cmd: "git -C d status", honest: true},
	{name: "bare repository of plain files, -C", plant: bareRepo, cmd: "git -C x fetch origin", honest: true},
	{name: "bare repository of plain files, cd", plant: bareRepo, cmd: "cd x && git fetch origin", honest: true},
	{name: "a link to a repository", plant: linkedRepo, cmd: "cd link && git status", honest: true},
	{name: "root commondir into the workspace", plant: rootCommondir, cmd: "git status", honest: true},
	{name: "root .git a link into the workspace", plant: rootGitLink, cmd: "git status", honest: true},
	{name: "hooksPath into the work tree (husky)", plant: huskyHooks, cmd: "git commit --allow-empty -m x", honest: true},
	{name: "hooksPath into the work tree, absolute", plant: absHooks, cmd: "git commit --allow-empty -m x", honest: true},
	{name: "include of a work-tree file", plant: includeWorkTree, cmd: "git status", honest: true},
	{name: "fsmonitor a program in the work tree", plant: workTreeFsmonitor, cmd: "git status", honest: true},
	{name: "includeIf of a work-tree file", plant: includeIfWorkTree, cmd: "git status", honest: true},
	{name: "same line: init, config, status", plant: func(*testing.T, string, string) {},
		cmd: "git init d && echo '[core] fsmonitor = \"touch MARK; false\"' > d/.git/config && git -C d status", honest: true},
	{name: "same line: clone then log", plant: func(*testing.T, string, string) {},
		cmd: "git clone https://github.com/x/y b && git -C b log"},
	{name: "same line: files of a bare repository", plant: func(*testing.T, string, string) {},
		cmd: "mkdir -p x/objects x/refs && echo 'ref: refs/heads/m' > x/HEAD && echo '[core] fsmonitor = \"touch MARK; false\"' > x/config && cd x && git --work-tree=. status", honest: true},
	{name: "a directory that does not exist yet", plant: func(*testing.T, string, string) {}, cmd: "git -C nope status"},
}

func nestedRepo(t *testing.T, ws, mark string) {
	makeRepo(t, filepath.Join(ws, "d", ".git"), pwnConfig(mark))
	writeFile(t, filepath.Join(ws, "d", "sub", "f"), "x\n", 0o644)
}

func nestedHook(t *testing.T, ws, mark string) {
	makeRepo(t, filepath.Join(ws, "d", ".git"), "[core]\n\trepositoryformatversion = 0\n")
	writeFile(t, filepath.Join(ws, "d", ".git", "hooks", "pre-commit"), pwnHook(mark), 0o755)
}

func gitfileRepo(t *testing.T, ws, mark string) {
	makeRepo(t, filepath.Join(ws, "evil"), pwnConfig(mark))
	writeFile(t, filepath.Join(ws, "d", ".git"), "gitdir: ../evil\n", 0o644)
}

func bareRepo(t *testing.T, ws, mark string) {
	makeRepo(t, filepath.Join(ws, "x"), pwnConfig(mark)+"[core]\n\tbare = true\n")
}

func linkedRepo(t *testing.T, ws, mark string) {
	nestedRepo(t, ws, mark)
	if err := os.Symlink("d", filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
}

// rootCommondir: .git/commondir was writable before .git/** was
// protected; one left from then sends git's configuration elsewhere.
func rootCommondir(t *testing.T, ws, mark string) {
	makeRepo(t, filepath.Join(ws, "shared"), pwnConfig(mark))
	writeFile(t, filepath.Join(ws, ".git", "commondir"), "../shared\n", 0o644)
}

func rootGitLink(t *testing.T, ws, mark string) {
	if err := os.RemoveAll(filepath.Join(ws, ".git")); err != nil {
		t.Fatal(err)
	}
	makeRepo(t, filepath.Join(ws, "gitdata"), pwnConfig(mark))
	if err := os.Symlink("gitdata", filepath.Join(ws, ".git")); err != nil {
		t.Fatal(err)
	}
}

// huskyHooks: the human's tooling set core.hooksPath to .husky (husky
// does); the agent writes .husky/pre-commit.
func huskyHooks(t *testing.T, ws, mark string) {
	writeFile(t, filepath.Join(ws, ".git", "config"), "[core]\n\trepositoryformatversion = 0\n\thooksPath = .husky\n", 0o644)
	writeFile(t, filepath.Join(ws, ".husky", "pre-commit"), pwnHook(mark), 0o755)
}

func absHooks(t *testing.T, ws, mark string) {
	writeFile(t, filepath.Join(ws, ".git", "config"), "[core]\n\trepositoryformatversion = 0\n\thooksPath = "+ws+"/tools/hooks\n", 0o644)
	writeFile(t, filepath.Join(ws, "tools", "hooks", "pre-commit"), pwnHook(mark), 0o755)
}

// workTreeFsmonitor: the human's configuration runs a program of the
// work tree; the agent rewrites the program.
func workTreeFsmonitor(t *testing.T, ws, mark string) {
	writeFile(t, filepath.Join(ws, ".git", "config"), "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = ./tools/fsmon.sh\n", 0o644)
	writeFile(t, filepath.Join(ws, "tools", "fsmon.sh"), pwnHook(mark)+"exit 1\n", 0o755)
}

func includeWorkTree(t *testing.T, ws, mark string) {
	writeFile(t, filepath.Join(ws, ".git", "config"), "[core]\n\trepositoryformatversion = 0\n[include]\n\tpath = ../.gitconfig.local\n", 0o644)
	writeFile(t, filepath.Join(ws, ".gitconfig.local"), pwnConfig(mark), 0o644)
}

func includeIfWorkTree(t *testing.T, ws, mark string) {
	writeFile(t, filepath.Join(ws, ".git", "config"), "[core]\n\trepositoryformatversion = 0\n[includeIf \"gitdir:"+ws+"/\"]\n\tpath = "+ws+"/cfg/git\n", 0o644)
	writeFile(t, filepath.Join(ws, "cfg", "git"), pwnConfig(mark), 0o644)
}

func TestGateHoldsGitInARepositoryTheAgentCanWrite(t *testing.T) {
	for _, v := range gitVariants {
		t.Run(v.name, func(t *testing.T) {
			f := gitFixture(t)
			lease := gitLease(f, "mkdir")
			mark := filepath.Join(f.dir, "PWNED")
			v.plant(t, f.dir, mark)
			cmd := strings.ReplaceAll(v.cmd, "MARK", mark)
			in := map[string]any{"command": cmd}
			if v.cwd != "" {
				in["cwd"] = filepath.Join(f.dir, v.cwd)
			}
			ans := f.svc.Gate(t.Context(), GateRequest{LeaseID: lease, Call: ToolCall{Tool: "Bash", Input: in}, Client: "test", DryRun: true})
			if ans.Verdict != VerdictAsk {
				t.Errorf("%q: %s (%s), want it held for a human", cmd, ans.Verdict, ans.Reason)
			} else if !strings.Contains(ans.Reason, "git") {
				t.Errorf("%q: held for %q, which does not say why git is", cmd, ans.Reason)
			}
			t.Logf("%s: %s", ans.Verdict, ans.Reason)
			if v.honest {
				realGitRuns(t, f.dir, v.cwd, cmd, mark)
			}
		})
	}
}

// realGitRuns runs cmd with real git and bash in ws (an isolated home, no
// system configuration) and fails unless it leaves mark: the variant is
// an attack, not a guess.
func realGitRuns(t *testing.T, ws, cwd, cmd, mark string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Log("git is not installed: the variant is not run")
		return
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Log("bash is not installed: the variant is not run")
		return
	}
	home := t.TempDir()
	writeFile(t, filepath.Join(home, ".gitconfig"), "[user]\n\tname = t\n\temail = t@example.com\n[safe]\n\tdirectory = *\n", 0o644)
	c := exec.Command(bash, "-c", cmd)
	c.Dir = filepath.Join(ws, cwd)
	c.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0"}
	out, _ := c.CombinedOutput()
	if _, err := os.Stat(mark); err != nil {
		t.Errorf("real git did not run the planted program for %q: %s", cmd, out)
	}
}

// TestGateGitInOrdinaryRepositories: git in the workspace's own
// repository, below it, and in a workspace inside a larger repository
// stays allowed, and so does every ordinary line in a workspace that is a
// repository.
func TestGateGitInOrdinaryRepositories(t *testing.T) {
	lines := []string{"git status", "git log --oneline", "git diff", "git add -A && git commit -m x",
		"git checkout -b feature", "git fetch origin", "cd src && git log", "git -C src status",
		"git --git-dir=.git status", "cd .git && git status", "git init src/new", "git clone https://github.com/x/y src/y",
		"git config user.name me", "git branch x && git tag v1", "git gc", "git notes add -m x", "git update-ref refs/heads/x HEAD",
		"git reset --soft HEAD~1", "git worktree add src/wt"}
	f := gitFixture(t)
	lease := gitLease(f)
	for _, l := range lines {
		if ans := f.gate(lease, "Bash", map[string]any{"command": l}); ans.Verdict != VerdictAllow {
			t.Errorf("%q in the workspace's repository: %s %s", l, ans.Verdict, ans.Reason)
		}
	}
	if ans := f.gate(lease, "Bash", map[string]any{"command": "git log", "cwd": filepath.Join(f.dir, "src")}); ans.Verdict != VerdictAllow {
		t.Errorf("git log in src: %s %s", ans.Verdict, ans.Reason)
	}

	// A workspace inside a larger repository: the .git is above it.
	outer, _ := filepath.EvalSymlinks(t.TempDir())
	makeRepo(t, filepath.Join(outer, ".git"), "[core]\n\trepositoryformatversion = 0\n")
	ws := filepath.Join(outer, "pkg", "ws")
	for _, d := range []string{"src"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	s := shellState(t, now)
	rules := CallRules{ProtectedWrites: gitProtected}
	for _, l := range append(lines[:7:7], "git -C src log") {
		call := ToolCall{Tool: "Bash", Input: map[string]any{"command": l}}
		if res := rules.decide(s, "ordinary", call, rules.factsOf(ws, call), now, nil); res.Verdict != VerdictAllow {
			t.Errorf("%q in a workspace inside a larger repository: %s %s", l, res.Verdict, res.Reason)
		}
	}
}

// TestGateShellOrdinaryLinesInARepository: the ordinary lines stay
// allowed when the workspace is a git repository.
func TestGateShellOrdinaryLinesInARepository(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	// No file the lease denies lies in the work tree (a recursive read
	// above one is refused: treeread_test.go).
	ws := shellWorkspaceWith(t)
	makeRepo(t, filepath.Join(ws, ".git"), "[core]\n\trepositoryformatversion = 0\n[remote \"origin\"]\n\turl = https://github.com/x/y\n")
	s := shellState(t, now)
	// .git/config and .git/hooks/** are guarded as protected writes, as
	// the default policy does, not denied to reads: a repository's
	// recursive grep reads .git/config.
	g := s.Leases["ordinary"].Granted
	g.Deny.Paths = slices.DeleteFunc(slices.Clone(g.Deny.Paths), func(p string) bool { return strings.HasPrefix(p, ".git/") })
	rules := CallRules{ProtectedWrites: gitProtected}
	for _, cmd := range ordinaryLines {
		call := ToolCall{Tool: "Bash", Input: map[string]any{"command": cmd}}
		if res := rules.decide(s, "ordinary", call, rules.factsOf(ws, call), now, nil); res.Verdict != VerdictAllow {
			t.Errorf("%q: %s %s, want allow", cmd, res.Verdict, res.Reason)
		}
	}
}

// TestGateProtectsTheRootGitDirectory: every file of the workspace's own
// .git is a protected write, by any tool; git's own commands stay allowed
// (TestGateGitInOrdinaryRepositories), and removing or moving an ordinary
// directory is not refused for what it might hold.
func TestGateProtectsTheRootGitDirectory(t *testing.T) {
	f := gitFixture(t)
	for _, d := range []string{"node_modules/x", "build"} {
		writeFile(t, filepath.Join(f.dir, d, "f"), "x\n", 0o644)
	}
	lease := gitLease(f, "cp", "mv", "tee", "ln", "rm")
	for _, tc := range []struct {
		tool  string
		input map[string]any
		want  Verdict
	}{
		{"Write", map[string]any{"file_path": ".git/commondir", "content": "../x\n"}, VerdictDeny},
		{"Write", map[string]any{"file_path": ".git/config.worktree", "content": "[core]\n"}, VerdictDeny},
		{"Write", map[string]any{"file_path": ".git/info/attributes", "content": "* filter=x\n"}, VerdictDeny},
		{"Edit", map[string]any{"file_path": ".git/config", "old_string": "a", "new_string": "b"}, VerdictDeny},
		{"Write", map[string]any{"file_path": ".git", "content": "gitdir: x\n"}, VerdictDeny},
		{"Bash", map[string]any{"command": "echo ../x > .git/commondir"}, VerdictDeny},
		{"Bash", map[string]any{"command": "sed -i s/a/b/ .git/config.worktree"}, VerdictDeny},
		{"Bash", map[string]any{"command": "cp x .git/info/exclude"}, VerdictDeny},
		{"Bash", map[string]any{"command": "mv x .git/hooks/pre-commit"}, VerdictDeny},
		{"Bash", map[string]any{"command": "echo x | tee .git/info/sparse-checkout"}, VerdictDeny},
		{"Bash", map[string]any{"command": "ln -s /tmp .git/objects/info"}, VerdictDeny},
		{"Bash", map[string]any{"command": "rm -rf .git"}, VerdictDeny},
		{"Bash", map[string]any{"command": "rm -rf node_modules"}, VerdictAllow},
		{"Bash", map[string]any{"command": "mv build out"}, VerdictAllow},
		{"Write", map[string]any{"file_path": "d/.git/config", "content": "[core]\n"}, VerdictAllow},
	} {
		if ans := f.gate(lease, tc.tool, tc.input); ans.Verdict != tc.want {
			t.Errorf("%s %v: %s %s, want %s", tc.tool, tc.input, ans.Verdict, ans.Reason, tc.want)
		}
	}
}
