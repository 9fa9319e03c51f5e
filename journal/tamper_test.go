package journal

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tamper builds a journal of ten lines per file, lets edit change the
// lease journal's lines, and returns the directory.
func tamper(t *testing.T, edit func(lines [][]byte) [][]byte) string {
	t.Helper()
	dir := t.TempDir()
	fillJournal(t, dir, 10)
	path := journalPath(dir, Leases)
	lines := fileLines(t, path)
	lines = lines[:len(lines)-1] // the empty piece after the last newline
	writeLines(t, path, edit(lines))
	return dir
}

func wantBreaks(t *testing.T, got []Break, want ...Break) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d breaks, want %d:\n%s", len(got), len(want), breaksString(got))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.File != w.File || g.Seq != w.Seq || g.Line != w.Line || !strings.Contains(g.Reason, w.Reason) {
			t.Errorf("break %d:\n got %s (line %d)\nwant %s (line %d) containing %q", i, g, g.Line, w.File, w.Line, w.Reason)
		}
	}
}

func TestVerifyFlipByte(t *testing.T) {
	dir := tamper(t, func(lines [][]byte) [][]byte {
		i := bytes.Index(lines[4], []byte(`"lease_id":"`)) + len(`"lease_id":"`) + 2
		lines[4][i] ^= 0x01 // a hex digit becomes another: still JSON, still valid
		return lines
	})
	r := Verify(dir, testKey)
	wantBreaks(t, r.Breaks, Break{File: LeasesFile, Seq: 5, Line: 5, Reason: "mac mismatch"})
	if !strings.HasPrefix(r.Breaks[0].String(), "leases.jsonl seq 5: mac mismatch") {
		t.Errorf("String: %s", r.Breaks[0])
	}

	// Without the key the edit still shows, as the next line's broken link.
	r = Verify(dir, nil)
	wantBreaks(t, r.Breaks, Break{File: LeasesFile, Seq: 6, Line: 6, Reason: "prev does not match the hash of seq 5"})
	if r.MACsChecked {
		t.Error("MACsChecked without a key")
	}
}

func TestVerifyFlipByteNotJSON(t *testing.T) {
	dir := tamper(t, func(lines [][]byte) [][]byte {
		lines[4][0] ^= 0x20 // '{' becomes '['
		return lines
	})
	r := Verify(dir, testKey)
	wantBreaks(t, r.Breaks, Break{File: LeasesFile, Seq: 0, Line: 5, Reason: "not JSON"})
	if s := r.Breaks[0].String(); !strings.HasPrefix(s, "leases.jsonl line 5: not JSON") || !strings.HasSuffix(s, "seq 5 was expected here") {
		t.Errorf("String: %s", s)
	}
}

func TestVerifyFlipByteInSeq(t *testing.T) {
	dir := tamper(t, func(lines [][]byte) [][]byte {
		i := bytes.Index(lines[4], []byte(`"seq":5`))
		lines[4][i+len(`"seq":`)] = '4'
		return lines
	})
	wantBreaks(t, Verify(dir, testKey).Breaks, Break{File: LeasesFile, Seq: 0, Line: 5, Reason: "mac mismatch"})
	if b := Verify(dir, testKey).Breaks[0]; !strings.Contains(b.Reason, "claims seq 4 where seq 5 was expected") {
		t.Errorf("reason should say what the line claims: %s", b)
	}
}

func TestVerifyDeletedLine(t *testing.T) {
	dir := tamper(t, func(lines [][]byte) [][]byte {
		return append(lines[:4:4], lines[5:]...)
	})
	wantBreaks(t, Verify(dir, testKey).Breaks,
		Break{File: LeasesFile, Seq: 6, Line: 5, Reason: "seq 5 is missing: seq 6 follows seq 4"})
}

func TestVerifyDeletedLines(t *testing.T) {
	dir := tamper(t, func(lines [][]byte) [][]byte {
		return append(lines[:2:2], lines[7:]...)
	})
	wantBreaks(t, Verify(dir, testKey).Breaks,
		Break{File: LeasesFile, Seq: 8, Line: 3, Reason: "seqs 3 to 7 are missing (5 lines): seq 8 follows seq 2"})
}

func TestVerifyReorderedLines(t *testing.T) {
	dir := tamper(t, func(lines [][]byte) [][]byte {
		lines[4], lines[5] = lines[5], lines[4]
		return lines
	})
	wantBreaks(t, Verify(dir, testKey).Breaks,
		Break{File: LeasesFile, Seq: 5, Line: 6, Reason: "out of order: seq 5 comes after seq 6"})
}

