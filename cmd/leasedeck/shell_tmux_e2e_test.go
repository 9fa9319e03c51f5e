package main

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The command line as a person types it: a real bash in tmux, commands
// typed with keys, their output and exit status read from the screen.

// shellSession is a bash prompt in tmux, in a workspace's directory and
// environment.
type shellSession struct {
	*tmuxSession
	n int
}

func newShell(t *testing.T, w *wsEnv) *shellSession {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (CI installs it; locally: apt-get install -y tmux); skipping the terminal end-to-end test")
	}
	s := &shellSession{tmuxSession: &tmuxSession{t: t, name: fmt.Sprintf("leasedeck-sh-%d-%d", os.Getpid(), time.Now().UnixNano()%1e6)}}
	env := []string{"env", "-u", "LEASEDECK_WORKSPACE", "XDG_CONFIG_HOME=" + w.cfg, "XDG_STATE_HOME=" + w.state,
		"PATH=" + binDir() + ":/usr/bin:/bin", "PS1=$ ", "TERM=xterm-256color", "bash", "--norc", "--noprofile"}
	s.tmux(append([]string{"new-session", "-d", "-s", s.name, "-x", "200", "-y", "50", "-c", w.dir}, env...)...)
	t.Cleanup(func() { exec.Command("tmux", "kill-session", "-t", s.name).Run() })
	s.waitScreen("the prompt", 10*time.Second, func(sc string) bool { return strings.Contains(sc, "$") })
	return s
}

// binDir is the directory of the binary under test, put first on PATH so
// the shell's `leasedeck` is it.
func binDir() string {
	i := strings.LastIndex(binary, "/")
	return binary[:i]
}

var rcLine = regexp.MustCompile(`@@rc=(\d+) #(\d+)`)

// run types line at the prompt (after clearing the screen) and returns
// its exit status and what the screen shows above the status line.
func (s *shellSession) run(line string) (int, string) {
	s.t.Helper()
	s.n++
	n := s.n
	s.text("clear")
	s.keys("Enter")
	// The status is printed by the same line, so it is on the screen when
	// the command is done.
	s.text(line + `; echo "@@rc=$? #` + strconv.Itoa(n) + `"`)
	s.keys("Enter")
	sc := s.waitScreen(fmt.Sprintf("command %d (%s)", n, line), 20*time.Second, func(sc string) bool {
		for _, m := range rcLine.FindAllStringSubmatch(sc, -1) {
			if m[2] == strconv.Itoa(n) {
				return true
			}
		}
		return false
	})
	for _, m := range rcLine.FindAllStringSubmatch(sc, -1) {
		if m[2] == strconv.Itoa(n) {
			rc, _ := strconv.Atoi(m[1])
			return rc, sc
		}
	}
	return -1, sc
}

// --version, and help / -h of every subcommand, typed in a shell: exit 0,
// a synopsis ("Usage") and examples on the screen.
func TestCLIHelpAndVersionInAShell(t *testing.T) {
	w := newWorkspace(t)
	sh := newShell(t, w)
	rc, sc := sh.run("leasedeck --version")
	if rc != 0 || !regexp.MustCompile(`(?m)^leasedeck \S+`).MatchString(sc) {
		t.Errorf("--version: exit %d, screen:\n%s", rc, sc)
	}
	names := []string{""}
	for _, c := range commandTable {
		names = append(names, c.name)
	}
	for _, name := range names {
		for _, form := range []string{"leasedeck help " + name, "leasedeck " + name + " -h"} {
			if name == "" && strings.HasSuffix(form, " -h") {
				form = "leasedeck -h"
			}
			// The help is longer than the screen: what it says is
			// summed up on one line by grep, typed as a person would.
			rc, sc := sh.run(strings.TrimSpace(form) + ` | grep -oE '^(Usage|Examples?)' | sort -u | tr '\n' ' '; (exit ${PIPESTATUS[0]})`)
			if rc != 0 || !strings.Contains(sc, "Usage") || !strings.Contains(sc, "Example") {
				t.Errorf("%s: exit %d; the screen:\n%s", form, rc, sc)
			}
		}
	}
}

// Lease ids by prefix, typed in a shell: a unique 8-character prefix
// works for check --lease, issue --parent and revoke; an ambiguous one lists the candidates and
// exits 1.
func TestCLIIDPrefixesInAShell(t *testing.T) {
	w := newWorkspace(t)
	w.serve()
	byFirst := map[byte][]string{}
	var shared []string
	var first string
	for i := 0; shared == nil && i < 40; i++ {
		id := w.issue(w.writeManifest("agent", 5, nil), "")
		if first == "" {
			first = id
		}
		byFirst[id[0]] = append(byFirst[id[0]], id)
		if len(byFirst[id[0]]) == 2 {
			shared = byFirst[id[0]]
		}
	}
	if shared == nil {
		t.Fatal("no two lease ids share a first character")
	}
	sh := newShell(t, w)
	// The commands that take a lease: check --lease, issue --parent, revoke.
	if rc, sc := sh.run("leasedeck check --lease " + first[:8] + ` --tool Bash --input '{"command":"git status"}'`); rc != 0 || !strings.Contains(sc, "allow: within the lease") {
		t.Errorf("check --lease %s: exit %d; the screen:\n%s", first[:8], rc, sc)
	}
	if rc, sc := sh.run("leasedeck issue " + w.writeManifest("child", 2, nil) + " --parent " + first[:8]); rc != 0 || !strings.Contains(sc, first) {
		t.Errorf("issue --parent %s: exit %d; the screen:\n%s", first[:8], rc, sc)
	}
	rc, sc := sh.run("leasedeck revoke " + shared[0][:1] + ` --reason "which one"`)
	if rc != 1 || !strings.Contains(sc, "ambiguous") || !strings.Contains(sc, shared[0]) || !strings.Contains(sc, shared[1]) {
		t.Errorf("revoke of an ambiguous prefix: exit %d (want 1, listing %v); the screen:\n%s", rc, shared, sc)
	}
	if rc, sc := sh.run("leasedeck revoke " + first[:8] + ` --reason "done here"`); rc != 0 || !strings.Contains(sc, first) {
		t.Errorf("revoke %s: exit %d; the screen:\n%s", first[:8], rc, sc)
	}
	if st := w.leases()[first].Status; st != "revoked" {
		t.Errorf("after revoke by prefix the lease is %s", st)
	}
}
