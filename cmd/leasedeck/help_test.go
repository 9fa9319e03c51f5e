package main

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// Every command in the table, asked for help both ways through the built
// binary, prints its page on stdout and exits 0.
func TestHelpOfEveryCommand(t *testing.T) {
	for _, c := range append([]command{cockpitCommand}, commandTable...) {
		words := strings.Fields(c.name)
		forms := [][]string{append(append([]string{}, words...), "-h"), append(append([]string{}, words...), "--help")}
		if c.name != "" {
			forms = append(forms, append([]string{"help"}, words...))
		}
		for _, args := range forms {
			r := runBin(t, "", args...)
			if r.code != 0 || !strings.Contains(r.stdout, "Usage") || !strings.Contains(r.stdout, "Example") {
				t.Errorf("leasedeck %v: exit %d, stdout:\n%s\nstderr:\n%s", args, r.code, r.stdout, r.stderr)
			}
			if c.name != "" && !strings.Contains(r.stdout, "Usage: leasedeck "+c.synopsis) {
				t.Errorf("leasedeck %v: no synopsis in\n%s", args, r.stdout)
			}
			if !strings.Contains(r.stdout, "Exit codes") {
				t.Errorf("leasedeck %v: no exit codes in\n%s", args, r.stdout)
			}
		}
		if fs := flagSetOf(&c); fs != nil && c.name != "" {
			page := runBin(t, "", append(words, "-h")...).stdout
			for _, f := range flagNames(fs) {
				if !strings.Contains(page, "  -"+strings.TrimPrefix(f, "--")) {
					t.Errorf("leasedeck %s -h does not list %s", c.name, f)
				}
			}
		}
	}
}

func TestHelpListsEveryCommand(t *testing.T) {
	r := runBin(t, "", "help")
	if r.code != 0 {
		t.Fatalf("help: exit %d", r.code)
	}
	for _, c := range commandTable {
		if !strings.Contains(r.stdout, "  "+c.name+" ") {
			t.Errorf("help does not list %q", c.name)
		}
	}
	if r := runBin(t, "", "help", "no-such"); r.code != exitUsage {
		t.Errorf("help no-such: exit %d, want %d", r.code, exitUsage)
	}
}

func TestVersion(t *testing.T) {
	a, b := runBin(t, "", "--version"), runBin(t, "", "version")
	if a.code != 0 || b.code != 0 || a.stdout != b.stdout || !strings.HasPrefix(a.stdout, "leasedeck ") || len(strings.TrimSpace(a.stdout)) <= len("leasedeck") {
		t.Fatalf("--version %q (exit %d), version %q (exit %d)", a.stdout, a.code, b.stdout, b.code)
	}
	if strings.TrimSpace(a.stdout) != "leasedeck "+versionOfBinary(t) {
		t.Errorf("--version says %q, the build info %q", a.stdout, versionOfBinary(t))
	}
}

// versionOfBinary reads the module version the Go toolchain recorded.
func versionOfBinary(t *testing.T) string {
	out, err := exec.Command("go", "version", "-m", binary).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) >= 3 && f[0] == "mod" {
			v := f[2]
			for _, l := range strings.Split(string(out), "\n") {
				if g := strings.Fields(l); len(g) == 2 && strings.HasPrefix(g[1], "vcs.revision=") {
					v += " " + strings.TrimPrefix(g[1], "vcs.revision=")[:12]
				}
			}
			if strings.Contains(string(out), "vcs.modified=true") {
				v += "+dirty"
			}
			return v
		}
	}
	t.Fatalf("no mod line in\n%s", out)
	return ""
}

func TestCompletionScripts(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish"} {
		r := runBin(t, "", "completion", sh)
		if r.code != 0 || !strings.Contains(r.stdout, "revoke") || !strings.Contains(r.stdout, "fail-closed") {
			t.Fatalf("completion %s: exit %d\n%s", sh, r.code, r.stdout)
		}
		check := map[string][]string{"bash": {"bash", "-n"}, "zsh": {"zsh", "-n"}, "fish": {"fish", "--no-execute"}}[sh]
		if _, err := exec.LookPath(check[0]); err != nil {
			t.Logf("%s is not installed: its script is not syntax-checked", sh)
			continue
		}
		cmd := exec.Command(check[0], check[1:]...)
		cmd.Stdin = strings.NewReader(r.stdout)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s rejects its completion script: %v\n%s", sh, err, out)
		}
	}
	if r := runBin(t, "", "completion", "tcsh"); r.code != exitUsage {
		t.Errorf("completion tcsh: exit %d, want %d", r.code, exitUsage)
	}
}

// The bash script completes what the table holds: a command's flags after
// the command, journal's subcommands after journal.
func TestBashCompletionCompletes(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	script := runBin(t, "", "completion", "bash").stdout
	cases := []struct{ line, want string }{
		{"leasedeck install --fa", "--fail-closed"},
		{"leasedeck journal ta", "tail"},
		{"leasedeck journal tail --fo", "--follow"},
		{"leasedeck rev", "revoke"},
	}
	for _, c := range cases {
		words := strings.Fields(c.line)
		prog := script + "\nCOMP_WORDS=(" + c.line + ")\nCOMP_CWORD=" + strconv.Itoa(len(words)-1) + "\n_leasedeck\necho \"${COMPREPLY[@]}\"\n"
		out, err := exec.Command("bash", "-c", prog).Output()
		if err != nil || !strings.Contains(string(out), c.want) {
			t.Errorf("%q completes to %q (%v), want %q", c.line, out, err, c.want)
		}
	}
}
