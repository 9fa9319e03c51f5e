package resources

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// gitConfigSeeds are configuration files in every shape the reader must
// read as git does, and some git rejects.
var gitConfigSeeds = []string{
	"[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n",
	"[core]\n\thooksPath = .husky\n",
	"[core] hooksPath = .husky\n",
	"[CORE]\n\tHooksPath=x\n",
	"[core]\n\thooksPath = \"a b\" # comment\n",
	"[core]\n\thooksPath = a\\\n b\n",
	"[core]\r\n\thooksPath = x\r\n",
	"[core]\n\thooksPath = x ; y\n",
	"[core]\n\thooksPath = \"x ; y\"\n",
	"[core]\n\thooksPath = \"unterminated\n",
	"[core]\n\thooksPath = bad\\q\n",
	"[core]\n\thooksPath = tab\\there\\n\\\\\\\"\n",
	"[core]\n\thooksPath\n",
	"[core]\n\thooksPath # comment\n",
	"[core \"x\"]\n\thooksPath = sub\n",
	"[core.x]\n\thooksPath = dotted\n",
	"[include]\n\tpath = ../x\n",
	"[includeIf \"gitdir:~/src/\"]\n\tpath = ~/y\n",
	"[includeIf \"gitdir:a\\\"b\"]\n\tpath = z\n",
	"[remote \"origin\"]\n\turl = https://github.com/x/y\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n",
	"x = 1\n[a]\n\tb = 2\n",
	"[a]\nb\\\n",
	"[a b]\nc=1\n",
	"[a \"b\" ]\nc=1\n",
	"[]\n",
	"[a\n",
	"[a]\n1b = 2\n",
	"[a]\nb-c = 2\n",
	"[a]\nb_c = 2\n",
	"\ufeff[a]\nb = 1\n",
	"[a]\nb = 1\\",
	"[a]\nb =   lead and trail   \n",
	"[a]\nb = in\tner  spaces\n",
	"[a]\nb = \"\" \n",
	"[a]\nb = x\"y\"z\n",
	"[a]\nb = x\v\n",
	"[a]\nb = \"q\\\r\nr\"\n",
	"; comment\n# comment\n\n[a]\n\tb = 1 # trailing\n",
	"[a]b=1\n",
	"[a.b.c]\nd=1\n",
	"[a \"x\\\\y\"]\nb=1\n",
	"[a]\nb = \\t\n",
	"[a]\nb\r\n",
	"[a]\nb \r x\n",
	"[extensions]\n\tworktreeConfig = true\n",
}

func TestParseGitConfigTable(t *testing.T) {
	for _, in := range []struct {
		text string
		want []string // section.subsection.key=value, as git -l prints them
		bad  bool
	}{
		{text: gitConfigSeeds[1], want: []string{"core.hookspath=.husky"}},
		{text: gitConfigSeeds[2], want: []string{"core.hookspath=.husky"}},
		{text: gitConfigSeeds[4], want: []string{"core.hookspath=a b"}},
		{text: gitConfigSeeds[5], want: []string{"core.hookspath=a b"}},
		{text: gitConfigSeeds[6], want: []string{"core.hookspath=x"}},
		{text: gitConfigSeeds[7], want: []string{"core.hookspath=x"}},
		{text: gitConfigSeeds[8], want: []string{"core.hookspath=x ; y"}},
		{text: gitConfigSeeds[9], bad: true},
		{text: gitConfigSeeds[10], bad: true},
		{text: gitConfigSeeds[11], want: []string{"core.hookspath=tab\there\n\\\""}},
		{text: gitConfigSeeds[12], want: []string{"core.hookspath"}},
		{text: gitConfigSeeds[13], bad: true},
		{text: gitConfigSeeds[14], want: []string{"core.x.hookspath=sub"}},
		{text: gitConfigSeeds[15], want: []string{"core.x.hookspath=dotted"}},
	} {
		got, err := listGitConfig([]byte(in.text))
		if in.bad {
			if err == nil {
				t.Errorf("%q: read as %q, want an error", in.text, got)
			}
			continue
		}
		if err != nil || strings.Join(got, "|") != strings.Join(in.want, "|") {
			t.Errorf("%q: %q %v, want %q", in.text, got, err, in.want)
		}
	}
}

// listGitConfig is what the reader finds, in git config --list's form.
func listGitConfig(data []byte) ([]string, error) {
	var out []string
	err := parseGitConfig(data, func(e gitConfigEntry) error {
		name := strings.ToLower(e.section)
		if e.quoted || e.dotted {
			sub := e.subsection
			if e.dotted {
				sub = strings.ToLower(sub)
			}
			name += "." + sub
		}
		if name != "" {
			name += "."
		}
		name += strings.ToLower(e.key)
		if !e.valueless {
			name += "=" + e.value
		}
		out = append(out, name)
		return nil
	})
	return out, err
}

// gitList is what real git reads from the file: git config --list, or
// ok false when git rejects it.
func gitList(t testing.TB, git string, data []byte) ([]string, bool) {
	dir := t.TempDir()
	p := filepath.Join(dir, "config")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(git, "config", "--file", p, "--list", "-z")
	cmd.Env = []string{"HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1", "PATH=" + os.Getenv("PATH")}
	out, err := cmd.Output()
	if err != nil {
		return nil, false
	}
	var list []string
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		k, v, hasValue := bytes.Cut(rec, []byte{'\n'})
		s := string(k)
		if hasValue {
			s += "=" + string(v)
		}
		list = append(list, s)
	}
	return list, true
}

// FuzzGitConfig: the reader never panics, and where git is installed it
// reads every file as git does — what git rejects is an error, what git
// accepts gives git's entries. A file git accepts but the reader does not
// would only hold a call; one the reader accepts and git reads otherwise
// would let the gate miss an include or a hooks directory.
func FuzzGitConfig(f *testing.F) {
	for _, s := range gitConfigSeeds {
		f.Add([]byte(s))
	}
	git, _ := exec.LookPath("git")
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := listGitConfig(data)
		if git == "" || bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
			return // git reads a NUL as the end of a line's value; the gate refuses such a file anyway
		}
		want, ok := gitList(t, git, data)
		switch {
		case !ok && err == nil:
			t.Fatalf("%q: git rejects it, the reader found %q", data, got)
		case ok && err != nil:
			t.Fatalf("%q: git reads %q, the reader fails: %v", data, want, err)
		case ok && strings.Join(got, "\x00") != strings.Join(want, "\x00"):
			t.Fatalf("%q: the reader found %q, git %q", data, got, want)
		}
	})
}

// FuzzGitfile: a .git file names one path or is an error, never a path
// with a NUL or a line break in it.
func FuzzGitfile(f *testing.F) {
	for _, s := range []string{"gitdir: ../x\n", "gitdir: /abs/path\r\n", "gitdir:x", "gitdir: \n", "gitdir: a\nb", "x"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := parseGitfile(data)
		if err != nil {
			return
		}
		if p == "" || strings.ContainsAny(p, "\x00\r\n") {
			t.Fatalf("%q: read as %q", data, p)
		}
		if !bytes.HasPrefix(data, []byte("gitdir: ")) {
			t.Fatalf("%q: read as %q without the gitdir: prefix", data, p)
		}
	})
}
