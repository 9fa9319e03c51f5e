package registry

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// treeFixture is a service whose lease denies .env, src/secret/** and
// **/*.pem and grants the recursive readers, over a workspace holding
// files. The root policy adds leasedeck's own write guards.
func treeFixture(t *testing.T, files ...string) (*fixture, string) {
	t.Helper()
	f := newFixtureWith(t, func(cfg *Config) { cfg.Root = treeRoot(t) })
	for _, p := range files {
		full := filepath.Join(f.dir, p)
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("KEY=1 TODO\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	id := f.issue(agentManifest("trees", 1000, func(m map[string]any) {
		m["allow"].(map[string]any)["tools"] = []any{"Bash", "Read", "Grep", "Glob"}
		m["allow"].(map[string]any)["commands"] = []any{"ls", "cat", "git", "echo", "sed", "find", "grep",
			"xargs", "cp", "tar", "diff", "rg", "head", "sort", "wc", "zip", "rsync", "egrep", "rgrep", "ag"}
		m["deny"] = map[string]any{"commands": []any{}, "paths": []any{".env", "src/secret/**", "**/*.pem"}, "hosts": []any{}}
		m["approvals"] = []any{}
	}), "")
	return f, id
}

// treeRoot is a root policy like the one init writes: every tool and
// the recursive readers allowed, leasedeck's own files and the clients'
// hook settings denied.
func treeRoot(t *testing.T) *Manifest {
	paths := []any{"~/.ssh/**"}
	for _, p := range WriteGuardPaths {
		paths = append(paths, p)
	}
	return mustManifest(t, map[string]any{
		"schema_version": "1.2",
		"agent":          map[string]any{"name": "root", "kind": "native", "runtime_agent": "unknown"},
		"intent":         map[string]any{"purpose": "root policy"},
		"allow": map[string]any{"tools": []any{"Bash", "Read", "Write", "Edit", "Grep", "Glob", "Agent"},
			"read_paths": []any{"**"}, "write_paths": []any{"**"}, "hosts": []any{"*"},
			"commands": []any{"ls", "cat", "git", "echo", "sed", "find", "grep", "xargs", "cp", "tar", "diff",
				"rg", "head", "sort", "wc", "zip", "rsync", "egrep", "rgrep", "ag"}},
		"deny":      map[string]any{"commands": []any{"sudo"}, "paths": paths, "hosts": []any{}},
		"budget":    map[string]any{"depth": int64(4), "fan_out": int64(8)},
		"approvals": []any{},
	})
}

