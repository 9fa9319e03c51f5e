package resources

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestGitLongOptions(t *testing.T) {
	cases := []struct {
		sub, given, full, err string
	}{
		{"clone", "upload-pack", "upload-pack", ""},
		{"clone", "upload-p", "upload-pack", ""},
		{"clone", "recur", "recurse-submodules", ""},     // --recursive is an alias: not ambiguous
		{"clone", "recursive", "recurse-submodules", ""}, // the alias itself
		{"clone", "no-recursive", "no-recurse-submodules", ""},
		{"clone", "no-recur", "no-recurse-submodules", ""},
		{"ls-remote", "upl", "upload-pack", ""},
		{"ls-remote", "ex", "", "ambiguous"},
		{"reset", "har", "hard", ""},
		{"commit", "no-verif", "no-verify", ""},
		{"commit", "no-ver", "", "ambiguous"},
		{"commit", "frobnicate", "", "not an option the gate knows"},
		{"fetch", "recursive", "", "not an option the gate knows"},
		{"commit", "help", "help", ""},
		{"log", "oneline", "oneline", ""},       // a revision option: git matches it exactly
		{"log", "out", "", "spell options out"}, // git refuses --out; the gate does not guess
		{"log", "skip", "skip", ""},             // --skip is a revision option of its own
		{"log", "no-decorate-refs-e", "no-decorate-refs-exclude", ""},
		{"log", "no-dec", "", "ambiguous"},
		{"blame", "porc", "porcelain", ""},
		{"blame", "since", "since", ""},
		{"rev-parse", "show-toplevel", "show-toplevel", ""}, // no table: git matches by hand
	}
	for _, c := range cases {
		full, why := gitLongOpt(c.sub, c.given)
		if c.err != "" {
			if !strings.Contains(why, c.err) {
				t.Errorf("git %s --%s: %q, %q; want a refusal containing %q", c.sub, c.given, full, why, c.err)
			}
			continue
		}
		if why != "" || full != c.full {
			t.Errorf("git %s --%s = %q, %q; want %q", c.sub, c.given, full, why, c.full)
		}
	}
}

// For random prefixes of every option in the table, the gate reads
// `git SUB --PREFIX…` as it reads the line with the option spelled out,
// or refuses it.
func TestGitPrefixReadsAsTheFullOption(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 2026))
	subs := make([]string, 0, len(gitOptsText))
	for sub := range gitOptsText {
		subs = append(subs, sub)
	}
	slices.Sort(subs)
	tried := 0
	for _, sub := range subs {
		for _, f := range strings.Fields(gitOptsText[sub]) {
			name, takesValue := strings.CutSuffix(f, "=")
			prefix := name[:1+rng.IntN(len(name))]
			tail := " src/a.go"
			if takesValue {
				tail = "=src/v" + tail
			}
			short, errShort := Shell("git " + sub + " --" + prefix + tail)
			if errShort != nil {
				continue // refused: always allowed
			}
			tried++
			fullName, why := gitLongOpt(sub, prefix)
			if why != "" {
				t.Fatalf("git %s --%s allowed but gitLongOpt refuses it: %s", sub, prefix, why)
			}
			long, errLong := Shell("git " + sub + " --" + fullName + tail)
			if errLong != nil {
				t.Errorf("git %s --%s allowed, but spelled out as --%s it is refused: %v", sub, prefix, fullName, errLong)
				continue
			}
			if !reflect.DeepEqual(short, long) {
				t.Errorf("git %s --%s reads as %+v, spelled out (--%s) as %+v", sub, prefix, short, fullName, long)
			}
		}
	}
	if tried < 500 {
		t.Fatalf("only %d abbreviated lines were allowed; the property tested little", tried)
	}
}

