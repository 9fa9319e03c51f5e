package resources

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// One call's resolver examines each component once, and gives the same
// answers as resolving each path on its own.
func TestPathResolverSharesWithinACall(t *testing.T) {
	f := newFixture(t)
	r := newPathResolver(f.ws)
	paths := []string{"sub/f", "sub/g", "inlink/f", "inlink/../a.txt", "escape/x", "~/.ssh/id_rsa", f.ws + "/sub/f", "tosecrets/key"}
	for _, p := range paths {
		got, err := r.resolve(p)
		if err != nil {
			t.Fatal(err)
		}
		want, err := ResolvePath(f.ws, p)
		if err != nil {
			t.Fatal(err)
		}
		if refText(got) != refText(want) {
			t.Errorf("%s: shared resolver %s, alone %s", p, refText(got), refText(want))
		}
	}
	if e, ok := r.entry(f.ws + "/sub"); !ok || e.link || e.missing {
		t.Errorf("sub remembered as %+v", e)
	}
	if e, _ := r.entry(f.ws + "/inlink"); !e.link || e.target != "sub" {
		t.Errorf("inlink remembered as %+v", e)
	}
	if e, _ := r.entry(f.ws + "/sub/g"); !e.missing {
		t.Errorf("sub/g remembered as %+v", e)
	}
	if _, err := r.resolve("loop1/x"); err == nil {
		t.Error("a symbolic-link loop resolved")
	}
}

// Nothing is remembered between calls: a directory swapped for a symbolic
// link after one call is followed by the next, and a link swapped back is
// seen again.
func TestSwappedSymlinkSeenByTheNextCall(t *testing.T) {
	f := newFixture(t)
	call := func() PathRef {
		t.Helper()
		use, err := FromToolCall(f.ws, ToolBash, map[string]any{"command": "cat d/id_rsa && cat d/id_rsa"})
		if err != nil {
			t.Fatal(err)
		}
		if len(use.Reads) != 1 {
			t.Fatalf("reads %+v", use.Reads)
		}
		return use.Reads[0]
	}
	d := filepath.Join(f.ws, "d")
	if err := os.Mkdir(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if ref := call(); !ref.Inside || ref.Rel != "d/id_rsa" {
		t.Fatalf("before the swap: %+v", ref)
	}
	if err := os.Remove(d); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(f.home, ".ssh"), d); err != nil {
		t.Fatal(err)
	}
	if ref := call(); ref.Inside || ref.Home != "~/.ssh/id_rsa" {
		t.Fatalf("after the swap the read is %+v, want ~/.ssh/id_rsa", ref)
	}
	if err := os.Remove(d); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if ref := call(); !ref.Inside || ref.Rel != "d/id_rsa" {
		t.Fatalf("after swapping back: %+v", ref)
	}
}

// The analysis shares read-only quoting bits between words; nothing may
// write through them.
func TestQuotingBitsStayShared(t *testing.T) {
	lines := []string{`cat 'a'b"c"\d`, `echo ~+/x "$HOME"/y`, "sed -n p src/'x y'", `x="$(echo a)"b; echo "$x"`,
		"grep -e 'a' -e b -- c ./d", `echo {a,b}"c"`, "cat ~/.ssh/id_rsa", `echo --opt=~/x`}
	for _, l := range lines {
		ShellAt(l, t.TempDir())
	}
	for i := range unquotedBits {
		if unquotedBits[i] || !quotedBits[i] {
			t.Fatalf("bit %d was written", i)
		}
	}
	var l lit
	l.add(strings.Repeat("a", 300), false)
	l.add("b", true)
	if len(l.quoted) != 301 || l.quoted[299] || !l.quoted[300] {
		t.Fatalf("a long word's bits: %d %v", len(l.quoted), l.quoted[295:])
	}
}

// Past smallList entries the lists switch from a scan to a set: they stay
// free of duplicates and in order of first appearance.
func TestLongListsStayDeduplicated(t *testing.T) {
	var words, want []string
	for i := range 3 * smallList {
		w := fmt.Sprintf("w%d", i)
		words = append(words, w, w, "w0")
		want = append(want, w)
	}
	use, err := ShellAt("echo "+strings.Join(words, " ")+" && cat "+strings.Join(words, " "), "")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(use.Operands, " ") != strings.Join(want, " ") {
		t.Errorf("operands %q", use.Operands)
	}
	if strings.Join(use.ReadOperands, " ") != strings.Join(want, " ") {
		t.Errorf("read operands %q", use.ReadOperands)
	}
	u, err := FromToolCall(t.TempDir(), ToolBash, map[string]any{"command": "cat " + strings.Join(words, " ")})
	if err != nil {
		t.Fatal(err)
	}
	if len(u.Reads) != len(want) {
		t.Errorf("%d reads, want %d", len(u.Reads), len(want))
	}
}

// The fast path for a plain relative path gives what filepath.Clean gives.
func TestPlainRelativeIsClean(t *testing.T) {
	parts := []string{"a", ".", "..", "", "b.c", "..d", ".e"}
	for _, x := range parts {
		for _, y := range parts {
			for _, sep := range []string{"/", "//"} {
				p := x + sep + y
				for _, q := range []string{p, x, p + "/", "/" + p} {
					if plainRelative(q) && filepath.Clean("/ws/"+q) != "/ws/"+q {
						t.Errorf("%q is taken for clean: Clean gives %q", q, filepath.Clean("/ws/"+q))
					}
				}
			}
		}
	}
	if !plainRelative("src/a.go") || plainRelative("src/../a") || plainRelative("./a") {
		t.Error("plainRelative misjudges the obvious")
	}
}

