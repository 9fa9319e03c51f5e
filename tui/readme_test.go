package tui

import (
	"os"
	"strings"
	"testing"
)

// The README's key table is generated from the key map; this test keeps
// the two from drifting (and rewrites the table with -update).
func TestReadmeKeyTable(t *testing.T) {
	const path = "../README.md"
	const begin, end = "<!-- keys:begin -->\n", "<!-- keys:end -->"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no %q … %q markers", path, begin, end)
	}
	want := defaultKeyMap().MarkdownTable()
	got := doc[i+len(begin) : j]
	if got == want {
		return
	}
	if updating() {
		doc = doc[:i+len(begin)] + want + doc[j:]
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("the key table in %s is out of date; run go test ./tui -run TestReadmeKeyTable -update\n--- got\n%s--- want\n%s", path, got, want)
}
