package journal

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFromBadInput(t *testing.T) {
	dir := t.TempDir()
	fillJournal(t, dir, 2)
	path := journalPath(dir, Leases)
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString("this is not JSON\n")
	f.WriteString(`{"schema_version":"1.2","at":"yesterday","event":"heartbeat","lease_id":"` + testUUID(7) + `","seq":4}` + "\n")
	f.WriteString(`{"schema_version":"1.9","at":"2026-11-29T10:00:00.000Z","event":"heartbeat","lease_id":"` + testUUID(8) + `","pulse":{"bpm":60,"tags":["x"]},"seq":5}` + "\n")
	f.WriteString(`{"schema_version":"1.2","at":"2026-11-29T10:0`) // being written
	f.Close()

	lines, next, err := ReadFrom(path, 0)
	var re *ReadError
	if !errors.As(err, &re) || len(re.Problems) != 2 {
		t.Fatalf("want two problems, got %v", err)
	}
	p1, p2 := re.Problems[0], re.Problems[1]
	if p1.File != path || p1.Number != 3 || !strings.Contains(p1.Reason, "not JSON") {
		t.Errorf("problem 1: %v", p1)
	}
	if p2.Number != 4 || p2.Seq != 4 || len(p2.Schema) != 1 || p2.Schema[0].Path != "/at" {
		t.Errorf("problem 2: %v %+v", p2, p2.Schema)
	}
	if !strings.HasPrefix(p2.Error(), path+" line 4: not a valid lease-record: /at pattern") {
		t.Errorf("problem 2 message: %v", p2)
	}
	if len(lines) != 3 {
		t.Fatalf("want the 3 good lines, got %d", len(lines))
	}
	newer := lines[2]
	if newer.Number != 5 || newer.Seq != 5 || newer.Str("schema_version") != "1.9" {
		t.Fatalf("newer-minor line: %+v", newer)
	}
	if pulse, ok := newer.Value["pulse"].(map[string]any); !ok || pulse["bpm"] == nil || len(pulse["tags"].([]any)) != 1 {
		t.Fatalf("unknown member not kept: %s", newer.Raw)
	}
	// The partial line is left for the next read.
	data, _ := os.ReadFile(path)
	if want := int64(bytes.LastIndexByte(data, '\n') + 1); next != want {
		t.Fatalf("next %d, want %d", next, want)
	}
	if newer.End() != next {
		t.Fatalf("End %d next %d", newer.End(), next)
	}

	// From the middle: line numbers stay absolute.
	lines, _, _ = ReadFrom(path, lines[1].Offset)
	if len(lines) != 2 || lines[0].Number != 2 || lines[1].Number != 5 {
		t.Fatalf("from an offset: %+v", lines)
	}
	// From the end: nothing.
	if lines, n, err := ReadFrom(path, next); len(lines) != 0 || n != next || err != nil {
		t.Fatalf("from the end: %d %d %v", len(lines), n, err)
	}
}

func TestReadFromAuditAndNames(t *testing.T) {
	dir := t.TempDir()
	fillJournal(t, dir, 3)
	lines, _, err := ReadFrom(journalPath(dir, Audit), 0)
	if err != nil || len(lines) != 3 {
		t.Fatalf("%d %v", len(lines), err)
	}
	if d := lines[2].Value["details"].(map[string]any); d["tool"] != "Bash" {
		t.Fatalf("details: %v", d)
	}
	if _, _, err := ReadFrom(filepath.Join(dir, "other.jsonl"), 0); err == nil {
		t.Fatal("a file that is neither journal must be refused")
	}
	// A rotated copy reads with its journal's schema.
	os.Rename(journalPath(dir, Audit), journalPath(dir, Audit)+".1")
	if lines, _, err := ReadFrom(journalPath(dir, Audit)+".1", 0); err != nil || len(lines) != 3 {
		t.Fatalf("rotated copy: %d %v", len(lines), err)
	}
	if _, _, err := ReadFrom(journalPath(dir, Audit), 0); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
}

// Large files go through the parallel reader: results must be identical to
// reading line by line, in order.
func TestScanLargeInOrder(t *testing.T) {
	dir := t.TempDir()
	const n = 20000
	path := journalPath(dir, Leases)
	data := append(buildJournal(t, n, heartbeat), "junk\n"...)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	var seqs []uint64
	next, err := Scan(path, 0, func(l *Line) error {
		seqs = append(seqs, l.Seq)
		return nil
	})
	var re *ReadError
	if !errors.As(err, &re) || re.Problems[0].Number != n+1 {
		t.Fatalf("err %v", err)
	}
	if st, _ := os.Stat(path); next != st.Size() {
		t.Fatalf("next %d size %d", next, st.Size())
	}
	for i, s := range seqs {
		if s != uint64(i+1) {
			t.Fatalf("line %d has seq %d", i+1, s)
		}
	}
	if len(seqs) != n {
		t.Fatalf("%d lines", len(seqs))
	}
	// Stopping early returns the callback's error and where it stopped.
	stop := errors.New("enough")
	count := 0
	next, err = Scan(path, 0, func(l *Line) error {
		if count++; count == 1000 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || next != mustEnd(t, path, 999) {
		t.Fatalf("early stop: %v at %d", err, next)
	}
}

func mustEnd(t *testing.T, path string, lines int) int64 {
	data, _ := os.ReadFile(path)
	off := 0
	for i := 0; i < lines; i++ {
		off += bytes.IndexByte(data[off:], '\n') + 1
	}
	return int64(off)
}

func TestLongLineAcrossChunks(t *testing.T) {
	dir := t.TempDir()
	w := openT(t, dir)
	rec := heartbeat(1)
	rec["blob"] = strings.Repeat("x", 3*chunkSize)
	appendT(t, w, Leases, rec)
	appendT(t, w, Leases, heartbeat(2))
	w.Close()
	lines, _, err := ReadFrom(journalPath(dir, Leases), 0)
	if err != nil || len(lines) != 2 || len(lines[0].Value["blob"].(string)) != 3*chunkSize {
		t.Fatalf("%d lines, %v", len(lines), err)
	}
	requireClean(t, dir)
}
