package setup

import (
	"bytes"
	"strings"
	"testing"

	"github.com/leasedeck/leasedeck/bridge"
)

// userFiles are settings files as users write them: none at all, empty,
// odd spacing and tabs, the user's own hooks on the events install uses,
// unknown members, numbers in odd notation, no trailing newline.
var userFiles = map[string]string{
	"no file":  "",
	"empty":    "{}",
	"odd":      "{\n\t\"model\" :  \"x\" ,\"n\": 1.50e1,\n\n  \"hooks\":{ }\n}",
	"own hook": `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"my-own-check","timeout":5}]}],"Stop":[{"hooks":[{"type":"command","command":"notify-send done"}]}]},"permissions":{"allow":["Bash(git *)"]}}`,
	"flat own": `{"version":1,"hooks":{"PreToolUse":[{"type":"command","command":"my-own-check"}]}}   `,
}

func uninstallOpts(client string) UninstallOptions {
	return UninstallOptions{Owner: Owner{Client: client, Workspace: "/src/shop", Commands: []string{installOpts(client).Command}}}
}

// For every client and every kind of user file: install and then
// uninstall gives back the file's bytes exactly (or no file), and a second
// uninstall changes nothing.
func TestUninstallRestoresTheBytes(t *testing.T) {
	for _, client := range bridge.Clients() {
		if bridge.IsPluginClient(client) {
			continue // TestUninstallPlugin
		}
		for name, before := range userFiles {
			t.Run(client+"/"+name, func(t *testing.T) {
				in, err := Install(client, []byte(before), installOpts(client))
				if err != nil {
					t.Fatal(err)
				}
				opts := uninstallOpts(client)
				opts.Backup, opts.HaveBackup = []byte(before), name != "no file"
				res, err := Uninstall(client, in.Bytes, opts)
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Removed) == 0 {
					t.Fatalf("nothing removed from %s", in.Bytes)
				}
				if name == "no file" {
					if !res.Delete {
						t.Fatalf("a file install created is not deleted: %s", res.Bytes)
					}
					return
				}
				if !res.Restored || string(res.Bytes) != before {
					t.Fatalf("restored %v:\n%q\nwant\n%q", res.Restored, res.Bytes, before)
				}
				again, err := Uninstall(client, res.Bytes, uninstallOpts(client))
				if err != nil || len(again.Removed) != 0 || !bytes.Equal(again.Bytes, res.Bytes) {
					t.Fatalf("second uninstall: %+v %v", again, err)
				}
			})
		}
	}
}

// The user edited the file after install: only leasedeck's entries go,
// the user's (old and new) stay, and the backup is not restored.
func TestUninstallKeepsTheUsersChanges(t *testing.T) {
	for _, client := range bridge.Clients() {
		if bridge.IsPluginClient(client) {
			continue
		}
		t.Run(client, func(t *testing.T) {
			before := userFiles["own hook"]
			in, err := Install(client, []byte(before), installOpts(client))
			if err != nil {
				t.Fatal(err)
			}
			edited := strings.Replace(string(in.Bytes), `"my-own-check"`, `"my-own-check --strict"`, 1)
			edited = strings.Replace(edited, `"permissions": {`, `"theme": "dark", "permissions": {`, 1)
			opts := uninstallOpts(client)
			opts.Backup, opts.HaveBackup = []byte(before), true
			res, err := Uninstall(client, []byte(edited), opts)
			if err != nil {
				t.Fatal(err)
			}
			out := string(res.Bytes)
			if res.Restored || res.Delete || strings.Contains(out, "leasedeck hook") {
				t.Fatalf("restored %v delete %v:\n%s", res.Restored, res.Delete, out)
			}
			for _, keep := range []string{"my-own-check --strict", "notify-send done", `"theme": "dark"`, "Bash(git *)", `"matcher": "Bash"`} {
				if !strings.Contains(out, keep) {
					t.Errorf("lost %q:\n%s", keep, out)
				}
			}
			if len(decodeStd(t, res.Bytes)) != 3 {
				t.Errorf("members: %s", out)
			}
		})
	}
}

