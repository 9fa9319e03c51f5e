package resources

import (
	"os/exec"
	"strings"
	"testing"
)

// fnmatchCases are fnmatch(3) answers with no flags: "*" and "?" cross
// "/" and a leading ".", brackets negate with "!" or "^", and what the
// gate cannot be sure of is not answered.
var fnmatchCases = []struct {
	pat, name string
	match, ok bool
}{
	{".env", ".env", true, true}, {".env", ".ENV", false, true}, {"*", ".env", true, true},
	{".e*", ".env", true, true}, {"*.go", "a.go", true, true}, {"*.go", "a.gox", false, true},
	{"s*t", "src/secret", true, true}, {"?", "/", true, true}, {"s?cret", "secret", true, true},
	{"[ab]c", "bc", true, true}, {"[!ab]c", "bc", false, true}, {"[^ab]c", "cc", true, true},
	{"[]]", "]", true, true}, {"[0-9]x", "5x", true, true}, {`\*`, "*", true, true}, {`\*`, "a", false, true},
	{"[a-z]", "b", false, false}, {"[[:alpha:]]", "a", false, false}, {"[ab", "a", false, false},
	{`x\`, "x", false, false}, {"é", "é", false, false}, {"**", "", true, true}, {"", "", true, true},
	{"a", "", false, true},
}

func TestFnmatch(t *testing.T) {
	for _, c := range fnmatchCases {
		if m, ok := fnmatch(c.pat, c.name); m != c.match || ok != c.ok {
			t.Errorf("fnmatch(%q, %q) = %v, %v, want %v, %v", c.pat, c.name, m, ok, c.match, c.ok)
		}
	}
}

// Where fnmatch answers, bash's own pattern matching ([[ x == p ]], which
// follows fnmatch without flags) agrees.
func TestFnmatchAgreesWithBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	for _, c := range fnmatchCases {
		if !c.ok {
			continue
		}
		err := exec.Command(bash, "-c", `LC_ALL=C; [[ $1 == $2 ]]`, "x", c.name, c.pat).Run()
		if got := err == nil; got != c.match {
			t.Errorf("bash: %q == %q is %v, the table says %v", c.name, c.pat, got, c.match)
		}
	}
}

// fnmatch never fails on any input, a pattern without special bytes
// matches only itself, and "*" followed by a name matches by suffix.
func FuzzFnmatch(f *testing.F) {
	for _, c := range fnmatchCases {
		f.Add(c.pat, c.name)
	}
	f.Fuzz(func(t *testing.T, pat, name string) {
		m, ok := fnmatch(pat, name)
		if !ok {
			return
		}
		if !strings.ContainsAny(pat, `*?[\`) && m != (pat == name) {
			t.Fatalf("literal %q against %q: %v", pat, name, m)
		}
		if lit, star := strings.CutPrefix(pat, "*"); star && !strings.ContainsAny(lit, `*?[\`) && m != strings.HasSuffix(name, lit) {
			t.Fatalf("%q against %q: %v", pat, name, m)
		}
	})
}
