package registry

import (
	"os"
	"path/filepath"
	"testing"
)

// The generic file programs read their options as getopt_long does, so
// what they write, read and run is what the gate judges: an abbreviated
// or separate-word long option, a backup suffix, a hard link, a list of
// file names read at run time. Each line here did what the lease forbids
// before: wrote outside the workspace, planted a protected file, or wrote
// one through another name.
func TestGateGenericProgramsAsGetoptReadsThem(t *testing.T) {
	f := newFixture(t)
	f.svc.cfg.Calls.ProtectedWrites = []string{".git/hooks/**", ".mcp.json"}
	root := policyManifest(t)
	root.Allow.Commands = append(root.Allow.Commands, "cp", "mv", "ln", "install", "wc", "du", "tee", "touch")
	f.svc.cfg.Root = root
	for name, body := range map[string]string{"src/a.go": "package a\n", ".mcp.json": "{}\n", ".mcp": "x\n", "src/list": "src/a.go\n"} {
		if err := os.WriteFile(filepath.Join(f.dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A second name for the protected file, as cp -l or ln would make.
	if err := os.Link(filepath.Join(f.dir, ".mcp.json"), filepath.Join(f.dir, "src", "alias.json")); err != nil {
		t.Fatal(err)
	}
	id := f.issue(agentManifest("generic", 1000, func(m map[string]any) {
		permissive(m)
		m["allow"].(map[string]any)["commands"] = []any{"cp", "mv", "ln", "install", "wc", "du", "tee", "touch", "echo", "git", "cat"}
		m["allow"].(map[string]any)["write_paths"] = []any{"**"}
		m["deny"].(map[string]any)["paths"] = []any{".env", "~/.ssh/**"}
	}), "")
	out := filepath.Join(t.TempDir(), "out")
	for _, c := range []struct {
		cmd  string
		want Verdict
	}{
		{"cp --target-directory=" + out + " src/a.go", VerdictDeny},
		{"cp --target-directory " + out + " src/a.go", VerdictDeny},
		{"cp --target-dir=" + out + " src/a.go", VerdictDeny}, // an abbreviation getopt_long accepts
		{"mv --targ=" + out + " src/a.go", VerdictDeny},
		{"cp --t=" + out + " src/a.go", VerdictDeny}, // the shortest prefix
		{"cp --no-such-option src/a.go src/b.go", VerdictDeny},
		{"cp --re src/a.go src/b.go", VerdictDeny},    // recursive, reflink, remove-destination: ambiguous
		{"cp -b -S .json src/a.go .mcp", VerdictDeny}, // the backup of .mcp is .mcp.json
		{"cp --suffix=.json --backup src/a.go .mcp", VerdictDeny},
		{"mv -S .json src/a.go .mcp", VerdictDeny},
		{"SIMPLE_BACKUP_SUFFIX=.json cp -b src/a.go .mcp", VerdictDeny},
		{"cp -l .mcp.json src/copy.json", VerdictDeny},     // the copy is the protected file
		{"cp --link .mcp.json src/copy.json", VerdictDeny}, //
		{"echo '{\"x\":1}' > src/alias.json", VerdictDeny}, // through an existing hard link
		{"tee src/alias.json < src/a.go", VerdictDeny},     //
		{"touch src/alias.json", VerdictDeny},              //
		{"install --strip-program=id -s src/a.go src/b", VerdictDeny},
		{"install --strip-prog=id -s src/a.go src/b", VerdictDeny},
		{"wc --files0-from=src/list", VerdictDeny},
		{"du --files0-from src/list", VerdictDeny},
		{"GIT_TRACE=" + filepath.Join(f.dir, ".mcp.json") + " git status", VerdictDeny},
		// Ordinary lines stay allowed.
		{"cp src/a.go src/b.go", VerdictAllow},
		{"cp -r src/a.go src/c.go", VerdictAllow},
		{"cp -t src src/a.go", VerdictAllow},
		{"cp --target-directory=src src/list", VerdictAllow},
		{"cp -b src/a.go src/b.go", VerdictAllow},
		{"mv --verbose src/b.go src/d.go", VerdictAllow},
		{"wc -l src/a.go", VerdictAllow},
		{"wc --lines src/a.go", VerdictAllow},
		{"du -sh src", VerdictAllow},
		{"du --max-depth 1 src", VerdictAllow},
		{"cat --number src/a.go", VerdictAllow},
		{"echo x > src/new.go", VerdictAllow},
	} {
		a := f.gate(id, "Bash", map[string]any{"command": c.cmd})
		if a.Verdict != c.want {
			t.Errorf("%q: %s (%s), want %s", c.cmd, a.Verdict, a.Reason, c.want)
		}
	}
	// The Write tool through the hard link is refused like the shell.
	if a := f.gate(id, "Write", map[string]any{"file_path": "src/alias.json", "content": "{}"}); a.Verdict != VerdictDeny {
		t.Errorf("Write through a hard link: %s (%s)", a.Verdict, a.Reason)
	}
}
