package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leasedeck/leasedeck/bridge/setup"
)

// A client file install cannot rewrite safely is refused with a message
// naming it and a documented exit code, and left as it was: a symbolic
// link (replaced by a plain file before, the user's link lost), a file
// made read-only (replaced all the same before), a directory, text that
// is not JSON, JSON with comments, a file past the input limit.
func TestInstallRefusesClientFilesItCannotRewriteSafely(t *testing.T) {
	d := newDoctorWS(t)
	path := settingsPathFor(t, d, "claude-code", setup.ScopeProject)
	elsewhere := filepath.Join(t.TempDir(), "dotfiles-settings.json")
	cases := []struct {
		name  string
		make  func()
		code  int
		names string
	}{
		{"a symbolic link", func() {
			os.WriteFile(elsewhere, []byte(`{"model":"x"}`), 0o644)
			os.Symlink(elsewhere, path)
		}, exitRefused, "symbolic link"},
		{"read-only", func() { os.WriteFile(path, []byte(`{"model":"x"}`), 0o444) }, exitRefused, "read-only"},
		{"a directory", func() { os.Mkdir(path, 0o755) }, exitInvalid, "not a regular file"},
		{"not JSON", func() { os.WriteFile(path, []byte("model = x\n"), 0o644) }, exitInvalid, "settings"},
		{"JSON with comments", func() { os.WriteFile(path, []byte("// mine\n{\"model\":\"x\"}\n"), 0o644) }, exitInvalid, "comments"},
		{"too large", func() { os.WriteFile(path, []byte(`{"model":"`+strings.Repeat("x", maxInput)+`"}`), 0o644) }, exitInvalid, "input limit"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			os.RemoveAll(filepath.Dir(path))
			os.MkdirAll(filepath.Dir(path), 0o755)
			c.make()
			before := snapshotDir(t, filepath.Dir(path))
			target, _ := os.ReadFile(elsewhere)
			r := d.run("", "install", "claude-code", "--command-hooks", "--command", binary)
			if r.code != c.code || !strings.Contains(r.stderr, path) || !strings.Contains(r.stderr, c.names) {
				t.Fatalf("install: exit %d (want %d), stderr %q (want it to name %s and say %q)", r.code, c.code, r.stderr, path, c.names)
			}
			if after := snapshotDir(t, filepath.Dir(path)); after != before {
				t.Fatalf("the directory changed:\n%s\nwas\n%s", after, before)
			}
			if now, _ := os.ReadFile(elsewhere); string(now) != string(target) {
				t.Fatalf("the link's target changed: %q", now)
			}
			if c.name == "a symbolic link" {
				// Nothing is written by a dry run: it prints what to add.
				if r := d.run("", "install", "claude-code", "--command-hooks", "--command", binary, "--dry-run"); r.code != 0 || !strings.Contains(r.stdout, "hook claude-code") {
					t.Fatalf("dry run: %+v", r)
				}
			}
			os.Chmod(path, 0o644)
		})
	}
}

// A link planted where install keeps its backup is not written through,
// and uninstall does not take one there for the user's file.
func TestInstallNeverWritesThroughAPlantedBackupLink(t *testing.T) {
	d := newDoctorWS(t)
	path := settingsPathFor(t, d, "claude-code", setup.ScopeProject)
	os.RemoveAll(filepath.Dir(path))
	os.MkdirAll(filepath.Dir(path), 0o755)
	precious := filepath.Join(d.dir, "src-precious.go")
	os.WriteFile(precious, []byte("package precious\n"), 0o644)
	os.WriteFile(path, []byte(usersOwnSettings), 0o644)
	if err := os.Symlink(precious, path+backupSuffix); err != nil {
		t.Fatal(err)
	}
	if r := d.run("", "install", "claude-code", "--command-hooks", "--command", binary); r.code != 0 {
		t.Fatalf("install: %+v", r)
	}
	if b, _ := os.ReadFile(precious); string(b) != "package precious\n" {
		t.Fatalf("install wrote through the link: %q", b)
	}
	if st, err := os.Lstat(path + backupSuffix); err != nil || !st.Mode().IsRegular() {
		t.Fatalf("the backup is not a plain file: %v %v", st, err)
	}
	if b, _ := os.ReadFile(path + backupSuffix); string(b) != usersOwnSettings {
		t.Fatalf("backup %q", b)
	}
	// Swapped for a link again: uninstall removes only leasedeck's entries.
	os.Remove(path + backupSuffix)
	os.Symlink(precious, path+backupSuffix)
	r := d.run("", "uninstall", "claude-code")
	if r.code != 0 {
		t.Fatalf("uninstall: %+v", r)
	}
	if b, _ := os.ReadFile(path); strings.Contains(string(b), "hook claude-code") || strings.Contains(string(b), "package precious") {
		t.Fatalf("after uninstall: %q", b)
	}
	if b, _ := os.ReadFile(precious); string(b) != "package precious\n" {
		t.Fatalf("uninstall wrote through the link: %q", b)
	}
}

// snapshotDir describes a directory's entries: names, kinds, modes, link
// targets and contents.
func snapshotDir(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		st, _ := os.Lstat(p)
		link, _ := os.Readlink(p)
		data, _ := os.ReadFile(p)
		b.WriteString(e.Name() + " " + st.Mode().String() + " " + link + " " + setup.SHA256Hex(data) + "\n")
	}
	return b.String()
}
