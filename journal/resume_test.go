package journal

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// resumeFixture writes lines to both files with a kept head, takes the
// position after `before` lines of each, and writes `after` more.
func resumeFixture(t *testing.T, before, after int) (dir, head string, pos [2]Position, cp uint64) {
	t.Helper()
	dir, head = t.TempDir(), filepath.Join(t.TempDir(), "journal.head")
	w, err := Open(dir, testKey, Options{HeadPath: head})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < before; i++ {
		appendT(t, w, Leases, heartbeat(i))
		appendT(t, w, Audit, gateAllowed(i))
	}
	pos, cp = w.Position()
	for i := before; i < before+after; i++ {
		appendT(t, w, Leases, heartbeat(i))
		appendT(t, w, Audit, gateAllowed(i))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, head, pos, cp
}

// replayed reopens the journal with a resume at pos and reports what Open
// decided and which seqs it replayed.
func replayed(t *testing.T, dir, head string, pos [2]Position, cp uint64) (used bool, why string, seqs [2][]uint64, w *Writer) {
	t.Helper()
	w, err := Open(dir, testKey, Options{HeadPath: head,
		Resume: &Resume{Files: pos, CheckpointSeq: cp, Decided: func(u bool, y string) { used, why = u, y }},
		Replay: func(k Kind, l *Line) error { seqs[k] = append(seqs[k], l.Seq); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return used, why, seqs, w
}

func TestResumeReplaysOnlyTheTail(t *testing.T) {
	dir, head, pos, cp := resumeFixture(t, 50, 7)
	used, why, seqs, w := replayed(t, dir, head, pos, cp)
	if !used {
		t.Fatalf("not resumed: %s", why)
	}
	for _, k := range Kinds {
		if len(seqs[k]) != 7 || seqs[k][0] != 51 || seqs[k][6] != 57 {
			t.Fatalf("%s replayed %v", k.FileName(), seqs[k])
		}
		if s, _, _ := w.Head(k); s != 57 {
			t.Fatalf("%s head %d", k.FileName(), s)
		}
	}
	if len(w.Breaks()) > 0 {
		t.Fatal(w.Breaks())
	}
	// The writer continues the chain as after a full replay.
	a := appendT(t, w, Audit, gateAllowed(99))
	if a.Seq != 58 {
		t.Fatalf("next seq %d", a.Seq)
	}
}

// Every change before the position refuses the resume, and Open then
// replays and checks every line, as without a snapshot.
func TestResumeRefusesAChangedPrefix(t *testing.T) {
	cases := []struct {
		name, want string
		edit       func(b []byte, pos Position) []byte
	}{
		{"a byte changed in the first line", "prev is not the hash", func(b []byte, _ Position) []byte {
			return bytes.Replace(b, []byte("heartbeat"), []byte("heartbeaT"), 1)
		}},
		{"a byte changed in a line past the middle (another piece of the walk)", "prev is not the hash", func(b []byte, p Position) []byte {
			i := bytes.LastIndex(b[:p.Offset*3/4], []byte("heartbeat"))
			out := append([]byte(nil), b...)
			out[i+1] ^= 0x20
			return out
		}},
		{"a line removed", "", func(b []byte, _ Position) []byte {
			i := bytes.IndexByte(b, '\n')
			j := i + 1 + bytes.IndexByte(b[i+1:], '\n')
			return append(append([]byte(nil), b[:i+1]...), b[j+1:]...)
		}},
		{"the file cut before the position", "shorter than the snapshot's position", func(b []byte, p Position) []byte {
			return b[:p.Offset]
		}},
		{"the line at the position rewritten", "", func(b []byte, p Position) []byte {
			out := append([]byte(nil), b...)
			out[p.Offset+5] ^= 1
			return out
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, head, pos, cp := resumeFixture(t, 20, 3)
			path := filepath.Join(dir, LeasesFile)
			b, _ := os.ReadFile(path)
			os.WriteFile(path, c.edit(b, pos[Leases]), 0o600)
			used, why, seqs, w := replayed(t, dir, head, pos, cp)
			if used || !strings.Contains(why, c.want) {
				t.Fatalf("used %v, why %q", used, why)
			}
			if len(seqs[Audit]) != 23 {
				t.Fatalf("audit replayed %d lines, not all 23", len(seqs[Audit]))
			}
			if len(w.Breaks()) == 0 {
				t.Fatal("the full replay found nothing")
			}
		})
	}
}

// A position past what the kept head acknowledged (a snapshot newer than
// the journal, or one naming a checkpoint the head never saw) is refused.
func TestResumeRefusesAPositionPastTheHead(t *testing.T) {
	dir, head, pos, cp := resumeFixture(t, 10, 0)
	later := pos
	later[Audit].Seq++
	used, why, _, w := replayed(t, dir, head, later, cp)
	if used || !strings.Contains(why, "newer than the journal's acknowledged head") {
		t.Fatalf("used %v: %s", used, why)
	}
	w.Close()
	if used, why, _, _ := replayed(t, dir, head, pos, cp+5); used || !strings.Contains(why, "checkpoint") {
		t.Fatalf("used %v: %s", used, why)
	}
}

func TestChainTrailer(t *testing.T) {
	var prev [32]byte
	prev[0], prev[31] = 0xab, 0x01
	line, _ := appendLine(nil, []byte(`{"a":"x"}`), 42, &prev, hmacFor(testKey))
	seq, p, ok := chainTrailer(line[:len(line)-1])
	if !ok || seq != 42 || p != prev {
		t.Fatalf("%v %d %x", ok, seq, p)
	}
	for _, bad := range []string{"", "{}", `{"seq":1}`, strings.Repeat("x", 300)} {
		if _, _, ok := chainTrailer([]byte(bad)); ok {
			t.Errorf("%q read as a trailer", bad)
		}
	}
}

// FuzzChainTrailer: any bytes are read without a panic, and what is read
// as a trailer is one the writer could have written.
func FuzzChainTrailer(f *testing.F) {
	var prev [32]byte
	line, _ := appendLine(nil, []byte(`{"a":1}`), 7, &prev, hmacFor(testKey))
	f.Add(line[:len(line)-1])
	f.Add([]byte(`{"seq":,"prev":"` + strings.Repeat("0", 64) + `","mac":"` + strings.Repeat("0", 64) + `"}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		seq, p, ok := chainTrailer(raw)
		if !ok {
			return
		}
		tail := fmt.Sprintf(`"seq":%s,"prev":"%x"`, strconv.FormatUint(seq, 10), p[:])
		if !bytes.Contains(raw, []byte(tail)) {
			t.Fatalf("read seq %d prev %x from %q", seq, p, raw)
		}
	})
}

func hmacFor(key []byte) hash.Hash { return hmac.New(sha256.New, key) }

// Resumed, the kept head still sees acknowledged lines removed from the
// end of a file (after the snapshot's position, so the prefix walk has
// nothing to say): a break, exactly as after a full replay.
func TestResumeStillSeesRemovedAcknowledgedLines(t *testing.T) {
	dir, head, pos, cp := resumeFixture(t, 30, 5)
	path := filepath.Join(dir, AuditFile)
	b, _ := os.ReadFile(path)
	cut := b[:bytes.LastIndexByte(b[:len(b)-1], '\n')+1]
	os.WriteFile(path, cut, 0o600)
	used, why, _, w := replayed(t, dir, head, pos, cp)
	if !used {
		t.Fatalf("not resumed: %s", why)
	}
	br := w.Breaks()
	if len(br) != 1 || !strings.Contains(br[0].Reason, "removed at the end") {
		t.Fatalf("breaks %v", br)
	}
}