func TestVerifyDuplicatedLine(t *testing.T) {
	dir := tamper(t, func(lines [][]byte) [][]byte {
		dup := append([]byte(nil), lines[4]...)
		return append(lines[:5:5], append([][]byte{dup}, lines[5:]...)...)
	})
	wantBreaks(t, Verify(dir, testKey).Breaks,
		Break{File: LeasesFile, Seq: 5, Line: 6, Reason: "seq 5 repeated (first at line 5)"})
}

func TestVerifyForeignKey(t *testing.T) {
	dir := t.TempDir()
	fillJournal(t, dir, 3)
	r := Verify(dir, bytes.Repeat([]byte{1}, 32))
	if len(r.Breaks) != 6 || !strings.Contains(r.Breaks[0].Reason, "mac mismatch") {
		t.Fatalf("another key must fail every mac:\n%s", breaksString(r.Breaks))
	}
}

func TestVerifyTornTailAndRecovery(t *testing.T) {
	var cut []byte
	dir := tamper(t, func(lines [][]byte) [][]byte {
		last := lines[9]
		cut = append([]byte(nil), last[:len(last)/2]...)
		lines[9] = cut
		return lines
	})
	r := Verify(dir, testKey)
	wantBreaks(t, r.Breaks, Break{File: LeasesFile, Seq: 10, Line: 10, Reason: "torn last line"})

	before, _ := os.ReadFile(journalPath(dir, Leases))
	now := time.Date(2026, 11, 29, 10, 30, 0, 0, time.UTC)
	w, err := Open(dir, testKey, Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Breaks()) != 0 {
		t.Fatalf("a torn tail is not a break:\n%s", breaksString(w.Breaks()))
	}
	rec := w.Recoveries()
	if len(rec) != 1 || rec[0].File != LeasesFile || rec[0].Bytes != int64(len(cut)) || !rec[0].Recorded {
		t.Fatalf("recoveries %+v", rec)
	}
	if want := journalPath(dir, Leases) + ".torn-20261129T103000.000000000Z"; rec[0].MovedTo != want {
		t.Errorf("moved to %s, want %s", rec[0].MovedTo, want)
	}
	moved, err := os.ReadFile(rec[0].MovedTo)
	if err != nil || !bytes.Equal(moved, cut) {
		t.Fatalf("the torn bytes must be kept aside: %q %v", moved, err)
	}
	if st, _ := os.Stat(rec[0].MovedTo); st.Mode().Perm() != 0o600 {
		t.Errorf(".torn file mode %v", st.Mode().Perm())
	}
	after, _ := os.ReadFile(journalPath(dir, Leases))
	if !bytes.Equal(after, before[:len(before)-len(cut)]) {
		t.Fatal("the journal must be cut exactly at the end of the last good line")
	}
	if a := appendT(t, w, Leases, heartbeat(99)); a.Seq != 10 {
		t.Fatalf("the torn line's seq is reused: got %d", a.Seq)
	}
	w.Close()
	requireClean(t, dir)

	// The recovery is on record, after the audit journal's own lines.
	lines, _, err := ReadFrom(journalPath(dir, Audit), 0)
	if err != nil {
		t.Fatal(err)
	}
	last := lines[len(lines)-1]
	d, _ := last.Value["details"].(map[string]any)
	if last.Seq != 11 || last.Str("event_type") != "leasedeck.journal.recovered" ||
		d["journal"] != LeasesFile || d["moved_to"] != filepath.Base(rec[0].MovedTo) || d["bytes"] == nil {
		t.Fatalf("recovery line: %s", last.Raw)
	}
}

func TestRecoveryOfNonJSONLastLine(t *testing.T) {
	dir := tamper(t, func(lines [][]byte) [][]byte {
		return append(lines, []byte("\x00\x00\x00\x00\n"))
	})
	wantBreaks(t, Verify(dir, testKey).Breaks, Break{File: LeasesFile, Seq: 11, Line: 11, Reason: "torn last line: not JSON"})
	w := openT(t, dir)
	if len(w.Breaks()) != 0 || len(w.Recoveries()) != 1 || w.Recoveries()[0].Bytes != 5 {
		t.Fatalf("breaks %v recoveries %+v", w.Breaks(), w.Recoveries())
	}
	w.Close()
	requireClean(t, dir)
}

func TestRecoveryOfBothFiles(t *testing.T) {
	dir := t.TempDir()
	fillJournal(t, dir, 4)
	for _, k := range Kinds {
		f, _ := os.OpenFile(journalPath(dir, k), os.O_WRONLY|os.O_APPEND, 0)
		f.WriteString(`{"schema_version":"1.2","at":"2026`)
		f.Close()
	}
	w := openT(t, dir)
	if len(w.Recoveries()) != 2 {
		t.Fatalf("recoveries %+v", w.Recoveries())
	}
	w.Close()
	requireClean(t, dir)
	lines, _, _ := ReadFrom(journalPath(dir, Audit), 0)
	if len(lines) != 6 {
		t.Fatalf("want 4 lines and 2 recovery lines, got %d", len(lines))
	}
}

