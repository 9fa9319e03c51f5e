package resources

import (
	"os"
	"path/filepath"
	"testing"
)

// writeTouchesAny reports the first pattern one of the line's writes
// touches, or "".
func writeTouchesAny(t *testing.T, ws, line string, patterns []string) string {
	t.Helper()
	use, err := FromToolCall(ws, "Bash", map[string]any{"command": line})
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	for _, w := range use.Writes {
		for _, pat := range patterns {
			if WriteTouches(pat, w) {
				return pat
			}
		}
	}
	return ""
}

// A write, removal or move of a directory touches every pattern that can
// match a path below it — files not there yet included — and a write to
// the home directory, the workspace, "/" or a directory above them
// touches every pattern of that kind. An ordinary line above no such
// pattern touches none.
func TestWriteTouchesBelowTheDirectoryWritten(t *testing.T) {
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	ws := filepath.Join(home, "proj")
	for _, d := range []string{"src/secret", "node_modules/x", "dist", "build"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	patterns := []string{"src/secret/**", "~/.ssh/**", ".git/hooks/**", ".leasedeck/**", "/etc/shadow"}
	for _, c := range []struct {
		line    string
		touches bool
	}{
		{"rm -rf src", true},
		{"rm -r src/", true},
		{"rm -rf ./src/../src", true},
		{"mv src x", true},
		{"git clean -fdx src", true},
		{"find src -delete", true},
		{"rm -rf src/secret", true},
		{"rm -rf ~", true},
		{"rm -rf ~/", true},
		{"mv ~ /tmp/x", true},
		{"rm -rf " + home, true},
		{"rm -rf .", true},
		{"rm -rf ./", true},
		{`rm -rf "$PWD"`, true},
		{"mv . ../y", true},
		{"rm -rf ..", true},
		{"rm -rf " + filepath.Dir(home), true},
		{"rm -rf /", true},
		{"rm -rf node_modules", false},
		{"rm -rf dist build", false},
		{"rm -rf src/lib", false},
		{"mv dist out", false},
		{"rm src/a.go", false},
		{"echo x > src/a.go", false},
		{"rm -rf ~/.cache/go", false},
		{"find dist -delete", false},
	} {
		t.Run(c.line, func(t *testing.T) {
			got := writeTouchesAny(t, ws, c.line, patterns)
			if (got != "") != c.touches {
				t.Fatalf("%s touches %q, want touching: %v", c.line, got, c.touches)
			}
		})
	}
}

// Outside the home directory and the workspace, a write touches no
// home-relative or workspace-relative pattern.
func TestWriteTouchesRootsApart(t *testing.T) {
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		pattern, path string
		want          bool
	}{
		{"~/.ssh/**", "~", true},
		{"~/.ssh/**", ".", false},
		{".git/hooks/**", ".", true},
		{".git/hooks/**", "~", false},
		{"~", "~", true},
		{"/etc/shadow", "/", true},
		{"/etc/shadow", ".", false},
		{"src/**", "..", true},
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

func TestMatchesBelow(t *testing.T) {
	for _, c := range []struct {
		pattern, dir string
		want         bool
	}{
		{"**/.env", "src", true},
		{"**/.env", "src/a/b", true},
		{"*/.env", "src", true},
		{"*/.env", "src/a", false},
		{"src/**/key", "src", true},
		{"src/**/key", "src/a/b", true},
		{"src/secret/**", "src", true},
		{"src/secret/**", "src/secret", true},
		{"src/secret/**", "src/lib", false},
		{"src/secret", "src/secret", false},
		{"lib/**", "src", false},
		{"{lib,src}/x", "src", true},
		{"{lib,dist}/x", "src", false},
		{".env", "src", false},
		{"*.pem", "src", false},
		{"**/*.pem", "node_modules/x", true},
		{"[", "src", true},
	} {
		if got := matchesBelow(c.pattern, c.dir); got != c.want {
			t.Errorf("matchesBelow(%q, %q) = %v, want %v", c.pattern, c.dir, got, c.want)
		}
	}
}

// A pattern that matches at any depth ("**/.env", "*/.env") is touched by
// a write to an existing directory that may hold such a file, and by no
// write of a single file.
func TestWriteTouchesAnyDepthBelowADirectory(t *testing.T) {
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"src/lib", "dist"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "src", "a.go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("src", filepath.Join(ws, "alias")); err != nil {
		t.Fatal(err)
	}
	patterns := []string{"**/.env", "*/.env", "**/*.pem"}
	for _, c := range []struct {
		line    string
		touches bool
	}{
		{"rm -rf src", true},
		{"rm -rf alias/", true},
		{"rm -rf src/lib", true},
		{"mv dist out", true},
		{"git clean -fdx dist", true},
		{"find src -delete", true},
		{"rm src/a.go", false},
		{"echo x > src/a.go", false},
		{"echo x > src/new.go", false},
		{"rm -rf build", false},
	} {
		t.Run(c.line, func(t *testing.T) {
			got := writeTouchesAny(t, ws, c.line, patterns)
			if (got != "") != c.touches {
				t.Fatalf("%s touches %q, want touching: %v", c.line, got, c.touches)
			}
		})
	}
}
