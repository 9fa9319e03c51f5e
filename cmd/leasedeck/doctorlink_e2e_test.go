package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A client settings file that is a symbolic link is one install and
// uninstall refuse (they neither write through a link nor replace it), and
// its hooks are whatever the file it names says, which whoever can write
// that file decides. Doctor says so as a problem, with the exact command
// that replaces the link with a copy of its file; after it doctor no longer
// finds it and install rewrites the file. A link to nothing is the same
// problem, its fix removing the link and installing again.
func TestDoctorFindsASymlinkedSettingsFile(t *testing.T) {
	for _, dangling := range []bool{false, true} {
		name := "a link to the settings"
		if dangling {
			name = "a link to nothing"
		}
		t.Run(name, func(t *testing.T) {
			d := newDoctorWS(t)
			d.serve()
			d.program(t, "", "claude", "2.1.328 (Claude Code)")
			if r := d.run("", "install", "claude-code", "--command", binary); r.code != 0 {
				t.Fatal(r)
			}
			settings := d.settings(t)
			elsewhere := filepath.Join(t.TempDir(), "dotfiles", "claude settings.json")
			os.MkdirAll(filepath.Dir(elsewhere), 0o755)
			if err := os.Rename(settings, elsewhere); err != nil {
				t.Fatal(err)
			}
			if dangling {
				os.Remove(elsewhere)
			}
			if err := os.Symlink(elsewhere, settings); err != nil {
				t.Fatal(err)
			}
			if r := d.run("", "install", "claude-code", "--command", binary); r.code != exitRefused || !strings.Contains(r.stderr, "symbolic link") {
				t.Fatalf("install over the link: %+v", r)
			}
			rep, r := d.doctor(t)
			var found *finding
			for _, f := range problems(rep) {
				if strings.Contains(f.Detail, "symbolic link") && strings.Contains(f.Detail, settings) {
					found = &f
				}
			}
			if found == nil || r.code != 1 || found.Fix == "" {
				t.Fatalf("exit %d; no problem naming the link in %+v", r.code, rep.Findings)
			}
			// The fix is one shell command line; the test's leasedeck is
			// the binary under test.
			fix := strings.ReplaceAll(found.Fix, "leasedeck install", binary+" install")
			cmd := exec.Command("sh", "-c", fix)
			cmd.Dir, cmd.Env = d.dir, d.env
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("fix %q: %v\n%s", found.Fix, err, out)
			}
			if st, err := os.Lstat(settings); err != nil || !st.Mode().IsRegular() {
				t.Fatalf("after the fix the settings file is %v %v", st, err)
			}
			rep, _ = d.doctor(t)
			for _, f := range rep.Findings {
				if strings.Contains(f.Detail, "symbolic link") {
					t.Fatalf("after %q: %+v", found.Fix, f)
				}
			}
			if r := d.run("", "install", "claude-code", "--command", binary); r.code != 0 {
				t.Fatalf("install after the fix: %+v", r)
			}
			if !dangling {
				if b, err := os.ReadFile(elsewhere); err != nil || !strings.Contains(string(b), "leasedeck") {
					t.Fatalf("the file the link named: %v %s", err, b)
				}
			}
		})
	}
}
