package journal

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/schemas"
)

func TestLineFormat(t *testing.T) {
	dir := t.TempDir()
	w := openT(t, dir)
	a1 := appendT(t, w, Leases, heartbeat(1))
	a2 := appendT(t, w, Leases, heartbeat(2))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	lines := fileLines(t, journalPath(dir, Leases))
	if len(lines) != 3 || len(lines[2]) != 0 {
		t.Fatalf("want two newline-terminated lines, got %q", lines)
	}
	prev := ZeroHash
	for i, raw := range lines[:2] {
		line := bytes.TrimSuffix(raw, []byte("\n"))
		body, _ := schemas.Canonical(heartbeat(i + 1))
		want := fmt.Sprintf(`%s,"seq":%d,"prev":"%s"`, body[:len(body)-1], i+1, prev)
		if !bytes.HasPrefix(line, []byte(want)) {
			t.Fatalf("line %d:\n got %s\nwant %s…", i+1, line, want)
		}
		m := hmac.New(sha256.New, testKey)
		m.Write([]byte(want))
		if got, wantTail := string(line[len(want):]), `,"mac":"`+hex.EncodeToString(m.Sum(nil))+`"}`; got != wantTail {
			t.Fatalf("line %d mac member %s, want %s", i+1, got, wantTail)
		}
		prev = schemas.SHA256Hex(line)
	}
	if a1.Seq != 1 || a2.Seq != 2 || a1.Offset != 0 || a2.Offset != int64(len(lines[0])) {
		t.Fatalf("Appended %+v %+v", a1, a2)
	}
	if a2.Hash != prev {
		t.Fatalf("Appended.Hash %s, want %s", a2.Hash, prev)
	}
}

func TestReopenContinuesChain(t *testing.T) {
	dir := t.TempDir()
	fillJournal(t, dir, 10)
	w := openT(t, dir)
	seq, head, size := w.Head(Leases)
	if seq != 10 || size == 0 {
		t.Fatalf("head after reopen: seq %d size %d", seq, size)
	}
	a := appendT(t, w, Leases, heartbeat(11))
	if a.Seq != 11 || a.Offset != size {
		t.Fatalf("append after reopen: %+v (head %s size %d)", a, head, size)
	}
	w.Close()
	r := requireClean(t, dir)
	if r.Files[0].LastSeq != 11 || r.Files[1].LastSeq != 10 || r.Files[0].Lines != 11 {
		t.Fatalf("report %+v", r.Files)
	}
}

