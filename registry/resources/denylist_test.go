package resources

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestDenyListMatchesEachPattern: a compiled list, which folds a path
// once for all its patterns and is kept between calls, answers what each
// pattern answers on its own by the eager reference, first pattern first,
// for random lists, paths and answers of the file systems — for deny
// matches and protected writes alike.
func TestDenyListMatchesEachPattern(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for i := 0; i < 20000; i++ {
		list := make([]string, 1+r.IntN(6))
		for j := range list {
			list[j] = foldTestPatterns[r.IntN(len(foldTestPatterns))]
		}
		ref := randomFoldRef(r)
		for _, ans := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			lazy := ref
			lazy.folds = answeredFold(ans[0], ans[1])
			wantMatch, wantTouch := "", ""
			for _, p := range list {
				if wantMatch == "" && matchDenyPathEager(p, ref, ans[0], ans[1]) {
					wantMatch = p
				}
				if wantTouch == "" && writeTouchesReference(p, lazy) {
					wantTouch = p
				}
			}
			for range 2 { // compiled, then from what was kept
				d := CompileDenyPaths(list)
				if got, _ := d.Match(lazy); got != wantMatch {
					t.Fatalf("%q.Match(%+v) with folding %v = %q, each pattern %q", list, ref, ans, got, wantMatch)
				}
				if got, _ := d.WriteTouches(lazy); got != wantTouch {
					t.Fatalf("%q.WriteTouches(%+v) with folding %v = %q, each pattern %q", list, ref, ans, got, wantTouch)
				}
			}
		}
	}
}

// TestDenyListChangedInPlaceIsCompiledAgain: a kept list is used only for
// the patterns it was compiled from; the same slice changed in place is
// compiled again.
func TestDenyListChangedInPlaceIsCompiledAgain(t *testing.T) {
	list := []string{".env", "secrets/**"}
	ref := PathRef{Rel: "keys/id", lexRel: "keys/id", Abs: "/w/keys/id", lexAbs: "/w/keys/id", Inside: true}
	if _, ok := CompileDenyPaths(list).Match(ref); ok {
		t.Fatal("keys/id denied by", list)
	}
	list[1] = "keys/**"
	if pat, ok := CompileDenyPaths(list).Match(ref); !ok || pat != "keys/**" {
		t.Fatalf("after the change: %q %v", pat, ok)
	}
	short := slices.Clone(list[:1])
	if _, ok := CompileDenyPaths(short).Match(ref); ok {
		t.Fatal("keys/id denied by", short)
	}
}