// A compiled deny list decides as MatchDenyPath does, pattern by pattern.
func TestDenyPathsMatchAsMatchDenyPath(t *testing.T) {
	f := newFixture(t)
	patterns := []string{".env", "secrets/**", "~/.ssh/**", "~", "/etc/**", "../x", "[", "vault", "sub/*", "**/f", "~/.ssh/id_*"}
	deny := CompileDenyPaths(patterns)
	for _, p := range []string{"a.txt", "sub/f", "secrets/key", "tosecrets/key", "vaultlink", "~/.ssh/id_rsa", "/etc/passwd", "escape/x", "inlink/f", "."} {
		ref, err := ResolvePath(f.ws, p)
		if err != nil {
			t.Fatal(err)
		}
		want := ""
		for _, pat := range patterns {
			if MatchDenyPath(pat, ref) {
				want = pat
				break
			}
		}
		if got, _ := deny.Match(ref); got != want {
			t.Errorf("%s: compiled list says %q, MatchDenyPath %q", p, got, want)
		}
	}
}

// The one-pass test for a loop or a function agrees with looking for
// each keyword (and ")" and a line continuation) in turn.
func TestMayHoldLoopOrFunction(t *testing.T) {
	naive := func(s string) bool {
		for _, k := range []string{"while", "until", "for", "select", "function", ")", "\\\n"} {
			if strings.Contains(s, k) {
				return true
			}
		}
		return false
	}
	for _, s := range []string{"git status", "git status && ls", "wh\\\nile true; do cd x; done", "f() { cd x; }",
		"for i in 1; do :; done", "until false; do :; done", "select x in a; do :; done", "function f { :; }",
		"echo $(date)", "echo formula", "sed s/x/y/", "echo \\", "echo w u f s", "untilx", "ls -l\\", ""} {
		if got, want := mayHoldLoopOrFunction(s), naive(s); got != want {
			t.Errorf("%q: %v, want %v", s, got, want)
		}
	}
}

// Past smallList components the resolver's memory moves from a list to a
// map: the answers stay those of resolving each path alone.
func TestPathResolverManyComponents(t *testing.T) {
	f := newFixture(t)
	r := newPathResolver(f.ws)
	for i := range 3 * smallList {
		p := fmt.Sprintf("sub/n%d/x", i)
		if i%3 == 0 {
			p = "inlink/../sub/f"
		}
		got, err := r.resolve(p)
		if err != nil {
			t.Fatal(err)
		}
		want, err := ResolvePath(f.ws, p)
		if err != nil {
			t.Fatal(err)
		}
		if refText(got) != refText(want) {
			t.Fatalf("%s: shared resolver %s, alone %s", p, refText(got), refText(want))
		}
	}
	if r.entries == nil {
		t.Fatal("the resolver never moved to a map")
	}
	if e, ok := r.entry(f.ws + "/inlink"); !ok || !e.link {
		t.Fatalf("inlink lost in the move: %+v", e)
	}
}

// walkReference is walk building every path it examines anew.
func walkReference(r *pathResolver, base, rest string) (string, error) {
	resolved := base
	if strings.HasPrefix(rest, "/") {
		resolved = "/"
	}
	links := 0
	for rest != "" {
		comp := rest
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			comp, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		switch comp {
		case "", ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := joinComponent(resolved, comp)
		e := r.lstat(next)
		switch {
		case e.err != nil:
			return "", e.err
		case !e.link:
			resolved = next
			continue
		}
		if links++; links > maxSymlinks {
			return "", fmt.Errorf("too many levels of symbolic links")
		}
		if filepath.IsAbs(e.target) {
			resolved = "/"
		}
		if rest == "" {
			rest = e.target
		} else {
			rest = e.target + "/" + rest
		}
	}
	return resolved, nil
}

// An absolute path walked without a link is taken from the path itself
// rather than built: the answers are those of building every prefix.
func TestWalkPrefixShortcut(t *testing.T) {
	f := newFixture(t)
	// "inl" and "su" are missing names that begin names that exist: what
	// is below a missing path is taken as missing, not what only begins
	// with its name.
	comps := []string{"", ".", "..", "sub", "f", "inlink", "abslink", "escape", "x", "ws", "home", ".ssh", "inl", "su"}
	rnd := rand.New(rand.NewPCG(9, 10))
	fixed := []string{f.ws + "/inl/../inlink/f", f.ws + "/su/../sub/../inlink", f.ws + "/x/y/../../inlink",
		f.ws + "/x/y/z/../../../abslink/f", f.ws + "/sub/f/g/../../f", f.ws + "/x/../x/y"}
	for i := range 4000 + len(fixed) {
		var b strings.Builder
		b.WriteString([]string{f.root, f.ws, f.home, "/"}[rnd.IntN(4)])
		for range 1 + rnd.IntN(5) {
			b.WriteString("/" + comps[rnd.IntN(len(comps))])
		}
		if rnd.IntN(3) == 0 {
			b.WriteString("/")
		}
		p := b.String()
		if i < len(fixed) {
			p = fixed[i]
		}
		var r1, r2 pathResolver
		got, err1 := r1.walk("/", p)
		want, err2 := walkReference(&r2, "/", p)
		if got != want || (err1 == nil) != (err2 == nil) {
			t.Fatalf("%s: %q %v, building every prefix %q %v", p, got, err1, want, err2)
		}
	}
}

// refText is every field of ref, the directories its case-folding check
// would ask about in place of the check itself (one per resolver).
func refText(ref PathRef) string {
	folds := "no fold check"
	if ref.folds != nil {
		folds = fmt.Sprintf("fold check of %q and %q", ref.folds.wsDir, ref.folds.homeDir)
	}
	ref.folds = nil
	return fmt.Sprintf("%#v, %s", ref, folds)
}
