package resources

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// Every long option the installed GNU program documents is in its table,
// so that an option the gate has not classified is a decision someone
// made, not one getopt_long makes (an abbreviation of an option missing
// from the table would be taken for another, or refused). Skipped for a
// program that is missing or not GNU.
func TestGenericLongTablesCoverTheInstalledPrograms(t *testing.T) {
	opt := regexp.MustCompile(`--([a-z0-9][a-z0-9-]*)`)
	for prog := range genericLongSpec {
		out, err := exec.Command(prog, "--help").Output()
		if err != nil || !strings.Contains(string(out), "--version") {
			t.Logf("%s: no GNU --help here; skipped", prog)
			continue
		}
		table := genericLong(prog)
		for _, m := range opt.FindAllStringSubmatch(string(out), -1) {
			name := m[1]
			if _, ok := table[name]; !ok && !strings.Contains(string(out), "'--"+name) {
				t.Errorf("%s --%s is documented by the installed %s but not in genericLongSpec", prog, name, prog)
			}
		}
	}
}

// An abbreviation is the option it abbreviates; an ambiguous or unknown
// one is no option at all.
func TestExpandLong(t *testing.T) {
	cp := genericLong("cp")
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"target-directory", "target-directory", true},
		{"target-dir", "target-directory", true},
		{"targ", "target-directory", true},
		{"t", "target-directory", true}, // the only option that starts so
		{"re", "", false},               // recursive, reflink, remove-destination
		{"recursive", "recursive", true},
		{"link", "link", true}, // exact, though "link" prefixes nothing else
		{"no-such", "", false},
	} {
		got, ok := expandLong(cp, c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("expandLong(cp, %q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}
