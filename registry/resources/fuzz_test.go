package resources

import "testing"

// FuzzShell asserts that the analysis never panics, whatever the input, and
// that a successful analysis reports only names and paths it can stand by.
func FuzzShell(f *testing.F) {
	for _, tc := range shellCases {
		f.Add(tc.cmd)
	}
	for _, s := range []string{
		"", "\x00", "$'", "<<", "a <<EOF\n", "f() { f; }; f", "${x[$(rm)]}", "case", "((x=$(id)))",
		"exec {fd}>out", "coproc x { y; }", "time", "!", "cat <<-EOF\n\tx\n\tEOF", "a |& b", "$\"rm\" x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		use, err := analyzeShell(cmd, "") // no recover: a panic fails the fuzz run
		if err != nil {
			return
		}
		for _, e := range use.Executables {
			if e == "" {
				t.Fatalf("Shell(%q) reported an empty executable", cmd)
			}
		}
		for _, p := range append(append([]string(nil), use.Reads...), use.Writes...) {
			if p == "" {
				t.Fatalf("Shell(%q) reported an empty path", cmd)
			}
		}
	})
}
