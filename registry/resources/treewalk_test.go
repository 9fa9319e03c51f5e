package resources

import (
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// treeDenyPatterns are the deny entries the property test draws from:
// names, directories, patterns at any depth and patterns anchored at a
// depth, with braces and classes.
var treeDenyPatterns = []string{".env", "a/**", "b/c/**", "**/*.pem", "*/k", "a/*/k", "**/b/k", "{a,c}/k",
	"c/[ab]/**", "k", "b/**/x.pem", "a/b", "**/c", "?/?/k"}

// randomTree makes a tree of up to depth levels of names from a small
// alphabet, so that deny patterns match some of it.
func randomTree(t *testing.T, r *rand.Rand, dir string, depth int) {
	names := []string{"a", "b", "c", "k", ".env", "x.pem", "y.go"}
	for _, n := range names {
		if r.IntN(3) != 0 {
			continue
		}
		p := filepath.Join(dir, n)
		if depth > 0 && r.IntN(2) == 0 && !strings.Contains(n, ".") {
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
			randomTree(t, r, p, depth-1)
			continue
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// bruteDenied reports whether some entry strictly below root matches one
// of deny, each entry resolved and matched as a read of it would be.
func bruteDenied(t *testing.T, ws, root string, deny []string) bool {
	found := false
	filepath.WalkDir(filepath.Join(ws, root), func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == filepath.Join(ws, root) {
			return err
		}
		ref, rerr := ResolvePath(ws, p)
		if rerr != nil {
			t.Fatal(rerr)
		}
		if _, ok := CompileDenyPaths(deny).Match(ref); ok {
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	return found
}

// treeMismatches runs n random cases and counts those where CheckTrees
// and the brute force disagree.
func treeMismatches(t *testing.T, n int) (mismatches, denied, allowed int, example string) {
	r := rand.New(rand.NewPCG(12, 7))
	for i := 0; i < n; i++ {
		ws, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		randomTree(t, r, ws, 3)
		var deny []string
		for _, p := range treeDenyPatterns {
			if r.IntN(4) == 0 {
				deny = append(deny, p)
			}
		}
		root := []string{".", "a", "b", "c", "a/b", "b/c"}[r.IntN(6)]
		ref, err := ResolvePath(ws, root)
		if err != nil {
			t.Fatal(err)
		}
		if st, err := os.Stat(ref.Abs); err != nil || !st.IsDir() {
			continue
		}
		got := CheckTrees([]TreeRef{newTreeRef(TreeRead{Program: "grep", Root: root}, ref, ws)}, deny)
		if got.Hold != "" {
			t.Fatalf("held: %s", got.Hold)
		}
		want := bruteDenied(t, ws, root, deny)
		if want {
			denied++
		} else {
			allowed++
		}
		if (got.Denied != nil) != want {
			mismatches++
			example = root + " " + strings.Join(deny, ",")
		}
	}
	return mismatches, denied, allowed, example
}

// A tree read is refused exactly when some existing entry below its root
// matches a deny entry, whatever the prune leaves unvisited.
func TestCheckTreesIsTheBruteForce(t *testing.T) {
	n, denied, allowed, ex := treeMismatches(t, 300)
	if n > 0 {
		t.Fatalf("%d cases disagree with the brute force, e.g. %s", n, ex)
	}
	if denied < 30 || allowed < 30 {
		t.Fatalf("the cases do not exercise both answers: %d denied, %d allowed", denied, allowed)
	}
}

// The property test fails when the prune is wrong: a prune that only
// enters a directory a pattern names literally misses **/*.pem below it.
func TestCheckTreesPropertyCatchesAWrongPrune(t *testing.T) {
	saved := denyBelowOne
	defer func() { denyBelowOne = saved }()
	denyBelowOne = func(d *denyPattern, ref *PathRef) bool {
		return ref.Rel == "." || strings.HasPrefix(d.clean, ref.Rel+"/")
	}
	if n, _, _, _ := treeMismatches(t, 300); n == 0 {
		t.Fatal("a wrong prune went unnoticed")
	}
}
