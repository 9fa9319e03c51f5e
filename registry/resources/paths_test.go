package resources

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixture builds, under a fresh temporary directory:
//
//	home/                    the user's home ($HOME)
//	home/.ssh/id_rsa
//	ws/                      the workspace
//	ws/a.txt
//	ws/sub/f
//	ws/secrets/key
//	ws/inlink     -> sub           (relative link, stays inside)
//	ws/abslink    -> <ws>/sub      (absolute link, stays inside)
//	ws/escape     -> ../out        (relative link, leaves)
//	ws/absescape  -> <out>         (absolute link, leaves)
//	ws/tosecrets  -> secrets
//	ws/vaultlink  -> vault          (a denied name that is itself a link)
//	ws/vault/
//	ws/loop1 -> loop2, ws/loop2 -> loop1
//	out/x
//	wslink        -> ws            (the workspace reached through a link)
type fixture struct {
	root, ws, out, home, wslink string
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := fixture{
		root:   root,
		ws:     filepath.Join(root, "ws"),
		out:    filepath.Join(root, "out"),
		home:   filepath.Join(root, "home"),
		wslink: filepath.Join(root, "wslink"),
	}
	for _, d := range []string{f.ws, f.out, f.home + "/.ssh", f.ws + "/sub", f.ws + "/secrets", f.ws + "/vault"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{f.ws + "/a.txt", f.ws + "/sub/f", f.ws + "/secrets/key", f.out + "/x", f.home + "/.ssh/id_rsa"} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		f.ws + "/inlink":    "sub",
		f.ws + "/abslink":   f.ws + "/sub",
		f.ws + "/escape":    "../out",
		f.ws + "/absescape": f.out,
		f.ws + "/tosecrets": "secrets",
		f.ws + "/vaultlink": "vault",
		f.ws + "/loop1":     "loop2",
		f.ws + "/loop2":     "loop1",
		f.wslink:            f.ws,
	}
	for link, target := range links {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", f.home)
	return f
}

func TestResolvePath(t *testing.T) {
	f := newFixture(t)
	cases := []struct {
		name   string
		ws     string // default f.ws
		p      string
		rel    string
		abs    string
		home   string
		inside bool
	}{
		{name: "relative file", p: "a.txt", rel: "a.txt", abs: f.ws + "/a.txt", inside: true},
		{name: "dot", p: ".", rel: ".", abs: f.ws, inside: true},
		{name: "dot slash", p: "./sub//f", rel: "sub/f", abs: f.ws + "/sub/f", inside: true},
		{name: "missing tail", p: "sub/new/deeper.txt", rel: "sub/new/deeper.txt", abs: f.ws + "/sub/new/deeper.txt", inside: true},
		{name: "inner dotdot", p: "sub/../a.txt", rel: "a.txt", abs: f.ws + "/a.txt", inside: true},
		{name: "dotdot escape", p: "../out/x", abs: f.out + "/x"},
		{name: "dotdot to root", p: "../../../../../../../../etc/passwd", abs: "/etc/passwd"},
		{name: "absolute inside", p: f.ws + "/sub/f", rel: "sub/f", abs: f.ws + "/sub/f", inside: true},
		{name: "absolute outside", p: "/etc/passwd", abs: "/etc/passwd"},
		{name: "absolute sibling prefix", p: f.ws + "x/y", abs: f.ws + "x/y"},
		{name: "relative link inside", p: "inlink/f", rel: "sub/f", abs: f.ws + "/sub/f", inside: true},
		{name: "absolute link inside", p: "abslink/new", rel: "sub/new", abs: f.ws + "/sub/new", inside: true},
		{name: "symlink escape", p: "escape/x", abs: f.out + "/x"},
		{name: "absolute symlink escape", p: "absescape/new.txt", abs: f.out + "/new.txt"},
		{name: "link then dotdot", p: "escape/../ws/a.txt", rel: "a.txt", abs: f.ws + "/a.txt", inside: true},
		{name: "link dotdot is not lexical", p: "escape/../x", abs: f.root + "/x"},
		{name: "workspace through link", ws: f.wslink, p: "a.txt", rel: "a.txt", abs: f.ws + "/a.txt", inside: true},
		{name: "absolute via link workspace", ws: f.wslink, p: f.ws + "/sub", rel: "sub", abs: f.ws + "/sub", inside: true},
		{name: "home", p: "~/.ssh/id_rsa", abs: f.home + "/.ssh/id_rsa", home: "~/.ssh/id_rsa"},
		{name: "home itself", p: "~", abs: f.home, home: "~"},
		{name: "tilde dir is not home", p: "./~/x", rel: "~/x", abs: f.ws + "/~/x", inside: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ws := tc.ws
			if ws == "" {
				ws = f.ws
			}
			got, err := ResolvePath(ws, tc.p)
			if err != nil {
				t.Fatalf("ResolvePath(%q, %q): %v", ws, tc.p, err)
			}
			if got.Rel != tc.rel || got.Abs != tc.abs || got.Home != tc.home || got.Inside != tc.inside {
				t.Errorf("ResolvePath(%q, %q) = {Rel:%q Abs:%q Home:%q Inside:%v}, want {Rel:%q Abs:%q Home:%q Inside:%v}",
					ws, tc.p, got.Rel, got.Abs, got.Home, got.Inside, tc.rel, tc.abs, tc.home, tc.inside)
			}
		})
	}
}

