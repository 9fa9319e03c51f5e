package journal

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeJournal writes n audit lines and one leases line through a real
// Writer that keeps its head beside the directory, and closes it.
func writeJournal(t *testing.T, n int) (dir, head string) {
	t.Helper()
	base := t.TempDir()
	dir, head = filepath.Join(base, "journal"), filepath.Join(base, "journal.head")
	w, err := Open(dir, testKey, Options{HeadPath: head})
	if err != nil {
		t.Fatal(err)
	}
	appendT(t, w, Leases, heartbeat(1))
	for i := 0; i < n; i++ {
		appendT(t, w, Audit, gateAllowed(i))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, head
}

func TestQuickCheck(t *testing.T) {
	audit := func(dir string) string { return filepath.Join(dir, AuditFile) }
	cases := []struct {
		name    string
		tamper  func(t *testing.T, dir, head string)
		problem string // "" for a clean report
		note    string
	}{
		{name: "clean", tamper: func(*testing.T, string, string) {}},
		{name: "last line cut", problem: "shorter than", tamper: func(t *testing.T, dir, _ string) {
			b, _ := os.ReadFile(audit(dir))
			cut := bytes.LastIndexByte(b[:len(b)-1], '\n') + 1
			os.WriteFile(audit(dir), b[:cut], 0o600)
		}},
		{name: "last line rewritten, same length", problem: "SHA-256 differs", tamper: func(t *testing.T, dir, _ string) {
			b, _ := os.ReadFile(audit(dir))
			i := bytes.LastIndex(b, []byte("allowed under"))
			copy(b[i:], "ALLOWED")
			rewriteInPlace(t, audit(dir), b)
		}},
		{name: "file replaced by a copy", problem: "replaced", tamper: func(t *testing.T, dir, _ string) {
			// A copy made while the original exists has another inode.
			b, _ := os.ReadFile(audit(dir))
			os.WriteFile(audit(dir)+".copy", b, 0o600)
			os.Rename(audit(dir)+".copy", audit(dir))
		}},
		{name: "file deleted", problem: "missing", tamper: func(t *testing.T, dir, _ string) { os.Remove(audit(dir)) }},
		{name: "head damaged", problem: "no slot carries a valid mac", tamper: func(t *testing.T, _, head string) {
			os.WriteFile(head, bytes.Repeat([]byte("x"), 1024), 0o600)
		}},
		{name: "garbage appended", problem: "not JSON", note: "", tamper: func(t *testing.T, dir, _ string) {
			f, _ := os.OpenFile(audit(dir), os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString("not json\n")
			f.Close()
		}},
		{name: "torn tail", note: "unfinished line", tamper: func(t *testing.T, dir, _ string) {
			f, _ := os.OpenFile(audit(dir), os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString(`{"seq":`)
			f.Close()
		}},
		{name: "no head kept", note: "no head is kept", tamper: func(t *testing.T, _, head string) { os.Remove(head) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, head := writeJournal(t, 50)
			c.tamper(t, dir, head)
			r := QuickCheck(dir, head, testKey)
			got := strings.Join(r.Problems, "\n")
			if c.problem == "" && got != "" {
				t.Fatalf("problems on a clean journal: %s", got)
			}
			if c.problem != "" && !strings.Contains(got, c.problem) {
				t.Fatalf("problems %q, want one saying %q", got, c.problem)
			}
			if c.note != "" && !strings.Contains(strings.Join(r.Notes, "\n"), c.note) {
				t.Fatalf("notes %q, want one saying %q", r.Notes, c.note)
			}
		})
	}
}

// A mac that does not verify near the end is found (the key is checked).
func TestQuickCheckWrongKey(t *testing.T) {
	dir, head := writeJournal(t, 5)
	other := bytes.Repeat([]byte{0x11}, 32)
	r := QuickCheck(dir, head, other)
	if len(r.Problems) == 0 {
		t.Fatal("a journal checked under another key reported no problem")
	}
}

// The check reads a bounded window: a large journal costs what a small
// one does, and the lines it read are counted.
func TestQuickCheckReadsOnlyTheEnd(t *testing.T) {
	dir, head := writeJournal(t, 3000)
	r := QuickCheck(dir, head, testKey)
	if len(r.Problems) > 0 {
		t.Fatal(r.Problems)
	}
	var audit QuickFile
	for _, f := range r.Files {
		if f.File == AuditFile {
			audit = f
		}
	}
	if audit.Checked == 0 || audit.Checked >= 3000 || audit.LastSeq != audit.HeadSeq || audit.HeadSeq < 3000 {
		t.Fatalf("audit: %+v", audit)
	}
}

func rewriteInPlace(t *testing.T, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(b, 0); err != nil {
		t.Fatal(err)
	}
}
