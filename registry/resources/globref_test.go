package resources

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The Glob tool's pattern and the Grep tool's glob name every file they
// match: each is checked against deny entries like a read of those files.
func TestSearchPatternsMeetDenyPaths(t *testing.T) {
	ws := t.TempDir()
	ws, _ = filepath.EvalSymlinks(ws)
	os.MkdirAll(filepath.Join(ws, "src"), 0o755)
	deny := []string{".env", ".env.*", "secrets/**", "~/.ssh/**", ".leasedeck/**"}
	for _, c := range []struct {
		tool  string
		input map[string]any
		hit   bool
	}{
		{"Grep", map[string]any{"pattern": "KEY", "glob": ".env"}, true},
		{"Grep", map[string]any{"pattern": "KEY", "glob": ".env*"}, true},
		{"Grep", map[string]any{"pattern": "KEY", "glob": "*.{env,local}"}, true}, // * matches nothing: ".env"
		{"Grep", map[string]any{"pattern": "KEY", "glob": "*.{yml,local}"}, false},
		{"Grep", map[string]any{"pattern": "KEY", "glob": "{.env,x}"}, true},
		{"Grep", map[string]any{"pattern": "KEY", "path": "secrets", "glob": "*.pem"}, true},
		{"Grep", map[string]any{"pattern": "KEY", "glob": "*.go"}, false},
		{"Grep", map[string]any{"pattern": "KEY", "glob": "src/**/*.ts"}, false},
		{"Glob", map[string]any{"pattern": "**/.env*"}, true},
		{"Glob", map[string]any{"pattern": ".e[n]v"}, true},
		{"Glob", map[string]any{"pattern": "secre?s/*"}, true},
		{"Glob", map[string]any{"pattern": "~/.ssh/*"}, true},
		{"Glob", map[string]any{"pattern": "*", "path": "~/.ssh"}, true},
		{"Glob", map[string]any{"pattern": "**/*.go"}, false},
		{"Glob", map[string]any{"pattern": "*"}, false},
		{"Glob", map[string]any{"pattern": "**/*"}, false},
		{"Grep", map[string]any{"pattern": "KEY", "glob": "*"}, false},
		{"Glob", map[string]any{"pattern": "src/*.{ts,tsx}"}, false},
	} {
		use, err := FromToolCall(ws, c.tool, c.input)
		if err != nil {
			t.Errorf("%s %v: %v", c.tool, c.input, err)
			continue
		}
		hit := false
		for _, g := range use.Globs {
			for _, d := range deny {
				hit = hit || MatchDenyGlob(d, g)
			}
		}
		for _, r := range use.Reads {
			for _, d := range deny {
				hit = hit || MatchDenyPath(d, r)
			}
		}
		if hit != c.hit {
			t.Errorf("%s %v: denied %v, want %v (globs %+v)", c.tool, c.input, hit, c.hit, use.Globs)
		}
	}
}

func TestGlobsOverlap(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{".env", "**/.env", true},
		{".env.*", "**/.env*", true},
		{"secrets/**", "secrets", true},
		{"secrets/**", "**/*.pem", false}, // descending through a denied directory: the read root's question
		{"**/id_rsa", "~/.ssh/*", false},
		{"**/id_rsa", "**/id_*", true},
		{".git/config", ".git/**", false}, // a listing of .git names nothing in it
		{"**/id_rsa", "**/id_*", true},
		{".git/config", "src/**", false},
		{".env", "*.go", false},
		{"a/[!b]c", "a/xc", true},
		{"a/{b,c}/d", "a/c/d", true},
		{"a/{b,c}/d", "a/e/*", false},
		{"[", "x", true}, // not a pattern: overlaps everything
		{".env", "*", false},
		{"unrelated", "{a,b}{a,b}{a,b}{a,b}{a,b}", true}, // too many alternatives to match cheaply: refused
		{".leasedeck/**", "**/*", false},
		{".leasedeck/**", "*", false},
		{"src/secret/**", "src/*", false},
		{"secrets/**", "secre?s/*", true},
		{".env", ".e[n]v", true},
		{".ssh/**", ".ssh/*", true},
		{".ssh/**", ".ss?/id_*", true},
	} {
		if got := globsOverlap(c.a, c.b); got != c.want {
			t.Errorf("overlap(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestGlobsIntersect(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{".git/config", ".git/**", true},
		{".git/hooks/**", ".git/**", true},
		{"a/{b,c}/d", "a/c/*", true},
		{".git/config", "src/**", false},
	} {
		if got := globsIntersect(c.a, c.b); got != c.want {
			t.Errorf("intersect(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// A write to a directory touches everything below it.
func TestWriteTouches(t *testing.T) {
	ws := t.TempDir()
	ws, _ = filepath.EvalSymlinks(ws)
	for _, c := range []struct {
		pattern, path string
		want          bool
	}{
		{".git/hooks/**", ".git/hooks/pre-commit", true},
		{".git/hooks/**", ".git/hooks", true},
		{".git/hooks/**", ".git", true},
		{".git/config", ".git", true},
		{".git/config", ".gitignore", false},
		{".github/workflows/**", ".github", true},
		{".github/workflows/**", ".github/ISSUE_TEMPLATE.md", false},
		{".mcp.json", "src/.mcp.json", false},
		{".git/config", "we[ird]", false},
	} {
		ref, err := ResolvePath(ws, c.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := WriteTouches(c.pattern, ref); got != c.want {
			t.Errorf("WriteTouches(%q, %q) = %v, want %v", c.pattern, c.path, got, c.want)
		}
	}
}

// A shell line that runs apply_patch writes what its patch names; a patch
// the gate cannot read refuses the line.
func TestShellApplyPatchWrites(t *testing.T) {
	ws := t.TempDir()
	ws, _ = filepath.EvalSymlinks(ws)
	use, err := FromToolCall(ws, "Bash", map[string]any{"command": "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: .git/hooks/pre-commit\n+x\n*** End Patch\nEOF\necho done"})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, w := range use.Writes {
		found = found || w.Rel == ".git/hooks/pre-commit"
	}
	if !found {
		t.Errorf("writes %+v", use.Writes)
	}
	if _, err := FromToolCall(ws, "Bash", map[string]any{"command": "apply_patch < fix.patch"}); err == nil {
		t.Error("a patch from a file was accepted")
	}
}

// Any pair of patterns is decided without a panic, a pattern always names
// what it spells literally, and a literal path is named by itself.
func FuzzGlobsOverlap(f *testing.F) {
	for _, s := range [][2]string{{".env", ".e[n]v"}, {"secrets/**", "secre?s/*"}, {"a/{b,c}/d", "{a,b}/**"}, {"[", "]"}, {"\\", "*\\"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, d, g string) {
		globsOverlap(d, g)
		globsIntersect(d, g)
		if lit := escapeGlob(d); d != "" && !strings.ContainsAny(d, "*?[]{}\\") && !globsOverlap(lit, lit) {
			t.Fatalf("%q does not name itself", d)
		}
	})
}
