package journal

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leasedeck/leasedeck/schemas"
)

var testKey = bytes.Repeat([]byte{0x5a}, 32)

// testUUID is a valid lower-case UUID that encodes n, so tests can tell
// lines apart by their lease_id.
func testUUID(n int) string {
	return fmt.Sprintf("%08x-0000-4000-8000-%012x", uint32(n), uint64(n)&(1<<48-1))
}

func heartbeat(n int) map[string]any {
	return map[string]any{
		"schema_version": "1.2",
		"at":             "2026-11-29T10:00:00.000Z",
		"event":          "heartbeat",
		"lease_id":       testUUID(n),
	}
}

func gateAllowed(n int) map[string]any {
	return map[string]any{
		"schema_version": "1.2",
		"timestamp":      "2026-11-29T10:00:00.000Z",
		"event_type":     "leasedeck.gate.allowed",
		"actor":          map[string]any{"kind": "agent", "runtime_agent": "claude-code"},
		"summary":        "Bash allowed under its lease",
		"details":        map[string]any{"lease_id": testUUID(n), "tool": "Bash", "n": n, "approved": false},
	}
}

func openT(t testing.TB, dir string) *Writer {
	t.Helper()
	w, err := Open(dir, testKey, Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return w
}

func appendT(t testing.TB, w *Writer, k Kind, rec map[string]any) Appended {
	t.Helper()
	a, err := w.Append(k, rec)
	if err != nil {
		t.Fatalf("Append(%s): %v", k, err)
	}
	return a
}

// fillJournal writes n heartbeats and n gate lines.
func fillJournal(t testing.TB, dir string, n int) {
	t.Helper()
	w := openT(t, dir)
	for i := 1; i <= n; i++ {
		appendT(t, w, Leases, heartbeat(i))
		appendT(t, w, Audit, gateAllowed(i))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func requireClean(t testing.TB, dir string) Report {
	t.Helper()
	r := Verify(dir, testKey)
	if !r.OK() {
		for _, b := range r.Breaks {
			t.Errorf("break: %s", b)
		}
		t.FailNow()
	}
	return r
}

func fileLines(t testing.TB, path string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.SplitAfter(data, []byte("\n"))
}

func writeLines(t testing.TB, path string, lines [][]byte) {
	t.Helper()
	if err := os.WriteFile(path, bytes.Join(lines, nil), 0o600); err != nil {
		t.Fatal(err)
	}
}

// child re-runs this test binary as a helper process running only the
// named test, with env (KEY=VALUE) set; the helper test does its work when
// it sees JOURNAL_HELPER.
func child(t testing.TB, test string, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1", "-test.timeout=60s")
	cmd.Env = append(os.Environ(), "JOURNAL_HELPER=1")
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

func isHelper() bool { return os.Getenv("JOURNAL_HELPER") == "1" }

func breaksString(bs []Break) string {
	var s []string
	for _, b := range bs {
		s = append(s, b.String())
	}
	return strings.Join(s, "\n")
}

func journalPath(dir string, k Kind) string { return filepath.Join(dir, k.FileName()) }

// buildJournal makes the bytes of a valid journal file of n lines without
// a Writer (no fsync per line), for tests and benchmarks that need volume.
func buildJournal(t testing.TB, n int, gen func(i int) map[string]any) []byte {
	t.Helper()
	return buildJournalKey(t, n, gen, testKey)
}

// buildJournalKey is buildJournal under another key.
func buildJournalKey(t testing.TB, n int, gen func(i int) map[string]any, key []byte) []byte {
	t.Helper()
	an := newAnalyser(analyseOpts{key: key})
	var buf []byte
	var prev [32]byte
	for i := 1; i <= n; i++ {
		body, err := schemas.Canonical(gen(i))
		if err != nil {
			t.Fatal(err)
		}
		buf, prev = appendLine(buf, body, uint64(i), &prev, an.mac)
	}
	return buf
}
