package resources

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
)

// resolvedForm is what a resolution decides, without the resolver's own
// case-folding state.
type resolvedForm struct {
	ref PathRef
	err string
}

// resolveAll resolves paths with one resolver (the call's), with or
// without the directory short cut, and lists what it remembered.
func resolveAll(workspace string, paths []string, shortCut bool) ([]resolvedForm, []string) {
	saved := dirShortCut
	dirShortCut = shortCut
	defer func() { dirShortCut = saved }()
	r := newPathResolver(workspace)
	var out []resolvedForm
	for _, p := range paths {
		ref, err := r.resolve(p)
		ref.folds = nil
		f := resolvedForm{ref: ref}
		if err != nil {
			f.err = err.Error()
		}
		out = append(out, f)
	}
	var seen []string
	for _, s := range r.seen {
		seen = append(seen, fmt.Sprintf("%s %+v", s.path, s.e))
	}
	for p, e := range r.entries {
		seen = append(seen, fmt.Sprintf("%s %+v", p, e))
	}
	sort.Strings(seen)
	return out, seen
}

// TestDirShortCutMatchesWalk: the workspace and the home directory
// resolved by one openat2 give what the component walk gives — every
// path's forms, the errors and what the call remembers of the file
// system — on random trees where a component of either is a directory, a
// link (absolute, relative, to a file, in a loop), a file or missing.
func TestDirShortCutMatchesWalk(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	took := 0
	for round := range 300 {
		root, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(root, "real", "x", "y", "z"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "file"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		// ws = root/c1/c2/c3, home = root/c1/h2/h3 (sharing c1) or
		// root/k1/k2/k3: each component made at random.
		make3 := func(names ...string) string {
			dir := root
			for _, n := range names {
				dir = filepath.Join(dir, n)
				if _, err := os.Lstat(dir); err == nil {
					continue
				}
				switch r.Intn(8) {
				case 0:
					os.Symlink(filepath.Join(root, "real", "x"), dir)
				case 1:
					os.Symlink("../real", dir)
				case 2:
					os.Symlink(filepath.Join(root, "file"), dir)
				case 3:
					os.Symlink(dir, dir) // a loop
				case 4:
					os.WriteFile(dir, nil, 0o644)
				case 5:
					// missing
				default:
					os.Mkdir(dir, 0o755)
				}
			}
			return dir
		}
		ws := make3("c1", "c2", "c3")
		var home string
		if r.Intn(2) == 0 {
			home = make3("c1", "h2", "h3")
		} else {
			home = make3("k1", "k2", "k3")
		}
		os.MkdirAll(filepath.Join(ws, "src"), 0o755)
		t.Setenv("HOME", home)
		paths := []string{"src/a.go", ".", "~/.ssh/id_rsa", ws + "/src", filepath.Join(root, "c1", "c2"), "../x", "~"}
		r.Shuffle(len(paths), func(i, j int) { paths[i], paths[j] = paths[j], paths[i] })
		fast, fastSeen := resolveAll(ws, paths, true)
		slow, slowSeen := resolveAll(ws, paths, false)
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("round %d, workspace %s, home %s: with the short cut\n%+v\nwalked\n%+v", round, ws, home, fast, slow)
		}
		if !reflect.DeepEqual(fastSeen, slowSeen) {
			t.Fatalf("round %d, workspace %s, home %s: remembered with the short cut\n%v\nwalked\n%v", round, ws, home, fastSeen, slowSeen)
		}
		if dirWithoutLinks(ws) {
			took++
		}
	}
	if dirWithoutLinks(t.TempDir()) && took == 0 {
		t.Fatal("the short cut was never taken: the comparison says nothing")
	}
}
