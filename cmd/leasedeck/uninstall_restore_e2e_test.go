package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/leasedeck/leasedeck/bridge"
	"github.com/leasedeck/leasedeck/bridge/setup"
)

// A user's settings file with proxy exceptions of their own in env, which
// Claude Code's HTTP hooks make install extend.
const usersProxySettings = "{\n  \"env\": {\"NO_PROXY\": \"corp.example\",  \"FOO\": \"1\"},\n\t\"model\" :  \"x\",\n   \"hooks\": {\"PreToolUse\": [ {\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"my-own-check\"}]} ]}\n}"

// A plugin file of the user's own where leasedeck's goes.
const usersOwnPlugin = "// the user's own plugin\nexport const Mine = async () => ({})\n"

// installCase is one way a user's file can stand before install.
type installCase struct {
	name    string
	before  string      // "" for no file
	mode    os.FileMode // the file's mode before install
	haveDir bool        // the file's directory existed before install
}

var installCases = []installCase{
	{name: "no file, no directory"},
	{name: "no file, directory there", haveDir: true},
	{name: "user's file 0644", before: usersProxySettings, mode: 0o644, haveDir: true},
	{name: "user's file 0640", before: usersProxySettings, mode: 0o640, haveDir: true},
}

// prepare puts the case's file (or none) where the client's settings go
// and returns the first directory install will have to create ("" when
// the file's directory is there).
func (c installCase) prepare(t *testing.T, client, path string) string {
	t.Helper()
	created := firstMissingDir(filepath.Dir(path))
	if c.haveDir {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		created = ""
	}
	if c.before == "" {
		return created
	}
	before := c.before
	if bridge.IsPluginClient(client) {
		before = usersOwnPlugin
	}
	if err := os.WriteFile(path, []byte(before), c.mode); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, c.mode)
	return created
}

func firstMissingDir(dir string) string {
	missing := ""
	for d := dir; d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			return missing
		}
		missing = d
	}
	return missing
}

func (c installCase) content(client string) string {
	if bridge.IsPluginClient(client) && c.before != "" {
		return usersOwnPlugin
	}
	return c.before
}

// For every client, scope and starting point, through the binary, with
// proxy variables in install's environment: install, install again with
// another executable (so the second install replaces a file holding
// leasedeck's entries), then uninstall gives back exactly what was there:
// the same bytes and the same mode, no file and no directory where install
// created them, no backup left.
func TestUninstallGivesBackBytesModeAndDirectories(t *testing.T) {
	d := newDoctorWS(t)
	d.env = append(d.env, "NO_PROXY=envhost.example", "no_proxy=envhost.example")
	other := filepath.Join(t.TempDir(), "leasedeck")
	os.Link(binary, other)
	type variant struct{ client, flag string }
	var variants []variant
	for _, client := range bridge.Clients() {
		variants = append(variants, variant{client: client})
	}
	variants = append(variants, variant{"claude-code", "--command-hooks"})
	for _, v := range variants {
		client := v.client
		for _, scope := range []setup.Scope{setup.ScopeProject, setup.ScopeUser} {
			for _, c := range installCases {
				for _, twice := range []bool{false, true} {
					name := client + v.flag + "/" + string(scope) + "/" + c.name + map[bool]string{true: "/installed twice"}[twice]
					t.Run(name, func(t *testing.T) {
						path := settingsPathFor(t, d, client, scope)
						removeClientDirs(t, d, path)
						created := c.prepare(t, client, path)
						install := []string{"install", client, "--scope", string(scope)}
						if v.flag != "" {
							install = append(install, v.flag)
						}
						if r := d.run("", append(install, "--command", binary)...); r.code != 0 {
							t.Fatalf("install: %+v", r)
						}
						if twice {
							if r := d.run("", append(install, "--command", other)...); r.code != 0 {
								t.Fatalf("second install: %+v", r)
							}
						}
						r := d.run("", "uninstall", client, "--scope", string(scope))
						if r.code != 0 || !strings.Contains(r.stdout, "removed leasedeck's") {
							t.Fatalf("uninstall: %+v", r)
						}
						got, err := os.ReadFile(path)
						if c.before == "" {
							if !os.IsNotExist(err) {
								t.Fatalf("the file install created is still there: %q", got)
							}
							if created != "" {
								if _, err := os.Stat(created); !os.IsNotExist(err) {
									t.Errorf("%s, which install created, is still there", created)
								}
							} else if _, err := os.Stat(filepath.Dir(path)); err != nil {
								t.Errorf("the user's directory is gone: %v", err)
							}
							return
						}
						if string(got) != c.content(client) {
							t.Fatalf("not restored byte for byte:\n%q\nwant\n%q\n%s", got, c.content(client), r.stdout)
						}
						if st, _ := os.Stat(path); st.Mode().Perm() != c.mode {
							t.Errorf("mode %v, was %v before install", st.Mode().Perm(), c.mode)
						}
						if _, err := os.Stat(path + backupSuffix); !os.IsNotExist(err) {
							t.Errorf("the backup is left behind")
						}
					})
				}
			}
		}
	}
}

