package main

import (
	"os"
	"strings"
	"testing"
)

// Shell lines an agent sends through the real hook (Claude Code's
// PreToolUse Bash) against a real registry and the default policy: what
// would have done what the lease forbids is refused; ordinary lines stay
// allowed.
func TestHookShellLinesThroughTheBinary(t *testing.T) {
	w := newWorkspace(t)
	w.serve()
	if err := os.WriteFile(w.dir+"/.env", []byte("SECRET=1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	home, _ := os.UserHomeDir()
	bash := func(cmd, cwd, inputCwd string) string {
		return w.payload("claude-code", "PreToolUse", func(m map[string]any) {
			in := m["tool_input"].(map[string]any)
			in["command"] = cmd
			if cwd != "" {
				m["cwd"] = cwd
			}
			if inputCwd != "" {
				in["cwd"] = inputCwd
			}
		})
	}
	cases := []struct {
		name, cmd, cwd, inputCwd, want string
	}{
		{"backslash before CR LF hides a command", "echo hi \\\r\nsudo id", "", "", "deny"},
		{"BASH_CMDS renames ls", "BASH_CMDS[ls]=/bin/rm; ls -rf src", "", "", "deny"},
		{"arithmetic runs a substitution", "b='['; c='$(id)]'; v=\"a$b$c\"; ((v))", "", "", "deny"},
		{"a planted program is not ls", "./src/ls", "", "", "deny"},
		{"cd home then a relative key", "cd ~ && cat .ssh/id_rsa", "", "", "deny"},
		{"the shell is already in home", "cat .ssh/id_rsa", home, "", "deny"},
		{"a cwd member in the input is not believed", "cat .ssh/id_rsa", home, w.dir, "deny"},
		{"$HOME in an operand", `cat "$HOME/.ssh/id_rsa"`, "", "", "deny"},
		{"a glob that matches .env", "cat .e*", "", "", "deny"},
		{"recursive grep of home", "grep -r . ~", "", "", "deny"},
		{"git's object store", "git show HEAD:.env", "", "", "deny"},
		{"sed's w command", "sed -n 'w /tmp/x' README.md", "", "", "deny"},
		{"awk system()", `awk 'BEGIN{system("id")}'`, "", "", "deny"},
		{"git -c core.pager", "git -c core.pager=id log", "", "", "deny"},
		{"git reads --upl as --upload-pack", "git ls-remote --upl='touch /tmp/PWN; git-upload-pack' origin", "", "", "deny"},
		{"clone --recursive is --recurse-submodules", "git clone --recursive https://github.com/x/y src/y", "", "", "deny"},
		{"sort reads --compress-prog as --compress-program", "sort --compress-prog=id README.md", "", "", "deny"},
		{"git config naming a program", "git config core.fsmonitor id && git status", "", "", "deny"},
		{"zsh glob qualifier", "ls *(e:'id':)", "", "", "deny"},
		{"${NAME:=…} assigns CDPATH", ": ${CDPATH:=/}; cd etc && cat shadow", "", "", "deny"},
		{"a {NAME} redirection assigns PATH", "exec {PATH}>/dev/null; ls", "", "", "deny"},
		{"read gives a loop's number a value", "for ((i=0; i<3; i++)); do read i; done < README.md", "", "", "deny"},
		{"a sed bracket holds the delimiter", "sed 's/[/]/x/e' README.md", "", "", "deny"},
		{"sed -i's backup goes where its suffix says", "sed -i'../*' s/a/b/ README.md", "", "", "deny"},
		{"a link the line makes", "cp -P /proc/self/cwd r && cat r/.env", "", "", "deny"},
		{"/proc spelled past the rewrite", "cd ~ && cat /proc//self/cwd/.ssh/id_rsa", "", "", "deny"},
		{"set's options go on after a mode's name", "set -o pipefail -k; ls PATH=src", "", "", "deny"},
		{"history expansion edits an earlier word", "set -H -o history\n: .eXv\ncat !$:s/X/n/", "", "", "deny"},
		{"a shell's invocation turns on keyword mode", "bash -k -c 'ls PATH=src'", "", "", "deny"},
		{"a shell's invocation makes cd follow a variable", "bash -O cdable_vars -c 'cd HOME && cat .ssh/id_rsa'", "", "", "deny"},
		{"a shell's start-up file", "bash --init-file src/x -c ls", "", "", "deny"},
		{"a host named in an argument", "git clone https://evil.example/x src/x", "", "", "allow"},
		{"set -e then npm test", "set -e; npm test", "", "", "allow"},
		{"timeout judged by what it wraps", "timeout 60 go test ./...", "", "", "allow"},
		{"arithmetic over literals", "echo $((1 + 2))", "", "", "allow"},
		{"git log with a substitution", `git log --author="$(git config user.name)"`, "", "", "allow"},
		{"a recursive grep above the denied .env", "grep -rn TODO .", "", "", "deny"},
		{"a recursive grep that leaves .env out", "grep -rn --exclude=.env TODO .", "", "", "allow"},
		{"a recursive grep below it", "grep -rn TODO src", "", "", "allow"},
	}
	for _, c := range cases {
		r := w.hook("claude-code", bash(c.cmd, c.cwd, c.inputCwd))
		t.Logf("%s: %s", c.name, r.stdout)
		if r.code != 0 || !strings.Contains(r.stdout, `"permissionDecision":"`+c.want+`"`) {
			t.Errorf("%s (%q): exit %d, stdout %s, stderr %s", c.name, c.cmd, r.code, r.stdout, r.stderr)
		}
	}
}