// The abbreviations the gate now reads as git does run code under real
// git when the gate is not asked, so refusing them is not theory; and the
// abbreviations the gate refuses for log and diff, and of git's own
// options before the subcommand, git refuses too.
func TestRealGitTakesAbbreviations(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	env := append(os.Environ(), "HOME="+dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "LC_ALL=C")
	git := func(args ...string) (string, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := git("init", "-q", "src"); err != nil {
		t.Fatal(out)
	}
	if out, err := git("-C", "src", "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-q", "--allow-empty", "-m", "x"); err != nil {
		t.Fatal(out)
	}
	mark0, mark1 := filepath.Join(dir, "mark0"), filepath.Join(dir, "mark1")
	for _, c := range []struct {
		mark string
		line []string
	}{
		{mark0, []string{"clone", "-q", "--upload-p=touch " + mark0 + "; git-upload-pack", "src", "dst"}},
		{mark1, []string{"ls-remote", "--upl=touch " + mark1 + "; git-upload-pack", "src"}},
	} {
		line, mark := c.line, c.mark
		if out, err := git(line...); err != nil {
			t.Fatalf("git %q: %v %s", line, err, out)
		}
		if _, err := os.Stat(mark); err != nil {
			t.Errorf("git %q ran no program (%v): the attack test would be dishonest", line, err)
		}
		if _, err := Shell("git " + strings.Join(quoteAll(line), " ")); err == nil {
			t.Errorf("the gate allows git %q", line)
		}
	}
	for _, line := range [][]string{
		{"-C", "src", "log", "--out=" + filepath.Join(dir, "o1")},
		{"-C", "src", "diff", "--outp=" + filepath.Join(dir, "o2")},
		{"--git-d=src/.git", "status"},
		{"--work-t=src", "status"},
	} {
		if out, err := git(line...); err == nil {
			t.Errorf("git %q succeeded (%s): the gate's reading of it is stale", line, out)
		}
	}
}

func quoteAll(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return out
}

// The generated table is git's: when the git here is the one it was read
// from, each subcommand's helper prints the same options.
func TestGitOptionsTableMatchesGit(t *testing.T) {
	out, err := exec.Command("git", "version").Output()
	if err != nil {
		t.Skip("git is not installed")
	}
	if v := strings.TrimSpace(string(out)); v != gitOptsVersion {
		t.Skipf("the table is of %s, this is %s (regenerate with go generate)", gitOptsVersion, v)
	}
	dir := t.TempDir()
	if b, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatal(string(b))
	}
	for _, sub := range []string{"clone", "commit", "fetch", "push", "ls-remote", "grep", "reset", "archive", "config"} {
		cmd := exec.Command("git", sub, "--git-completion-helper-all")
		cmd.Dir = dir
		b, _ := cmd.Output()
		var names []string
		for _, f := range strings.Fields(string(b)) {
			if f != "--" {
				names = append(names, strings.TrimPrefix(f, "--"))
			}
		}
		slices.Sort(names)
		want := strings.Fields(gitOptsText[sub])
		if !slices.Equal(names, want) {
			t.Errorf("git %s: git prints %v, the table holds %v", sub, names, want)
		}
	}
}

func TestOptWalkReadsPrefixes(t *testing.T) {
	cases := []struct{ cmd, err, read string }{
		{cmd: "sort --compress-prog=id f", err: "sort --compress-prog"},
		{cmd: "sort --compress-p id f", err: "sort --compress-p"},
		{cmd: "sort --out=/tmp/o f"},          // --output: a write
		{cmd: "sort --ou /tmp/o f"},           // the same, value in the next word
		{cmd: "sort --r f", err: "ambiguous"}, // --random-sort, --reverse, --random-source
		{cmd: "sort --frobnicate f", err: "not an option the gate knows"},
		{cmd: "grep --exclude-fr=.env x f", read: ".env"},             // lax: still the file it names
		{cmd: "grep --fil=.env x", read: ".env"},                      // --file
		{cmd: "grep --exclude-fr .env x f", err: "spell options out"}, // lax: the next word may be an operand
		{cmd: "grep --binary x f", err: "spell options out"},          // --binary is grep's own flag
		{cmd: "grep --line-number x f", read: "f"},                    // unknown to a lax table: a flag
	}
	for _, c := range cases {
		use, err := Shell(c.cmd)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: %+v, %v; want an error containing %q", c.cmd, use, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("%q: %v", c.cmd, err)
		case c.read != "" && !slices.Contains(use.ReadOperands, c.read):
			t.Errorf("%q reads %q, want %q among them", c.cmd, use.ReadOperands, c.read)
		}
	}
	if use, _ := Shell("sort --ou /tmp/o f"); !slices.Contains(use.WriteOperands, "/tmp/o") {
		t.Errorf("sort --ou /tmp/o writes %q, want /tmp/o", use.WriteOperands)
	}
}