// Entries for another workspace, other clients' and lines that only look
// like ours stay; a backup that itself holds our entries is not restored.
func TestUninstallRemovesOnlyOurs(t *testing.T) {
	file := `{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[
		{"type":"command","command":"/usr/bin/leasedeck hook claude-code --workspace /src/shop --timeout 150"},
		{"type":"command","command":"/usr/bin/leasedeck hook claude-code --workspace /src/other --timeout 150"},
		{"type":"command","command":"/usr/bin/leasedeck hook claude-code --workspace /src/shop --timeout 150; curl x"},
		{"type":"command","command":"my-own-check"}]}]}}`
	opts := uninstallOpts("claude-code")
	opts.Backup, opts.HaveBackup = []byte(file), true
	res, err := Uninstall("claude-code", []byte(file), opts)
	if err != nil {
		t.Fatal(err)
	}
	out := string(res.Bytes)
	if res.Restored || len(res.Removed) != 1 || strings.Contains(out, "/src/shop --timeout 150\"") {
		t.Fatalf("%+v\n%s", res, out)
	}
	for _, keep := range []string{"/src/other", "; curl x", "my-own-check"} {
		if !strings.Contains(out, keep) {
			t.Errorf("lost %q", keep)
		}
	}
	if _, err := Uninstall("claude-code", []byte("{not json"), opts); err == nil {
		t.Error("a file that is not JSON was accepted")
	}
}

// A plugin file is leasedeck's: uninstall deletes it, or brings back the
// file install replaced; another workspace's plugin and a file leasedeck
// did not write stay.
func TestUninstallPlugin(t *testing.T) {
	for _, client := range bridge.Clients() {
		if !bridge.IsPluginClient(client) {
			continue
		}
		t.Run(client, func(t *testing.T) {
			src, err := PluginSource(client, PluginOptions{Executable: "/usr/bin/leasedeck", Workspace: "/src/shop", Timeout: secs(150)})
			if err != nil {
				t.Fatal(err)
			}
			opts := uninstallOpts(client)
			if res, _ := Uninstall(client, src, opts); !res.Delete || len(res.Removed) == 0 {
				t.Fatalf("no backup: %+v", res)
			}
			foreign := []byte("// the user's own plugin\nexport default {}\n")
			opts.Backup, opts.HaveBackup = foreign, true
			if res, _ := Uninstall(client, src, opts); !res.Restored || !bytes.Equal(res.Bytes, foreign) {
				t.Fatalf("backup: %+v", res)
			}
			opts.Backup = src // an older leasedeck plugin is not brought back
			if res, _ := Uninstall(client, src, opts); !res.Delete {
				t.Fatalf("stale backup: %+v", res)
			}
			other, _ := PluginSource(client, PluginOptions{Executable: "/usr/bin/leasedeck", Workspace: "/src/other", Timeout: secs(150)})
			for _, keep := range [][]byte{other, foreign} {
				if res, _ := Uninstall(client, keep, uninstallOpts(client)); len(res.Removed) != 0 || res.Delete || !bytes.Equal(res.Bytes, keep) {
					t.Fatalf("%+v", res)
				}
			}
		})
	}
}

// Claude Code's HTTP hooks and the NO_PROXY install puts beside them go
// too: with a backup the file comes back byte for byte, without one the
// file install created goes; after the user's edits, NO_PROXY is the
// backup's again.
func TestUninstallHTTPHooks(t *testing.T) {
	opts := installOpts("claude-code")
	opts.HTTP = &HTTPHooks{Base: "http://127.0.0.1:43117" + ClaudeHTTPPath, Token: "tok", NoProxy: "corp.example"}
	for name, before := range userFiles {
		in, err := Install("claude-code", []byte(before), opts)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(in.Bytes), `"type": "http"`) || !strings.Contains(string(in.Bytes), "NO_PROXY") {
			t.Fatalf("%s: install wrote no HTTP hooks: %s", name, in.Bytes)
		}
		u := uninstallOpts("claude-code")
		u.Backup, u.HaveBackup = []byte(before), name != "no file"
		res, err := Uninstall("claude-code", in.Bytes, u)
		if err != nil {
			t.Fatal(err)
		}
		if name == "no file" {
			if !res.Delete {
				t.Errorf("%s: %+v %s", name, res, res.Bytes)
			}
			continue
		}
		if !res.Restored || string(res.Bytes) != before {
			t.Errorf("%s: restored %v %q", name, res.Restored, res.Bytes)
		}
	}
	user := `{"env":{"NO_PROXY":"corp.example"},"hooks":{}}`
	in, _ := Install("claude-code", []byte(user), opts)
	edited := strings.Replace(string(in.Bytes), `"env": {`, `"theme": "dark", "env": {`, 1)
	u := uninstallOpts("claude-code")
	u.Backup, u.HaveBackup = []byte(user), true
	res, err := Uninstall("claude-code", []byte(edited), u)
	if err != nil {
		t.Fatal(err)
	}
	out := string(res.Bytes)
	if res.Restored || !strings.Contains(out, "dark") || strings.Contains(out, "127.0.0.1") || strings.Contains(out, "no_proxy") || !strings.Contains(out, `"NO_PROXY": "corp.example"`) || strings.Contains(out, "http") {
		t.Errorf("without a backup: %s", out)
	}
}