func TestReplayDuringOpen(t *testing.T) {
	dir := t.TempDir()
	fillJournal(t, dir, 5)
	var got []string
	w, err := Open(dir, testKey, Options{Replay: func(k Kind, l *Line) error {
		got = append(got, fmt.Sprintf("%s:%d", k, l.Seq))
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	want := "leases.jsonl:1 leases.jsonl:2 leases.jsonl:3 leases.jsonl:4 leases.jsonl:5 audit.jsonl:1 audit.jsonl:2 audit.jsonl:3 audit.jsonl:4 audit.jsonl:5"
	if strings.Join(got, " ") != want {
		t.Fatalf("replayed %v", got)
	}
	stop := errors.New("stop")
	if _, err := Open(dir, testKey, Options{Replay: func(Kind, *Line) error { return stop }}); !errors.Is(err, stop) {
		t.Fatalf("a Replay error must abort Open, got %v", err)
	}
	// and must not leave the lock behind
	openT(t, dir).Close()
}

func TestAppendRefusesBadRecords(t *testing.T) {
	dir := t.TempDir()
	w := openT(t, dir)
	defer w.Close()
	appendT(t, w, Leases, heartbeat(1))
	_, _, before := w.Head(Leases)

	for _, name := range []string{"seq", "prev", "mac"} {
		rec := heartbeat(2)
		rec[name] = "x"
		if _, err := w.Append(Leases, rec); err == nil || !strings.Contains(err.Error(), strconv.Quote(name)) {
			t.Errorf("record with %s: err %v", name, err)
		}
	}
	bad := heartbeat(2)
	bad["event"] = "teleported"
	delete(bad, "at")
	_, err := w.Append(Leases, bad)
	var ire *InvalidRecordError
	if !errors.As(err, &ire) {
		t.Fatalf("invalid record: %v", err)
	}
	paths := map[string]bool{}
	for _, e := range ire.Errors {
		paths[e.Path] = true
	}
	if !paths["/event"] || !paths[""] {
		t.Errorf("want pointers /event and / (missing at), got %+v", ire.Errors)
	}
	// The audit schema refuses content-like detail keys such as "file".
	a := gateAllowed(1)
	a["details"].(map[string]any)["file_path"] = "/etc/passwd"
	if _, err := w.Append(Audit, a); !errors.As(err, &ire) || ire.Errors[0].Path != "/details" {
		t.Fatalf("details.file_path: %v", err)
	}
	if _, err := w.Append(Leases, map[string]any{"schema_version": "1.2", "n": math.Inf(1)}); err == nil {
		t.Fatal("a value that cannot be canonicalised must be refused")
	}
	if _, _, after := w.Head(Leases); after != before {
		t.Fatalf("refused records changed the file: %d -> %d", before, after)
	}
	if st, _ := os.Stat(journalPath(dir, Leases)); st.Size() != before {
		t.Fatalf("file is %d bytes, want %d", st.Size(), before)
	}
}

func TestNewerMinorRecordKeepsUnknownMembers(t *testing.T) {
	dir := t.TempDir()
	w := openT(t, dir)
	rec := heartbeat(1)
	rec["schema_version"] = "1.7"
	rec["liveness"] = map[string]any{"cpu_ms": 12, "note": "from the future", "nested": map[string]any{"mac": "not ours"}}
	appendT(t, w, Leases, rec)
	w.Close()
	requireClean(t, dir)
	lines, _, err := ReadFrom(journalPath(dir, Leases), 0)
	if err != nil || len(lines) != 1 {
		t.Fatalf("ReadFrom: %v %d", err, len(lines))
	}
	live := lines[0].Value["liveness"].(map[string]any)
	if live["note"] != "from the future" || live["nested"].(map[string]any)["mac"] != "not ours" || lines[0].Value["schema_version"] != "1.7" {
		t.Fatalf("unknown members lost: %v", lines[0].Value)
	}
}

func TestPermissions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ws", "journal")
	w := openT(t, dir)
	appendT(t, w, Leases, heartbeat(1))
	defer w.Close()
	check := func(path string, want os.FileMode) {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", path, st.Mode().Perm(), want)
		}
	}
	check(dir, 0o700)
	check(journalPath(dir, Leases), 0o600)
	check(journalPath(dir, Audit), 0o600)
	check(filepath.Join(dir, "writer.lock"), 0o600)
}

func TestSecondWriterIsRefused(t *testing.T) {
	dir := t.TempDir()
	w := openT(t, dir)
	_, err := Open(dir, testKey, Options{})
	var le *LockedError
	if !errors.As(err, &le) || le.PID != os.Getpid() {
		t.Fatalf("second Open: %v", err)
	}
	if !strings.Contains(err.Error(), fmt.Sprintf("journal is locked by pid %d", os.Getpid())) {
		t.Fatalf("message: %v", err)
	}
	w.Close()
	openT(t, dir).Close() // free again
}

// TestSecondWriterNamesOtherProcess holds the lock in a child process.
func TestSecondWriterNamesOtherProcess(t *testing.T) {
	dir := t.TempDir()
	lock := filepath.Join(dir, "registry.lock")
	cmd := child(t, "TestHelperHoldLock", "JOURNAL_DIR="+filepath.Join(dir, "journal"), "JOURNAL_LOCK="+lock)
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
		t.Fatalf("child said %q", line)
	}
	_, err := Open(filepath.Join(dir, "journal"), testKey, Options{LockPath: lock})
	want := fmt.Sprintf("journal is locked by pid %d", cmd.Process.Pid)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Open while a child holds the lock: %v (want %q)", err, want)
	}
	// The kernel frees the lock when the holder dies, however it dies.
	cmd.Process.Kill()
	cmd.Wait()
	w, err := Open(filepath.Join(dir, "journal"), testKey, Options{LockPath: lock})
	if err != nil {
		t.Fatalf("Open after the holder died: %v", err)
	}
	w.Close()
}

func TestHelperHoldLock(t *testing.T) {
	if !isHelper() {
		t.Skip("helper process")
	}
	w, err := Open(os.Getenv("JOURNAL_DIR"), testKey, Options{LockPath: os.Getenv("JOURNAL_LOCK")})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	defer w.Close()
	fmt.Println("ready")
	time.Sleep(time.Minute)
}

// TestReadOnlyFileAppendFails: the file can no longer be written (here its
// descriptor is swapped for a read-only one — as root, permissions alone
// would not stop the write). The append fails with a clear error, nothing
// is left behind, and the writer stops until reopened.
func TestReadOnlyFileAppendFails(t *testing.T) {
	dir := t.TempDir()
	w := openT(t, dir)
	appendT(t, w, Leases, heartbeat(1))
	appendT(t, w, Audit, gateAllowed(1))
	_, _, size := w.Head(Leases)
	ro, err := os.Open(journalPath(dir, Leases))
	if err != nil {
		t.Fatal(err)
	}
	w.files[Leases].f.Close()
	w.files[Leases].f = ro

	_, err = w.Append(Leases, heartbeat(2))
	var we *WriteError
	if !errors.As(err, &we) || we.File != LeasesFile || we.Op != "write" {
		t.Fatalf("append to a read-only file: %v", err)
	}
	if !strings.Contains(err.Error(), "leases.jsonl") || !strings.Contains(err.Error(), "nothing of it remains") {
		t.Errorf("message not clear: %v", err)
	}
	if _, err := w.Append(Audit, gateAllowed(2)); !errors.Is(err, ErrStopped) {
		t.Fatalf("appends after a failed write must be refused with ErrStopped: %v", err)
	}
	if st, _ := os.Stat(journalPath(dir, Leases)); st.Size() != size {
		t.Fatalf("file is %d bytes after the failure, want %d", st.Size(), size)
	}
	w.Close()
	requireClean(t, dir)
	w = openT(t, dir)
	if a := appendT(t, w, Leases, heartbeat(2)); a.Seq != 2 {
		t.Fatalf("after reopening: %+v", a)
	}
	w.Close()
	requireClean(t, dir)
}

