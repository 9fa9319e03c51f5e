package resources

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// matchDenyPathEager is MatchDenyPath as it was when every call asked the
// file systems whether they ignore case before matching anything: with
// the answers ws and home given, folded whenever either is true.
func matchDenyPathEager(pattern string, ref PathRef, ws, home bool) bool {
	d := compileDeny(pattern)
	if d.match(&ref) {
		return true
	}
	if ref.AnySuffix {
		for _, g := range ref.suffixGlobs() {
			if matchDenyPattern(pattern, g, globsIntersect) {
				return true
			}
		}
	}
	if ws || home {
		return matchDenyPathEager(strings.ToLower(pattern), foldedRef(ref, ws, home), false, false)
	}
	return false
}

// answeredFold is a call's case-folding check already answered ws, home.
func answeredFold(ws, home bool) *caseFold {
	c := &caseFold{}
	c.once.Do(func() { c.ws, c.home = ws, home })
	return c
}

// randomFoldRef is a path in every form, in mixed case, inside the
// workspace (/W/Ws), the home directory (/H/Me) or elsewhere.
func randomFoldRef(r *rand.Rand) PathRef {
	comps := []string{".env", ".ENV", ".Env", "src", "Src", "SRC", ".ssh", ".SSH", "id_rsa", "ID_RSA", "a.go",
		"A.GO", "É", "é", ".git", ".GIT", "hooks", "HOOKS", "config", "Config", ".claude.json", ".Claude.json", "x*"}
	path := func() string {
		n := 1 + r.IntN(3)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = comps[r.IntN(len(comps))]
		}
		return strings.Join(parts, "/")
	}
	form := func() (rel, home, abs string) {
		p := path()
		switch r.IntN(4) {
		case 0:
			return p, "", "/W/Ws/" + p
		case 1:
			return "", "~/" + p, "/H/Me/" + p
		case 2:
			return "", "", "/Etc/" + p
		}
		return ".", "", "/W/Ws"
	}
	ref := PathRef{AnySuffix: r.IntN(6) == 0, holdsWS: r.IntN(8) == 0, holdsHome: r.IntN(8) == 0, dir: r.IntN(3) == 0}
	ref.Rel, ref.Home, ref.Abs = form()
	if r.IntN(2) == 0 {
		ref.lexRel, ref.lexHome, ref.lexAbs = ref.Rel, ref.Home, ref.Abs
	} else {
		ref.lexRel, ref.lexHome, ref.lexAbs = form()
	}
	ref.Inside = ref.Rel != ""
	return ref
}

var foldTestPatterns = []string{".env", ".ENV", "**/.Env", "~/.ssh/**", "~/.SSH/**", "~/.claude.json", "~",
	"src/**", "SRC/*.go", ".git/hooks/**", ".GIT/config", "/W/ws/**", "/w/WS/src/*", "/etc/**", "É/**",
	"é", "[Ss]rc/a.go", "{src,SRC}/A.GO", "x*", "**"}

// TestLazyFoldMatchesEager: asking the file systems whether they ignore
// case only when folding could change a match gives the answers of
// asking on every call, for every answer they could give — deny paths
// and protected writes alike.
func TestLazyFoldMatchesEager(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < 40000; i++ {
		ref := randomFoldRef(r)
		pat := foldTestPatterns[r.IntN(len(foldTestPatterns))]
		for _, ans := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			lazy := ref
			lazy.folds = answeredFold(ans[0], ans[1])
			if got, want := MatchDenyPath(pat, lazy), matchDenyPathEager(pat, ref, ans[0], ans[1]); got != want {
				t.Fatalf("MatchDenyPath(%q, %+v) with folding %v = %v, eager %v", pat, ref, ans, got, want)
			}
			if got, want := WriteTouches(pat, lazy), writeTouchesReference(pat, lazy); got != want {
				t.Fatalf("WriteTouches(%q, %+v) with folding %v = %v, eager %v", pat, ref, ans, got, want)
			}
			d := CompileDenyPaths([]string{".ssh", pat, ".env"})
			gotPat, got := d.Match(lazy)
			wantPat, want := "", false
			for _, p := range []string{".ssh", pat, ".env"} {
				if matchDenyPathEager(p, ref, ans[0], ans[1]) {
					wantPat, want = p, true
					break
				}
			}
			if got != want || gotPat != wantPat {
				t.Fatalf("DenyPaths.Match(%+v) with folding %v = %q %v, eager %q %v", ref, ans, gotPat, got, wantPat, want)
			}
		}
	}
}

// TestFoldAskedOnlyWhenItMatters: an ordinary path under ordinary
// patterns never asks the file systems about case; a path that folding
// would refuse does.
func TestFoldAskedOnlyWhenItMatters(t *testing.T) {
	ws := t.TempDir()
	r := newPathResolver(ws)
	ref, err := r.resolve("src/a.go")
	if err != nil {
		t.Fatal(err)
	}
	deny := CompileDenyPaths([]string{".env", "~/.ssh/**", ".claude/**"})
	if _, ok := deny.Match(ref); ok {
		t.Fatal("src/a.go denied")
	}
	if ref.folds == nil {
		t.Fatal("no fold check")
	}
	asked := false
	ref.folds.once.Do(func() { asked = true })
	if !asked {
		t.Fatal("an ordinary path asked the file system about case")
	}
	r2 := newPathResolver(ws)
	upper, err := r2.resolve(".ENV")
	if err != nil {
		t.Fatal(err)
	}
	deny.Match(upper)
	asked = false
	upper.folds.once.Do(func() { asked = true })
	if asked {
		t.Fatal(".ENV under a deny of .env did not ask the file system about case")
	}
}