// Recursive readers rooted above a denied path read it: each is refused,
// naming the denied path and the entry that denies it.
func TestGateRefusesARecursiveReadAboveADeniedPath(t *testing.T) {
	f, id := treeFixture(t, ".env", "src/secret/k", "src/a.go", "lib/x.go")
	for _, line := range []string{
		"grep -rn TODO .", `grep -rn "" src`, "grep -R KEY .", "grep -r KEY", "egrep -r KEY src",
		"grep --recursive KEY .", "grep -d recurse KEY .", "grep --directories=recurse KEY .", "rgrep KEY src",
		"grep -rn --exclude=a.go KEY src", "grep -rn --exclude-dir=lib KEY .", "grep -rn --include='*' KEY src",
		"grep -rn --exclude-dir='[[:alpha:]]ecret' KEY src",
		"find src -exec cat {} +", `find . -execdir cat {} \;`, "find src -type f -exec head -1 {} +",
		"rg KEY", "rg KEY src", "rg -g '!*.go' KEY src", "rg -g '*.go' -g 'k' KEY src", "rg --iglob '!k' KEY src",
		"cp -r src src/out", "cp -a src src/out", "cp -R . src/out", "tar cf src/x.tar .", "tar -czf src/x.tgz src",
		"tar -C src -cf src/x.tar .", "diff -r src lib", "diff -ru lib src", "zip -r src/x.zip src", "rsync -a src/ src/out",
		"ag KEY", "cd src && grep -r KEY .", "grep -r KEY ./src/../src",
	} {
		got := f.gate(id, "Bash", map[string]any{"command": line})
		if got.Verdict != VerdictDeny {
			t.Errorf("%s: %s (%s), want deny", line, got.Verdict, got.Reason)
			continue
		}
		if !strings.Contains(got.Reason, "deny.paths") {
			t.Errorf("%s: refused for another reason: %s", line, got.Reason)
		}
	}
	// A root outside the workspace is an escape, refused without a walk
	// of what lies below it (no hold for a large tree).
	for _, line := range []string{"grep -r KEY /", "grep -r KEY ~", "rg KEY /usr"} {
		got := f.gate(id, "Bash", map[string]any{"command": line})
		if got.Verdict != VerdictDeny || !strings.Contains(got.Reason, "escapes the workspace") {
			t.Errorf("%s: %s (%s), want deny as an escape", line, got.Verdict, got.Reason)
		}
	}
	for _, in := range []map[string]any{{"pattern": "KEY"}, {"pattern": "KEY", "path": "src"},
		{"pattern": "KEY", "path": "."}, {"pattern": "KEY", "path": "src", "glob": "!*.go"}} {
		got := f.gate(id, "Grep", in)
		if got.Verdict != VerdictDeny || !strings.Contains(got.Reason, "deny.paths") {
			t.Errorf("Grep %v: %s (%s), want deny", in, got.Verdict, got.Reason)
		}
	}
}

// The reason names what would be read, the entry that denies it, and how
// to search without it.
func TestTreeReadReasonSaysHowToProceed(t *testing.T) {
	f, id := treeFixture(t, ".env", "src/a.go")
	for line, want := range map[string]string{
		"grep -rn TODO .": ".env there is denied by .env (deny.paths): search a directory that does not hold it, or leave it out (grep --exclude=.env)",
		"rg TODO":         "rg -g '!.env'",
	} {
		got := f.gate(id, "Bash", map[string]any{"command": line})
		if got.Verdict != VerdictDeny || !strings.Contains(got.Reason, want) {
			t.Errorf("%s: %s %q, want deny containing %q", line, got.Verdict, got.Reason, want)
		}
	}
	f2, id2 := treeFixture(t, "src/secret/k", "src/a.go")
	got := f2.gate(id2, "Bash", map[string]any{"command": "grep -rn TODO src"})
	if want := "grep --exclude-dir=secret"; got.Verdict != VerdictDeny || !strings.Contains(got.Reason, want) {
		t.Errorf("%s %q, want deny containing %q", got.Verdict, got.Reason, want)
	}
	got = f.gate(id, "Grep", map[string]any{"pattern": "TODO"})
	if want := `"!.env"`; got.Verdict != VerdictDeny || !strings.Contains(got.Reason, want) {
		t.Errorf("Grep: %s %q, want deny containing %q", got.Verdict, got.Reason, want)
	}
}

// Ordinary recursive reads stay allowed: no denied file below the root,
// the denied file left out by an exclusion that provably covers it, and
// leasedeck's own files (.leasedeck/, the clients' hook settings), which
// the root policy denies to guard writes, not because they are secret.
func TestGateAllowsARecursiveReadAboveNothingDenied(t *testing.T) {
	f, id := treeFixture(t, "src/a/x.go", "src/b.go", "lib/x.go", ".claude/settings.json", ".codex/config.toml",
		".github/hooks/h.json", ".vscode/settings.json")
	for _, line := range []string{
		"grep -rn TODO .", "grep -rn TODO src", "rg TODO", "rg TODO src", "cp -r src/a src/out", "find . -name '*.go'",
		"find src -name '*.go' -exec grep -n TODO {} +", "tar cf src/x.tar src", "diff -r src lib", "grep -R TODO .",
	} {
		if got := f.gate(id, "Bash", map[string]any{"command": line}); got.Verdict != VerdictAllow {
			t.Errorf("%s: %s (%s), want allow", line, got.Verdict, got.Reason)
		}
	}
	for _, in := range []map[string]any{{"pattern": "TODO"}, {"pattern": "TODO", "path": "src"}} {
		if got := f.gate(id, "Grep", in); got.Verdict != VerdictAllow {
			t.Errorf("Grep %v: %s (%s), want allow", in, got.Verdict, got.Reason)
		}
	}
	// A read that names leasedeck's own files is refused as before.
	for _, line := range []string{"cat .leasedeck/policy.json", "grep -r x .leasedeck", "grep -rn x .codex"} {
		if got := f.gate(id, "Bash", map[string]any{"command": line}); got.Verdict != VerdictDeny {
			t.Errorf("%s: %s (%s), want deny", line, got.Verdict, got.Reason)
		}
	}
}