// TestShortWriteIsRolledBack makes a write stop half-way, as a full disk
// does: a child process lowers its file size limit (RLIMIT_FSIZE) just
// above the journal's size (less than a line) and appends a batch that
// crosses it. The kernel
// writes part of the batch and refuses the rest; the writer must cut the
// part back so that no partial line remains.
func TestShortWriteIsRolledBack(t *testing.T) {
	dir := t.TempDir()
	fillJournal(t, dir, 3)
	before, _ := os.ReadFile(journalPath(dir, Leases))
	out, err := child(t, "TestHelperShortWrite", "JOURNAL_DIR="+dir).CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "file too large") || !strings.Contains(string(out), "nothing of it remains") {
		t.Fatalf("child output:\n%s", out)
	}
	after, _ := os.ReadFile(journalPath(dir, Leases))
	if !bytes.Equal(before, after) {
		t.Fatalf("the journal changed: %d bytes before, %d after", len(before), len(after))
	}
	requireClean(t, dir)
}

func TestHelperShortWrite(t *testing.T) {
	if !isHelper() {
		t.Skip("helper process")
	}
	w, err := Open(os.Getenv("JOURNAL_DIR"), testKey, Options{})
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(1)
	}
	_, _, size := w.Head(Leases)
	lim := syscall.Rlimit{Cur: uint64(size) + 100, Max: uint64(size) + 100}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		fmt.Println("setrlimit:", err)
		os.Exit(1)
	}
	var wg sync.WaitGroup
	errs := make([]error, 16)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = w.Append(Leases, heartbeat(100+i))
		}()
	}
	wg.Wait()
	failed := 0
	for _, err := range errs {
		if err != nil {
			failed++
			if failed == 1 {
				fmt.Println(err)
			}
		}
	}
	if failed == 0 {
		fmt.Println("no append failed")
		os.Exit(1)
	}
	w.Close()
}

func TestConcurrentAppends(t *testing.T) {
	const writers = 8
	perWriter := 10000
	dir := t.TempDir()
	w := openT(t, dir)
	var wg sync.WaitGroup
	seqs := make([][]uint64, writers)
	start := time.Now()
	for g := 0; g < writers; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perWriter; i++ {
				k := Leases
				rec := heartbeat(g*perWriter + i)
				if i%4 == 3 {
					k, rec = Audit, gateAllowed(g*perWriter+i)
				}
				a, err := w.Append(k, rec)
				if err != nil {
					t.Error(err)
					return
				}
				if k == Leases {
					seqs[g] = append(seqs[g], a.Seq)
				}
			}
		}()
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	// Each goroutine's own appends are answered in order.
	seen := map[uint64]bool{}
	for _, s := range seqs {
		for i := 1; i < len(s); i++ {
			if s[i] <= s[i-1] {
				t.Fatalf("seqs of one goroutine not increasing: %d then %d", s[i-1], s[i])
			}
		}
		for _, q := range s {
			if seen[q] {
				t.Fatalf("seq %d given twice", q)
			}
			seen[q] = true
		}
	}
	r := requireClean(t, dir)
	total := r.Files[0].Lines + r.Files[1].Lines
	if total != writers*perWriter || r.Files[0].LastSeq != uint64(r.Files[0].Lines) {
		t.Fatalf("%d lines (%+v), want %d", total, r.Files, writers*perWriter)
	}
	t.Logf("%d appends by %d goroutines in %v", total, writers, elapsed)
}

func TestAppendAll(t *testing.T) {
	dir := t.TempDir()
	w := openT(t, dir)
	recs := make([]map[string]any, 500)
	for i := range recs {
		recs[i] = heartbeat(i)
	}
	got, err := w.AppendAll(Leases, recs)
	if err != nil || len(got) != len(recs) {
		t.Fatalf("AppendAll: %d %v", len(got), err)
	}
	for i, a := range got {
		if a.Seq != uint64(i+1) {
			t.Fatalf("record %d got seq %d: AppendAll must keep order", i, a.Seq)
		}
	}
	bad := append([]map[string]any{heartbeat(1)}, map[string]any{"event": "x"})
	if _, err := w.AppendAll(Leases, bad); err == nil {
		t.Fatal("an invalid record must refuse the whole set")
	}
	if seq, _, _ := w.Head(Leases); seq != 500 {
		t.Fatalf("a refused set wrote lines: head %d", seq)
	}
	w.Close()
	requireClean(t, dir)
}
