package confine

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

func TestGlobBase(t *testing.T) {
	ws, home := "/w", "/h"
	for _, tc := range []struct{ glob, want string }{
		{"**", "/w"},
		{"src/**", "/w/src"},
		{"src/*.go", "/w/src"},
		{"*.md", "/w"},
		{"docs/a/b.txt", "/w/docs/a/b.txt"},
		{"~/notes/**", "/h/notes"},
		{"~", "/h"},
		{"/abs/dir/**", "/abs/dir"},
		{"/*", "/"},
		{"a/{b,c}/**", "/w/a"},
		{"a/b?/x", "/w/a"},
		{"a/[xy]/z", "/w/a"},
		{".", "/w"},
	} {
		if got := GlobBase(tc.glob, ws, home); got != tc.want {
			t.Errorf("GlobBase(%q) = %q, want %q", tc.glob, got, tc.want)
		}
	}
}

// tree makes files (a trailing slash makes a directory) under a
// temporary root and answers the root, symlinks resolved.
func tree(t *testing.T, paths ...string) string {
	t.Helper()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	for _, p := range paths {
		full := filepath.Join(root, p)
		if strings.HasSuffix(p, "/") {
			os.MkdirAll(full, 0o755)
			continue
		}
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func rulesByPath(p Plan) map[string]Access {
	m := map[string]Access{}
	for _, r := range p.Rules {
		m[r.Path] |= r.Access
	}
	return m
}

// Without a namespace, a protected path in a writable hierarchy is carved
// out by granting the hierarchy's other entries: the protected path stays
// readable, nothing in the narrowed directories may be created, and the
// siblings keep everything.
func TestBuildNarrowsAroundProtectedPaths(t *testing.T) {
	root := tree(t, "src/a.go", ".leasedeck/policy.json", ".git/config", ".git/objects/x", "README.md")
	spec := Spec{
		Rules:   []Rule{{Path: root, Access: Read | Write}},
		Protect: []string{filepath.Join(root, ".leasedeck"), filepath.Join(root, ".git", "config"), filepath.Join(root, ".git", "hooks")},
	}
	plan, err := Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	got := rulesByPath(plan)
	want := map[string]Access{
		root:                                Read,
		filepath.Join(root, "src"):          Read | Write,
		filepath.Join(root, "README.md"):    Read | Write,
		filepath.Join(root, ".leasedeck"):   Read,
		filepath.Join(root, ".git"):         Read,
		filepath.Join(root, ".git/config"):  Read,
		filepath.Join(root, ".git/objects"): Read | Write,
	}
	for p, a := range want {
		if got[p] != a {
			t.Errorf("%s: %v, want %v", p, got[p], a)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("unexpected rule on %s (%v)", p, got[p])
		}
	}
	if len(plan.Binds) != 0 || len(plan.Created) != 0 {
		t.Errorf("binds or placeholders without a namespace: %+v", plan)
	}
	if !slices.Contains(plan.Narrowed, root) {
		t.Errorf("the workspace is not reported as narrowed: %v", plan.Narrowed)
	}
}

// With a namespace, existing carve-outs become binds, a missing protected
// path gets a placeholder (and a bind), and a missing hidden path needs
// nothing; the grants stay whole.
func TestBuildBindsWithANamespace(t *testing.T) {
	root := tree(t, "src/", ".leasedeck/key", ".claude/settings.json", ".git/config", "home/.ssh/id_rsa")
	spec := Spec{
		Rules: []Rule{{Path: root, Access: Read | Write}},
		Protect: []string{filepath.Join(root, ".leasedeck"), filepath.Join(root, ".claude"), filepath.Join(root, ".git", "hooks"),
			filepath.Join(root, ".codex", "config.toml")},
		Hide:         []string{filepath.Join(root, ".leasedeck", "key"), filepath.Join(root, "home", ".ssh"), filepath.Join(root, ".env")},
		Namespace:    true,
		Placeholders: true,
	}
	plan, err := Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	defer plan.Cleanup()
	var binds []string
	for _, b := range plan.Binds {
		kind := "ro"
		if b.Mask {
			kind = "mask"
		}
		binds = append(binds, kind+" "+strings.TrimPrefix(b.Path, root))
	}
	sort.Strings(binds)
	want := []string{"mask /.leasedeck/key", "mask /home/.ssh", "ro /.claude", "ro /.codex", "ro /.git/hooks", "ro /.leasedeck"}
	if !slices.Equal(binds, want) {
		t.Errorf("binds %v, want %v", binds, want)
	}
	if got := rulesByPath(plan); len(got) != 1 || got[root] != Read|Write {
		t.Errorf("the grant was not kept whole: %v", got)
	}
	for _, p := range []string{".git/hooks", ".codex"} {
		if st, err := os.Stat(filepath.Join(root, p)); err != nil || !st.IsDir() {
			t.Errorf("no placeholder directory %s: %v", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, ".env")); err == nil {
		t.Errorf("a placeholder was made for a hidden path")
	}
	plan.Cleanup()
	for _, p := range []string{".git/hooks", ".codex"} {
		if _, err := os.Stat(filepath.Join(root, p)); err == nil {
			t.Errorf("placeholder %s left after Cleanup", p)
		}
	}
}

// Cleanup keeps a placeholder that something wrote into.
func TestCleanupKeepsChangedPlaceholders(t *testing.T) {
	root := tree(t, ".claude/")
	plan, err := Build(Spec{Rules: []Rule{{Path: root, Access: Read | Write}}, Namespace: true, Placeholders: true,
		Protect: []string{filepath.Join(root, ".claude", "settings.json"), filepath.Join(root, "keep")}})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(root, ".claude", "settings.json")); err != nil || string(b) != "{}\n" {
		t.Fatalf("placeholder settings.json: %q %v", b, err)
	}
	os.WriteFile(filepath.Join(root, ".claude", "settings.json"), []byte(`{"hooks":{}}`), 0o644)
	os.WriteFile(filepath.Join(root, "keep", "x"), nil, 0o644)
	plan.Cleanup()
	for _, p := range []string{".claude/settings.json", "keep/x"} {
		if _, err := os.Stat(filepath.Join(root, p)); err != nil {
			t.Errorf("Cleanup removed %s, which was changed: %v", p, err)
		}
	}
}

// Above a hidden path, narrowing keeps only listing: a read rule on the
// directory would cover the hidden file.
func TestBuildNarrowsAroundHiddenPaths(t *testing.T) {
	root := tree(t, "home/.ssh/id_rsa", "home/notes.txt", "home/proj/a")
	home := filepath.Join(root, "home")
	plan, err := Build(Spec{Rules: []Rule{{Path: home, Access: Read}}, Hide: []string{filepath.Join(home, ".ssh")}})
	if err != nil {
		t.Fatal(err)
	}
	got := rulesByPath(plan)
	if got[home] != listOnly {
		t.Errorf("%s: %v, want list only", home, got[home])
	}
	if _, ok := got[filepath.Join(home, ".ssh")]; ok {
		t.Errorf("the hidden path has a rule")
	}
	if got[filepath.Join(home, "notes.txt")] != Read || got[filepath.Join(home, "proj")] != Read {
		t.Errorf("siblings lost their rights: %v", got)
	}
}

// A rule on a symbolic link would land on its target: narrowing skips
// links, so a link to a secret grants nothing.
func TestBuildNarrowingSkipsSymlinks(t *testing.T) {
	root := tree(t, "ws/src/a", "ws/.git/config", "secret/key")
	ws := filepath.Join(root, "ws")
	os.Symlink(filepath.Join(root, "secret"), filepath.Join(ws, "link"))
	plan, err := Build(Spec{Rules: []Rule{{Path: ws, Access: Read | Write}}, Protect: []string{filepath.Join(ws, ".git", "config")}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range plan.Rules {
		if strings.HasPrefix(r.Path, filepath.Join(root, "secret")) || strings.HasSuffix(r.Path, "link") {
			t.Errorf("rule through a symbolic link: %+v", r)
		}
	}
}

// A missing grant grants nothing, and a rule inside a carve-out loses what
// the carve-out forbids.
func TestBuildDropsMissingAndCarvedRules(t *testing.T) {
	root := tree(t, ".leasedeck/agents/a.json", "src/")
	plan, err := Build(Spec{
		Rules:   []Rule{{Path: filepath.Join(root, "nope"), Access: Read}, {Path: filepath.Join(root, ".leasedeck", "agents"), Access: Read | Write}},
		Protect: []string{filepath.Join(root, ".leasedeck")},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := rulesByPath(plan)
	if len(got) != 1 || got[filepath.Join(root, ".leasedeck", "agents")] != Read {
		t.Errorf("rules %v, want only a read rule on agents/", got)
	}
}

func TestDenyMatches(t *testing.T) {
	root := tree(t, ".env", ".env.local", "src/a.pem", "src/deep/b.pem", "src/c.go", "keys/k")
	got, err := denyMatches([]string{".env", ".env.*", "**/*.pem", "keys/**", "~/.aws/**", "absent"}, root, "/h")
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		got[i] = strings.TrimPrefix(got[i], root)
	}
	sort.Strings(got)
	want := []string{"/.aws", "/.env", "/.env.local", "/absent", "/keys", "/src/a.pem", "/src/deep/b.pem"}
	want[0] = "/h/.aws"
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("denyMatches = %v, want %v", got, want)
	}
}

// The client's own state and hook configuration are not hidden by a deny
// entry that names them; other clients' are.
func TestSpecForKeepsTheClientsOwnState(t *testing.T) {
	root := tree(t, "ws/.codex/config.toml", "ws/.claude/settings.json", "home/.codex/config.toml")
	ws, home := filepath.Join(root, "ws"), filepath.Join(root, "home")
	spec, err := SpecFor(Inputs{Workspace: ws, Home: home, ReadPaths: []string{"**"}, WritePaths: []string{"**"},
		DenyPaths: []string{".codex/**", ".claude/settings.json", "~/.codex/**"}}, ProfileFor("codex-cli"))
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(spec.Hide, filepath.Join(ws, ".codex")) || slices.Contains(spec.Hide, filepath.Join(home, ".codex")) {
		t.Errorf("codex's own state is hidden from codex: %v", spec.Hide)
	}
	if !slices.Contains(spec.Hide, filepath.Join(ws, ".claude", "settings.json")) {
		t.Errorf("another client's hook settings are not hidden: %v", spec.Hide)
	}
	if !slices.Contains(spec.Protect, filepath.Join(home, ".codex", "config.toml")) {
		t.Errorf("codex's hook configuration is not protected: %v", spec.Protect)
	}
	if st, err := os.Stat(filepath.Join(home, ".codex")); err != nil || !st.IsDir() {
		t.Errorf("the client's state directory was not created")
	}
}

func TestProfilesAreComplete(t *testing.T) {
	for _, c := range Clients() {
		p := ProfileFor(c)
		if len(p.State) == 0 || len(p.HookConfig) == 0 || len(p.APIHosts) == 0 {
			t.Errorf("profile %s lacks state, hook configuration or API hosts: %+v", c, p)
		}
	}
	if p := ProfileFor("unknown-client"); len(p.State) != 0 || p.Client != "unknown-client" {
		t.Errorf("an unknown client got state: %+v", p)
	}
}

// A hidden path inside a protected one (the key inside .leasedeck/) is
// carved out of the protected path's read grant too.
func TestBuildNarrowsHiddenInsideProtected(t *testing.T) {
	root := tree(t, ".leasedeck/key", ".leasedeck/policy.json", "src/a")
	plan, err := Build(Spec{Rules: []Rule{{Path: root, Access: Read | Write}},
		Protect: []string{filepath.Join(root, ".leasedeck")}, Hide: []string{filepath.Join(root, ".leasedeck", "key")}})
	if err != nil {
		t.Fatal(err)
	}
	got := rulesByPath(plan)
	if _, ok := got[filepath.Join(root, ".leasedeck", "key")]; ok {
		t.Errorf("the key has a rule: %v", got)
	}
	if got[filepath.Join(root, ".leasedeck")] != listOnly || got[filepath.Join(root, ".leasedeck", "policy.json")] != Read {
		t.Errorf(".leasedeck is not narrowed to reading the policy: %v", got)
	}
}
