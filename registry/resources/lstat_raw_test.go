//go:build unix

package resources

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestLstatEntryMatchesLstat: the resolver's lstat, which skips the copy
// of the path and the error of a missing one, answers what syscall.Lstat
// and isMissing answer, on files, directories, links, dangling links,
// missing paths, paths through a file (ENOTDIR), a NUL byte, and paths
// around the length where it stops using the stack.
func TestLstatEntryMatchesLstat(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644))
	must(os.Mkdir(filepath.Join(dir, "d"), 0o755))
	must(os.Symlink("f", filepath.Join(dir, "l")))
	must(os.Symlink("nowhere", filepath.Join(dir, "dangling")))
	paths := []string{dir, dir + "/f", dir + "/d", dir + "/l", dir + "/dangling", dir + "/missing", dir + "/f/x",
		dir + "/missing/x", dir + "/d/", dir + "/\x00f", "", "/", "relative-missing"}
	// Names that bring the path to either side of 256 bytes, existing
	// (a chain of directories) and not.
	deep := dir
	for len(deep) < 300 {
		name := strings.Repeat("n", min(40, 300-len(deep)))
		if err := os.Mkdir(filepath.Join(deep, name), 0o755); err != nil {
			break
		}
		deep = filepath.Join(deep, name)
		paths = append(paths, deep, deep+"/missing")
	}
	for n := 250; n <= 260; n++ {
		if n > len(dir)+1 {
			paths = append(paths, dir+"/"+strings.Repeat("m", n-len(dir)-1))
		}
	}
	for _, p := range paths {
		var got, want syscall.Stat_t
		gotErr, wantErr := lstatRaw(p, &got), syscall.Lstat(p, &want)
		if gotErr != wantErr || gotErr == nil && (got.Ino != want.Ino || got.Mode != want.Mode || got.Dev != want.Dev) {
			t.Fatalf("lstatRaw(%q) = %v %+v, syscall.Lstat %v %+v", p, gotErr, got, wantErr, want)
		}
		link, isDir, missing, err := lstatEntry(p)
		wlink, wdir, werr := lstatKind(p)
		wmissing := werr != nil && isMissing(werr)
		if wmissing {
			wlink, wdir, werr = false, false, nil
		}
		if link != wlink || isDir != wdir || missing != wmissing || (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
			t.Fatalf("lstatEntry(%q) = %v %v %v %v, lstatKind %v %v %v %v", p, link, isDir, missing, err, wlink, wdir, wmissing, werr)
		}
	}
}
