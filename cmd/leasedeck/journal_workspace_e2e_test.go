package main

import (
	"os"
	"path/filepath"
	"testing"
)

// journal verify, tail and pubkey find the workspace from a subdirectory,
// and from anywhere with --workspace, like every other subcommand.
func TestJournalFindsWorkspace(t *testing.T) {
	w := newWorkspace(t)
	w.serve()
	w.issue(w.writeManifest("root", 5, nil), "")
	w.stop()
	root := w.dir
	sub := filepath.Join(root, "src", "deep")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	elsewhere := t.TempDir()
	for _, c := range []struct {
		dir  string
		args []string
	}{
		{sub, []string{"journal", "verify"}},
		{sub, []string{"journal", "tail"}},
		{sub, []string{"journal", "pubkey"}},
		{elsewhere, []string{"journal", "verify", "--workspace", root}},
		{elsewhere, []string{"journal", "tail", "--workspace", root, "-n", "0"}},
	} {
		w.dir = c.dir
		if r := w.run("", c.args...); r.code != 0 {
			t.Errorf("%v in %s: exit %d\n%s%s", c.args, c.dir, r.code, r.stdout, r.stderr)
		}
	}
	w.dir = elsewhere
	if r := w.run("", "journal", "verify"); r.code != exitInvalid {
		t.Errorf("journal verify outside any workspace: exit %d, want %d\n%s", r.code, exitInvalid, r.stderr)
	}
}