// An exclusion counts only where it provably leaves the denied file out.
func TestGateCountsAnExclusionThatCoversTheDeniedFile(t *testing.T) {
	cases := func(t *testing.T, files []string, table []struct {
		line string
		want Verdict
	}) {
		f, id := treeFixture(t, files...)
		for _, c := range table {
			got := f.gate(id, "Bash", map[string]any{"command": c.line})
			if got.Verdict != c.want {
				t.Errorf("%s: %s (%s), want %s", c.line, got.Verdict, got.Reason, c.want)
			}
		}
	}
	cases(t, []string{".env", "src/a.go"}, []struct {
		line string
		want Verdict
	}{
		{"grep -rn --exclude=.env TODO .", VerdictAllow},
		{"grep -rn --exclude .env TODO .", VerdictAllow},
		{"grep -rn --exclude='.e*' TODO .", VerdictAllow},
		{"grep -rn --exclude='.en[tuv]' TODO .", VerdictAllow},
		{"grep -rn --include='*.go' TODO .", VerdictAllow},
		{"grep -rn --include='*.go' --exclude=x TODO .", VerdictAllow},
		{"rg -g '!.env' TODO", VerdictAllow},
		{"rg --glob='!.env' TODO", VerdictAllow},
		{"rg -g '*.go' TODO", VerdictAllow},
		{"grep -rn --exclude=x --include='*.go' TODO .", VerdictDeny}, // GNU: --exclude first, a name matching neither is read
		{"grep -rn --exclude=.ENV TODO .", VerdictDeny},
		{"grep -rn --exclude='.en[[:alpha:]]' TODO .", VerdictDeny}, // a class the gate does not read counts for nothing
		{"grep -rn --exclude='.en[s-w]' TODO .", VerdictDeny},       // a letter range follows the locale
		{"grep -rn --include='*' --exclude=.env TODO .", VerdictDeny},
		{"grep -rn --include='./.e*' TODO .", VerdictDeny}, // BSD grep matches the whole name too
		{"grep -rn --exclude-from=/dev/null TODO .", VerdictDeny},
		{"rg -g '!.env' -g '.env' TODO", VerdictDeny}, // the last glob that matches decides
		{"rg -g '!.env' --iglob x TODO", VerdictDeny},
		{"rg -e -g TODO .", VerdictDeny},     // -g is -e's pattern here, not a glob
		{"rg -g '!/.env' TODO", VerdictDeny}, // a glob with a slash leaves nothing out
		{"grep -rn --exclude=.env TODO .env", VerdictDeny},
	})
	cases(t, []string{".env", "src/a.go", "src/secret/k"}, []struct {
		line string
		want Verdict
	}{
		{"grep -rn --exclude=.env --exclude-dir=secret TODO .", VerdictAllow},
		{"grep -rn --exclude='.e*' --exclude-dir='s?cret' TODO .", VerdictAllow},
		{"rg -g '!.env' -g '!secret' TODO", VerdictAllow},
		{"rg -g '!.env' -g '!secret/' TODO", VerdictAllow},
		{"grep -rn --exclude=.env TODO .", VerdictDeny}, // src/secret/k is still read
		{"grep -rn --exclude=.env TODO src", VerdictDeny},
		{"grep -rn --include='*.go' TODO src", VerdictDeny}, // --include leaves no directory out: src/secret is listed
		{"grep -rn --exclude-dir=secret --include-dir=x TODO src", VerdictDeny},
		{"rg -g '*.go' TODO", VerdictDeny},
		{"rg -g '!secret' -g 'secret' TODO src", VerdictDeny},
	})
	f, id := treeFixture(t, ".env", "src/a.go")
	if got := f.gate(id, "Grep", map[string]any{"pattern": "TODO", "glob": "*.go"}); got.Verdict != VerdictAllow {
		t.Errorf("Grep glob *.go: %s (%s), want allow", got.Verdict, got.Reason)
	}
	if got := f.gate(id, "Grep", map[string]any{"pattern": "TODO", "glob": "!.env"}); got.Verdict != VerdictAllow {
		t.Errorf("Grep glob !.env: %s (%s), want allow", got.Verdict, got.Reason)
	}
}