// removeClientDirs clears what an earlier case left where this client's
// file goes, up to (not including) the workspace or the home.
func removeClientDirs(t *testing.T, d *doctorWS, path string) {
	t.Helper()
	top := filepath.Dir(path)
	for dir := top; dir != d.dir && dir != d.home && dir != d.cfg && dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		top = dir
	}
	os.RemoveAll(top)
}

// The user changed the file after install: uninstall takes out exactly
// leasedeck's part (its hooks, and only the proxy exceptions install
// added) and keeps the user's edit, their own proxy exception included,
// and the mode goes back to the user's since install was the one that
// narrowed it.
func TestUninstallKeepsTheUsersEditAndTakesOnlyOurs(t *testing.T) {
	d := newDoctorWS(t)
	d.env = append(d.env, "NO_PROXY=envhost.example")
	for _, client := range bridge.Clients() {
		if bridge.IsPluginClient(client) {
			continue // TestUninstallHoldsAnEditedPlugin
		}
		for _, before := range []string{"", usersProxySettings} {
			name := client + map[bool]string{true: "/no file", false: "/user's file"}[before == ""]
			t.Run(name, func(t *testing.T) {
				path := settingsPathFor(t, d, client, setup.ScopeProject)
				removeClientDirs(t, d, path)
				if before != "" {
					os.MkdirAll(filepath.Dir(path), 0o755)
					os.WriteFile(path, []byte(before), 0o644)
					os.Chmod(path, 0o644)
				}
				if r := d.run("", "install", client, "--command", binary); r.code != 0 {
					t.Fatalf("install: %+v", r)
				}
				// The user's edit: a member of their own, and (Claude Code)
				// a proxy exception of their own beside install's.
				installed := decodeJSON(t, readFile(t, path))
				installed["theme"] = "dark"
				want := map[string]any{}
				if before != "" {
					want = decodeJSON(t, before)
				}
				want["theme"] = "dark"
				if env, ok := installed["env"].(map[string]any); ok && client == "claude-code" {
					env["NO_PROXY"] = env["NO_PROXY"].(string) + ",user.example"
					wenv, _ := want["env"].(map[string]any)
					if wenv == nil {
						wenv = map[string]any{}
						want["env"] = wenv
					}
					if old, _ := wenv["NO_PROXY"].(string); old != "" {
						wenv["NO_PROXY"] = old + ",user.example"
					} else {
						wenv["NO_PROXY"] = "user.example"
					}
				}
				b, _ := json.MarshalIndent(installed, "", "  ")
				st, _ := os.Stat(path)
				os.WriteFile(path, b, st.Mode().Perm())
				r := d.run("", "uninstall", client)
				if r.code != 0 {
					t.Fatalf("uninstall: %+v", r)
				}
				got := decodeJSON(t, readFile(t, path))
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("after uninstall:\n%v\nwant\n%v", got, want)
				}
				if st, _ := os.Stat(path); before != "" && st.Mode().Perm() != 0o644 {
					t.Errorf("mode %v, was 0644 before install", st.Mode().Perm())
				}
			})
		}
	}
}

// A plugin file the user edited after install is no longer only
// leasedeck's: uninstall leaves it (and its backup) in place, says so
// with the commands that finish the job, and exits 3.
func TestUninstallHoldsAnEditedPlugin(t *testing.T) {
	d := newDoctorWS(t)
	for _, client := range []string{"opencode", "pi"} {
		t.Run(client, func(t *testing.T) {
			path := settingsPathFor(t, d, client, setup.ScopeProject)
			os.MkdirAll(filepath.Dir(path), 0o755)
			os.WriteFile(path, []byte(usersOwnPlugin), 0o644)
			if r := d.run("", "install", client, "--command", binary); r.code != 0 {
				t.Fatalf("install: %+v", r)
			}
			edited := readFile(t, path) + "\n// the user's note\n"
			os.WriteFile(path, []byte(edited), 0o644)
			r := d.run("", "uninstall", client)
			if r.code != exitRefused || !strings.Contains(r.stderr, "changed since install") || !strings.Contains(r.stderr, backupSuffix) {
				t.Fatalf("uninstall of an edited plugin: %+v", r)
			}
			if got := readFile(t, path); got != edited {
				t.Fatalf("the edited plugin was changed: %q", got)
			}
			if got := readFile(t, path+backupSuffix); got != usersOwnPlugin {
				t.Fatalf("the backup was changed: %q", got)
			}
		})
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func decodeJSON(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	return m
}