// A break in the middle is never cut: Open reports it, refuses appends to
// that file, and leaves its bytes exactly as they were.
func TestOpenWithMiddleBreak(t *testing.T) {
	dir := tamper(t, func(lines [][]byte) [][]byte {
		return append(lines[:4:4], lines[5:]...)
	})
	before, _ := os.ReadFile(journalPath(dir, Leases))
	var replayed int
	w, err := Open(dir, testKey, Options{Replay: func(k Kind, l *Line) error {
		if k == Leases {
			replayed++
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	wantBreaks(t, w.Breaks(), Break{File: LeasesFile, Seq: 6, Line: 5, Reason: "seq 5 is missing"})
	if replayed != 9 {
		// Every line still there is authentic; only seq 5 is gone.
		t.Errorf("replayed %d intact lines, want 9", replayed)
	}
	_, err = w.Append(Leases, heartbeat(11))
	var be *BreakError
	if !errors.As(err, &be) || be.Seq != 6 || !strings.Contains(err.Error(), "refusing to append") {
		t.Fatalf("append to a broken file: %v", err)
	}
	var be2 *BreakError
	if !errors.As(w.Broken(), &be2) {
		t.Fatalf("Broken: %v", w.Broken())
	}
	appendT(t, w, Audit, gateAllowed(11)) // the other file still records
	w.Close()
	after, _ := os.ReadFile(journalPath(dir, Leases))
	if !bytes.Equal(before, after) {
		t.Fatal("a broken journal was modified")
	}
}

// A schema-invalid line with a good mac (written by a writer with another
// schema, say) is a break, not a torn tail, even when it is the last line.
func TestOpenSchemaInvalidLastLineIsABreak(t *testing.T) {
	dir := t.TempDir()
	fillJournal(t, dir, 2)
	w := openT(t, dir)
	w.Close()
	// Forge a well-formed line with the real key but an event the schema
	// does not know.
	seq, head, _ := func() (uint64, string, int64) { w := openT(t, dir); defer w.Close(); return w.Head(Leases) }()
	var prev [32]byte
	copyHex(t, prev[:], head)
	body := []byte(`{"at":"2026-11-29T10:00:00.000Z","event":"teleported","lease_id":"` + testUUID(3) + `","schema_version":"1.2"}`)
	line, _ := appendLine(nil, body, seq+1, &prev, newAnalyser(analyseOpts{key: testKey}).mac)
	f, _ := os.OpenFile(journalPath(dir, Leases), os.O_WRONLY|os.O_APPEND, 0)
	f.Write(line)
	f.Close()
	w = openT(t, dir)
	defer w.Close()
	wantBreaks(t, w.Breaks(), Break{File: LeasesFile, Seq: 3, Line: 3, Reason: "schema: /event enum"})
	if len(w.Recoveries()) != 0 {
		t.Fatal("a complete, signed line must not be moved aside")
	}
}

func TestVerifyExtraChecks(t *testing.T) {
	dir := t.TempDir()
	fillJournal(t, dir, 3)
	var lines int
	r := VerifyWith(dir, testKey, VerifyOptions{
		Line: func(k Kind, l *Line) []string {
			lines++
			if k == Leases && l.Seq == 2 {
				return []string{"L2: parent_lease_id equals lease_id"}
			}
			return nil
		},
		Finish: func() []Break { return []Break{{File: LeasesFile, Seq: 3, Reason: "status does not fold"}} },
	})
	if lines != 6 {
		t.Errorf("callback saw %d lines", lines)
	}
	wantBreaks(t, r.Breaks,
		Break{File: LeasesFile, Seq: 2, Line: 2, Reason: "L2: parent_lease_id"},
		Break{File: LeasesFile, Seq: 3, Reason: "status does not fold"})
}

func TestVerifyMissingAndUnreadable(t *testing.T) {
	r := Verify(t.TempDir(), testKey)
	if !r.OK() || !r.Files[0].Missing || !r.Files[1].Missing {
		t.Fatalf("an empty directory is a clean, empty journal: %+v", r)
	}
	dir := t.TempDir()
	os.Mkdir(journalPath(dir, Leases), 0o700) // a directory where the file should be
	r = Verify(dir, testKey)
	if r.OK() || !strings.Contains(r.Breaks[0].String(), "cannot be read") {
		t.Fatalf("unreadable file: %+v", r.Breaks)
	}
}

func copyHex(t *testing.T, dst []byte, s string) {
	t.Helper()
	if e := parseHash(s, (*[32]byte)(dst)); e != "" {
		t.Fatal(e)
	}
}
