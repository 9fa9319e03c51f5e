package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leasedeck/leasedeck/bridge"
	"github.com/leasedeck/leasedeck/bridge/setup"
)

// A user's settings file with odd formatting and hooks of their own.
const usersOwnSettings = "{\n\t\"model\" :  \"x\",\n   \"hooks\": {\"PreToolUse\": [ {\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"my-own-check\"}]} ]},\n\n\"n\": 1.50e1 }"

func settingsPathFor(t *testing.T, d *doctorWS, client string, scope setup.Scope) string {
	t.Helper()
	p, err := setup.SettingsPath(client, scope, setup.Locations{Workspace: d.dir, Home: d.home, ConfigHome: d.cfg})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// For every client and scope, through the binary: install then uninstall
// gives back the user's file byte for byte (and no backup left), or no
// file when there was none; a second uninstall says there is nothing to
// remove.
func TestUninstallRestoresTheUsersFile(t *testing.T) {
	d := newDoctorWS(t)
	for _, client := range bridge.Clients() {
		for _, scope := range []setup.Scope{setup.ScopeProject, setup.ScopeUser} {
			for _, before := range []string{"", usersOwnSettings} {
				name := client + "/" + string(scope) + "/" + map[bool]string{true: "no file", false: "user's file"}[before == ""]
				t.Run(name, func(t *testing.T) {
					path := settingsPathFor(t, d, client, scope)
					os.RemoveAll(filepath.Dir(path))
					if before != "" {
						os.MkdirAll(filepath.Dir(path), 0o755)
						if err := os.WriteFile(path, []byte(before), 0o640); err != nil {
							t.Fatal(err)
						}
					}
					if r := d.run("", "install", client, "--scope", string(scope), "--command", binary); r.code != 0 {
						t.Fatalf("install: %+v", r)
					}
					if b, _ := os.ReadFile(path); !strings.Contains(string(b), "hook "+client) && !strings.Contains(string(b), `"hook","`+client+`"`) {
						t.Fatalf("install wrote no hooks: %s", b)
					}
					r := d.run("", "uninstall", client, "--scope", string(scope))
					if r.code != 0 || !strings.Contains(r.stdout, "removed leasedeck's hooks") {
						t.Fatalf("uninstall: %+v", r)
					}
					got, err := os.ReadFile(path)
					switch {
					case before == "" && !os.IsNotExist(err):
						t.Fatalf("the file install created is still there: %q", got)
					case before != "" && string(got) != before:
						t.Fatalf("not restored byte for byte:\n%q\nwant\n%q", got, before)
					}
					if before != "" {
						// Claude Code's HTTP hooks carry a token, so install
						// narrowed the file to 0600; uninstall, which takes
						// the token out, gives the user's mode back.
						if st, _ := os.Stat(path); st.Mode().Perm() != 0o640 {
							t.Errorf("mode %v", st.Mode().Perm())
						}
					}
					if _, err := os.Stat(path + backupSuffix); !os.IsNotExist(err) {
						t.Errorf("the backup is left behind")
					}
					if r := d.run("", "uninstall", client, "--scope", string(scope)); r.code != 0 || !strings.Contains(r.stdout, "no leasedeck hooks") && !strings.Contains(r.stdout, "does not exist") {
						t.Errorf("second uninstall: %+v", r)
					}
				})
			}
		}
	}
}

// The user changed the file after install: uninstall removes only
// leasedeck's entries, keeps the user's change and their hooks, and
// leaves the backup.
func TestUninstallAfterTheUserEdited(t *testing.T) {
	d := newDoctorWS(t)
	path := d.settings(t)
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte(usersOwnSettings), 0o644)
	if r := d.run("", "install", "claude-code", "--command", binary); r.code != 0 {
		t.Fatal(r)
	}
	d.edit(t, path, `"model": "x"`, `"model": "y", "theme": "dark"`)
	if r := d.run("", "uninstall", "claude-code", "--dry-run"); r.code != 0 || strings.Contains(r.stdout, "hook claude-code") || !strings.Contains(r.stdout, "dark") {
		t.Fatalf("dry run: %+v", r)
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "hook claude-code") {
		t.Fatal("the dry run wrote the file")
	}
	r := d.run("", "uninstall", "claude-code")
	if r.code != 0 || !strings.Contains(r.stdout, "changed since install") {
		t.Fatalf("%+v", r)
	}
	b, _ := os.ReadFile(path)
	for _, keep := range []string{`"model": "y"`, `"theme": "dark"`, "my-own-check", `"matcher": "Bash"`} {
		if !strings.Contains(string(b), keep) {
			t.Errorf("lost %q: %s", keep, b)
		}
	}
	if strings.Contains(string(b), "leasedeck") {
		t.Errorf("leasedeck's entries are left: %s", b)
	}
	if _, err := os.Stat(path + backupSuffix); err != nil {
		t.Errorf("the backup was removed: %v", err)
	}
	// Usage and an unknown client.
	if r := d.run("", "uninstall"); r.code != 2 {
		t.Errorf("no client: %+v", r)
	}
	if r := d.run("", "uninstall", "emacs"); r.code != 2 {
		t.Errorf("unknown client: %+v", r)
	}
	os.WriteFile(path, []byte("{broken"), 0o644)
	if r := d.run("", "uninstall", "claude-code"); r.code != 1 {
		t.Errorf("a broken file: %+v", r)
	}
}

// Where a client's home is moved by its environment variable, install and
// uninstall find the same file: uninstall once looked for Copilot CLI's
// hooks under ~/.copilot while install had written them under
// $COPILOT_HOME, and left them installed.
func TestUninstallFindsWhatInstallWroteUnderAMovedHome(t *testing.T) {
	d := newDoctorWS(t)
	moved := map[string]string{"copilot": "COPILOT_HOME", "codex": "CODEX_HOME", "gemini": "GEMINI_CLI_HOME", "pi": "PI_CODING_AGENT_DIR"}
	for client, variable := range moved {
		t.Run(client, func(t *testing.T) {
			dir := t.TempDir()
			env := d.env
			d.env = append(append([]string(nil), env...), variable+"="+dir)
			defer func() { d.env = env }()
			if r := d.run("", "install", client, "--scope", "user"); r.code != 0 {
				t.Fatalf("install: %+v", r)
			}
			var written []string
			filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
				if err == nil && !e.IsDir() {
					written = append(written, p)
				}
				return nil
			})
			if len(written) == 0 {
				t.Fatalf("install wrote nothing under $%s", variable)
			}
			if r := d.run("", "uninstall", client, "--scope", "user"); r.code != 0 {
				t.Fatalf("uninstall: %+v", r)
			}
			for _, p := range written {
				if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), "leasedeck") {
					t.Errorf("%s still holds leasedeck's hooks after uninstall:\n%s", p, b)
				}
			}
		})
	}
}
