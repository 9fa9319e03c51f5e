package durable

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state")
	for i, content := range []string{"first\n", "second, longer than the first\n", ""} {
		if err := WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != content {
			t.Fatalf("write %d: read %q, %v; want %q", i, got, err, content)
		}
		st, _ := os.Stat(path)
		if st.Mode().Perm() != 0o600 {
			t.Fatalf("write %d: mode %v", i, st.Mode().Perm())
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
}

func TestWriteFileErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no", "such", "dir", "f")
	if err := WriteFile(missing, []byte("x"), 0o600); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("write into a missing directory: %v", err)
	}
	// The target is a directory: the rename fails and nothing is left.
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "x"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(sub, []byte("x"), 0o600); err == nil {
		t.Fatal("renaming over a non-empty directory succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
	if err := SyncDir(missing); err == nil {
		t.Fatal("SyncDir of a missing directory succeeded")
	}
}
