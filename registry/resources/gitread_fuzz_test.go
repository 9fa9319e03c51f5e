package resources

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// gitIndexRepos are repositories whose indexes cover what the reader
// must agree with git on: versions 2, 3 (extended flags: intent-to-add,
// skip-worktree) and 4 (prefix-compressed names), names of every kind
// (spaces, non-ASCII, deep directories, a path longer than the 12-bit
// length field), and a merge conflict's stages.
func gitIndexRepos(t testing.TB) []string {
	rng := rand.New(rand.NewSource(12))
	var names []string
	for i := range 40 {
		depth := rng.Intn(4)
		var parts []string
		for d := 0; d <= depth; d++ {
			parts = append(parts, fmt.Sprintf("%s%d%s", []string{"a", "dir ", "ü", ".e", "x-y"}[rng.Intn(5)], i, []string{"", ".go", " s", "~"}[rng.Intn(4)]))
		}
		names = append(names, strings.Join(parts, "/"))
	}
	names = append(names, "a0")
	long := strings.Repeat("d", 200)
	names = append(names, strings.Repeat(long+"/", 21)+"f")
	var script strings.Builder
	for _, n := range names {
		fmt.Fprintf(&script, "mkdir -p %q && echo %q > %q\n", filepath.Dir(n), n, n)
	}
	base := []string{script.String() + "git add -A && git commit -qm one"}
	var out []string
	for _, extra := range [][]string{
		{"git update-index --index-version 2"},
		{"echo n > new && git add -N new && git update-index --skip-worktree a0"},
		{"git update-index --index-version 4"},
		{"git checkout -qb side && echo s > a0 && git commit -qam s && git checkout -q main && echo m > a0 && git commit -qam m && (git merge -q side || true)"},
	} {
		out = append(out, gitWorkspace(t, append(append([]string{}, base...), extra...)...))
	}
	return out
}

// TestGitIndexAgreesWithGit: the reader lists the paths (with every
// stage) git ls-files --stage lists, in each generated repository.
func TestGitIndexAgreesWithGit(t *testing.T) {
	for _, ws := range gitIndexRepos(t) {
		entries, err := gitIndexPaths(filepath.Join(ws, ".git"))
		if err != nil {
			t.Fatalf("%s: %v", ws, err)
		}
		var got, want []string
		for _, e := range entries {
			got = append(got, e.hash.String()+" "+e.name)
		}
		for _, rec := range strings.Split(strings.TrimSuffix(gitIn(t, ws, "git ls-files -z --stage"), "\x00"), "\x00") {
			meta, name, _ := strings.Cut(rec, "\t")
			if fields := strings.Fields(meta); len(fields) == 3 {
				want = append(want, fields[1]+" "+name)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: the reader lists %d paths, git %d: %q… against %q…", ws, len(got), len(want), head(got), head(want))
		}
	}
}

func head(s []string) []string { return s[:min(len(s), 3)] }

// FuzzGitIndex: no bytes make the index reader panic; what it accepts
// it accepts whole.
func FuzzGitIndex(f *testing.F) {
	for _, ws := range gitIndexRepos(f) {
		data, err := os.ReadFile(filepath.Join(ws, ".git", "index"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(data[:len(data)/2])
	}
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x01"))
	f.Add([]byte("DIRC\x00\x00\x00\x04\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		paths, err := decodeGitIndex(data)
		if err == nil && len(data) < 12+20 {
			t.Fatalf("accepted %d bytes, shorter than a header and a checksum: %v", len(data), paths)
		}
	})
}

// gitObjectRepo is a repository with objects of every type, loose or
// packed (with deltas).
func gitObjectRepo(t testing.TB, packed bool) string {
	steps := []string{
		"seq 1 2000 > big && mkdir -p d/e && echo x > d/e/f && ln -s big link && git add -A && git commit -qm one",
		"seq 1 2001 > big && git commit -qam two && git tag -a -m t v1 && git tag light HEAD~1",
		"echo loose | git hash-object -w --stdin",
	}
	if packed {
		steps = append(steps, "git gc -q --aggressive")
	}
	return gitWorkspace(t, steps...)
}

// TestGitObjectTypesAgreeWithGit: every object git lists has the type
// git cat-file -t gives it, read loose and from a pack, and an
// abbreviated id finds it.
func TestGitObjectTypesAgreeWithGit(t *testing.T) {
	for _, packed := range []bool{false, true} {
		ws := gitObjectRepo(t, packed)
		s, err := openGitStore(filepath.Join(ws, ".git"), filepath.Join(ws, ".git"), time.Now().Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		listed := strings.Fields(gitIn(t, ws, "git cat-file --batch-all-objects --batch-check='%(objectname) %(objecttype)'"))
		if len(listed) < 20 {
			t.Fatalf("only %d fields listed", len(listed))
		}
		for i := 0; i+1 < len(listed); i += 2 {
			h := plumbing.NewHash(listed[i])
			o, err := s.object(h)
			if err != nil {
				t.Errorf("packed=%v %s: %v", packed, listed[i], err)
				continue
			}
			if o.Type().String() != listed[i+1] {
				t.Errorf("packed=%v %s: %s, git says %s", packed, listed[i], o.Type(), listed[i+1])
			}
			if hs, err := s.dwim(listed[i][:7]); err != nil || !slices.Contains(hs, h) {
				t.Errorf("packed=%v %s: the abbreviation finds %v (%v)", packed, listed[i][:7], hs, err)
			}
		}
		s.st.Close()
	}
}

// FuzzGitLooseObject: a loose object of any content (an agent can have
// git write one: git hash-object -w -t tree --literally) never makes the
// reader panic, whatever its header claims.
func FuzzGitLooseObject(f *testing.F) {
	for _, seed := range []string{"blob 3\x00abc", "tree 0\x00", "commit 10\x00tree 1234\n", "tag 5\x00object",
		"tree 28\x00100644 a\x00" + strings.Repeat("\x01", 20), "commit 999999999999\x00", "blob -1\x00", "nonsense"} {
		f.Add([]byte(seed))
	}
	ws := gitObjectRepo(f, false)
	f.Fuzz(func(t *testing.T, content []byte) {
		sum := sha1.Sum(content)
		id := hex.EncodeToString(sum[:])
		dir := filepath.Join(ws, ".git", "objects", id[:2])
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		var z bytes.Buffer
		zw := zlib.NewWriter(&z)
		zw.Write(content)
		zw.Close()
		p := filepath.Join(dir, id[2:])
		if err := os.WriteFile(p, z.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(p)
		s, err := openGitStore(filepath.Join(ws, ".git"), filepath.Join(ws, ".git"), time.Now().Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		defer s.st.Close()
		o, err := s.object(plumbing.NewHash(id))
		if err != nil {
			return
		}
		switch o.Type() {
		case plumbing.TreeObject:
			object.DecodeTree(s.st, o)
		case plumbing.CommitObject:
			object.DecodeCommit(s.st, o)
		case plumbing.TagObject:
			object.DecodeTag(s.st, o)
		}
	})
}