// A symbolic link below the root is read through by the programs that
// follow links: its target outside the root is checked as a read (outside
// the workspace, an escape), a denied target inside it refuses.
func TestGateChecksLinksBelowARecursiveRead(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "id_rsa"), []byte("k"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, id := treeFixture(t, "src/a.go", "lib/secret.key")
	if err := os.Symlink(filepath.Join(outside, "id_rsa"), filepath.Join(f.dir, "src", "out")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		line, reason string
		want         Verdict
	}{
		{"grep -R KEY src", "escapes the workspace", VerdictDeny},
		{"find src -exec cat {} +", "escapes the workspace", VerdictDeny},
		{"zip -r src/x.zip src", "escapes the workspace", VerdictDeny},
		{"grep -r KEY src", "", VerdictAllow}, // grep -r does not follow links below its roots
		{"tar cf src/x.tar src", "", VerdictAllow},
	} {
		got := f.gate(id, "Bash", map[string]any{"command": c.line})
		if got.Verdict != c.want || !strings.Contains(got.Reason, c.reason) {
			t.Errorf("%s: %s (%s), want %s with %q", c.line, got.Verdict, got.Reason, c.want, c.reason)
		}
	}
	f2, id2 := treeFixture(t, "lib/k.pem", "src/a.go")
	if err := os.Symlink("../lib/k.pem", filepath.Join(f2.dir, "src", "key")); err != nil {
		t.Fatal(err)
	}
	got := f2.gate(id2, "Bash", map[string]any{"command": "grep -R KEY src"})
	if got.Verdict != VerdictDeny || !strings.Contains(got.Reason, "**/*.pem") {
		t.Errorf("a link to a denied file: %s (%s), want deny", got.Verdict, got.Reason)
	}
}

// A tree too large to check is held for a human, never allowed.
func TestGateHoldsATreeTooLargeToCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("writes twenty thousand files")
	}
	f, id := treeFixture(t, "src/a.go")
	big := filepath.Join(f.dir, "src", "big")
	for d := 0; d < 21; d++ {
		dir := filepath.Join(big, fmt.Sprint(d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 1000; i++ {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprint(i)), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	got := f.svc.Gate(context.Background(), GateRequest{LeaseID: id, DryRun: true,
		Call: ToolCall{Tool: "Bash", Input: map[string]any{"command": "grep -rn TODO src"}}})
	if got.Verdict != VerdictAsk || !strings.Contains(got.Reason, "the gate cannot tell what grep reads") ||
		!strings.Contains(got.Reason, "more than 20000 entries") {
		t.Fatalf("%s (%s), want it held for a human", got.Verdict, got.Reason)
	}
	// Under a directory no deny entry can reach below, nothing is walked.
	if got := f.gate(id, "Bash", map[string]any{"command": "grep -rn TODO src/a.go"}); got.Verdict != VerdictAllow {
		t.Fatalf("a file operand: %s (%s)", got.Verdict, got.Reason)
	}
}