func TestResolvePathHomeWorkspace(t *testing.T) {
	f := newFixture(t)
	ws := filepath.Join(f.home, "project")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := ResolvePath(ws, "src/main.go")
	if err != nil {
		t.Fatal(err)
	}
	if got.Rel != "src/main.go" || got.Home != "~/project/src/main.go" || !got.Inside {
		t.Errorf("got %+v", got)
	}
}

func TestResolvePathErrors(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct{ ws, p, want string }{
		{f.ws, "", "empty path"},
		{f.ws, "a\x00b", "NUL"},
		{"relative/ws", "a", "not an absolute path"},
		{"", "a", "not an absolute path"},
		{f.ws, "loop1/x", "too many levels of symbolic links"},
	} {
		_, err := ResolvePath(tc.ws, tc.p)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ResolvePath(%q, %q) error = %v, want %q", tc.ws, tc.p, err, tc.want)
		}
	}
}

func TestMatchGlob(t *testing.T) {
	for _, tc := range []struct {
		pattern, rel string
		want         bool
	}{
		{"**", "a/b/c", true},
		{"**", ".", true},
		{"**", "", false},
		{"dir/**", "dir", true},
		{"dir/**", "dir/a/b", true},
		{"dir/**", "dirx", false},
		{"dir/**", ".", false},
		{"src/*.ts", "src/a.ts", true},
		{"src/*.ts", "src/a/b.ts", false},
		{"src/**/*.ts", "src/a/b.ts", true},
		{"**/.env", ".env", true},
		{"**/.env", "a/b/.env", true},
		{"./src/**", "src/x", true},
		{"src/", "src", true},
		{"a.txt", "a.txt", true},
		{"a.txt", "b/a.txt", false},
		{"[", "[", false},
		{"../x", "../x", false},
		{"", "a", false},
	} {
		if got := MatchGlob(tc.pattern, tc.rel); got != tc.want {
			t.Errorf("MatchGlob(%q, %q) = %v, want %v", tc.pattern, tc.rel, got, tc.want)
		}
	}
}

func TestMatchDenyPath(t *testing.T) {
	f := newFixture(t)
	// ws/secrets is a real directory; make "vault" denied while reached
	// through vaultlink, and "vaultlink" denied while it resolves to vault.
	ref := func(p string) PathRef {
		t.Helper()
		r, err := ResolvePath(f.ws, p)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, tc := range []struct {
		pattern, p string
		want       bool
	}{
		{"~/.ssh/**", "~/.ssh/id_rsa", true},
		{"~/.ssh/**", f.home + "/.ssh/id_rsa", true},
		{"~/.ssh/**", "~/.ssh", true},
		{"~/.ssh/**", "~/.sshx", false},
		{"~/.ssh/**", "a.txt", false},
		{"~", "~", true},
		{"~/**", "~/anything", true},
		{"secrets/**", "secrets/key", true},
		{"secrets/**", "tosecrets/key", true}, // resolved form
		{"vaultlink/**", "vaultlink/k", true}, // lexical form
		{"vault/**", "vaultlink/k", true},     // resolved form
		{"secrets/**", "sub/f", false},
		{".env", ".env", true},
		{".env", "sub/.env", false},
		{"**/.env", "sub/.env", true},
		{"secrets/**", "escape/secrets/key", false}, // outside: no relative form
		{"/etc/**", "/etc/passwd", true},
		{"/etc/**", "/etcx", false},
		{"[", "a.txt", true},    // uninterpretable: fail closed
		{"../x", "a.txt", true}, // uninterpretable: fail closed
		{"~/[", "a.txt", true},
	} {
		if got := MatchDenyPath(tc.pattern, ref(tc.p)); got != tc.want {
			t.Errorf("MatchDenyPath(%q, %q) = %v, want %v", tc.pattern, tc.p, got, tc.want)
		}
	}
}

// TestMatchDenyPathFoldsCase: where the file system ignores case, a deny
// entry matches the name in any case; where it does not, it does not.
func TestMatchDenyPathFoldsCase(t *testing.T) {
	folded := PathRef{Rel: ".ENV", lexRel: ".ENV", Home: "~/.SSH/id_rsa", lexHome: "~/.SSH/id_rsa", foldWS: true, foldHome: true}
	exact := PathRef{Rel: ".ENV", lexRel: ".ENV", Home: "~/.SSH/id_rsa", lexHome: "~/.SSH/id_rsa"}
	for _, pat := range []string{".env", "~/.ssh/**"} {
		if !MatchDenyPath(pat, folded) {
			t.Errorf("%s does not refuse %+v on a case-insensitive file system", pat, folded)
		}
		if MatchDenyPath(pat, exact) {
			t.Errorf("%s refuses %+v on a case-sensitive file system", pat, exact)
		}
	}
	if caseInsensitive(t.TempDir()) != caseInsensitive(filepath.Dir(t.TempDir())) {
		t.Error("two directories of one file system disagree about case")
	}
}
