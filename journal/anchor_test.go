package journal

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leasedeck/leasedeck/schemas"
)

// anchored is a journal with a kept head and a signing key in a state
// directory of its own, as the registry runs it.
type anchored struct {
	dir, state string
	opts       Options
}

func newAnchored(t *testing.T) *anchored {
	t.Helper()
	base := t.TempDir()
	a := &anchored{dir: filepath.Join(base, "journal"), state: filepath.Join(base, "state")}
	a.opts = Options{HeadPath: filepath.Join(a.state, "journal.head"), SigningKeyPath: filepath.Join(a.state, "checkpoint.key"), CheckpointEvery: 4}
	return a
}

func (a *anchored) open(t *testing.T) *Writer {
	t.Helper()
	w, err := Open(a.dir, testKey, a.opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return w
}

func (a *anchored) fill(t *testing.T, from, n int) {
	t.Helper()
	w := a.open(t)
	for i := from; i < from+n; i++ {
		appendT(t, w, Leases, heartbeat(i))
		appendT(t, w, Audit, gateAllowed(i))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func (a *anchored) pub(t *testing.T) ed25519.PublicKey {
	t.Helper()
	p, err := PublicKey(a.opts.SigningKeyPath)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (a *anchored) verify(t *testing.T, key []byte, pub ed25519.PublicKey) Report {
	t.Helper()
	return VerifyWith(a.dir, key, VerifyOptions{HeadPath: a.opts.HeadPath, PublicKey: pub})
}

func wantBreak(t *testing.T, r Report, parts ...string) {
	t.Helper()
	got := breaksString(r.Breaks)
	for _, p := range parts {
		if !strings.Contains(got, p) {
			t.Errorf("breaks lack %q:\n%s", p, got)
		}
	}
}

func TestAnchoredCleanAndProven(t *testing.T) {
	a := newAnchored(t)
	a.fill(t, 1, 10)
	r := a.verify(t, testKey, a.pub(t))
	if !r.OK() || !r.HeadChecked {
		t.Fatalf("clean journal: head %v breaks\n%s", r.HeadChecked, breaksString(r.Breaks))
	}
	cp := r.Checkpoints
	if cp.Count < 5 || cp.Verified != cp.Count || cp.Uncovered != 0 {
		t.Fatalf("checkpoints: %+v", cp)
	}
	// A third party: no HMAC key, only the public key.
	r = VerifyWith(a.dir, nil, VerifyOptions{PublicKey: a.pub(t), RequireProof: true})
	if !r.OK() || r.Checkpoints.Uncovered != 0 {
		t.Fatalf("public-key proof: %+v\n%s", r.Checkpoints, breaksString(r.Breaks))
	}
	// Reopening continues: the head matches, nothing is moved.
	w := a.open(t)
	if len(w.Breaks()) != 0 || len(w.Recoveries()) != 0 {
		t.Fatalf("reopen: breaks %v recoveries %v", w.Breaks(), w.Recoveries())
	}
	w.Close()
}

// A line cut at a line boundary at the end: the chain alone is intact,
// the kept head is not reached.
func TestAnchoredLineRemovedAtTheEnd(t *testing.T) {
	a := newAnchored(t)
	a.fill(t, 1, 3)
	path := journalPath(a.dir, Leases)
	lines := fileLines(t, path)
	writeLines(t, path, lines[:len(lines)-2]) // the last line and the empty tail
	// Without the head, the chain is intact; the last checkpoint (written
	// at Close) still shows it.
	wantBreak(t, Verify(a.dir, testKey), "checkpoint signs leases seq 3, but leases.jsonl counts only to seq 2")
	wantBreak(t, a.verify(t, testKey, nil), "leases.jsonl", "1 line(s) removed at the end", "acknowledged up to seq 3")
	w := a.open(t)
	defer w.Close()
	if _, err := w.Append(Leases, heartbeat(9)); err == nil || !strings.Contains(err.Error(), "removed at the end") {
		t.Fatalf("append after a cut: %v", err)
	}
}

func TestAnchoredLineRemovedAtTheStart(t *testing.T) {
	a := newAnchored(t)
	a.fill(t, 1, 3)
	path := journalPath(a.dir, Leases)
	lines := fileLines(t, path)
	writeLines(t, path, lines[1:])
	wantBreak(t, a.verify(t, testKey, nil), "1 line(s) removed at the start")
}

// sed -i: the file is replaced by an edited copy (a new inode).
func TestAnchoredFileReplaced(t *testing.T) {
	a := newAnchored(t)
	a.fill(t, 1, 3)
	path := journalPath(a.dir, Audit)
	data, _ := os.ReadFile(path)
	os.WriteFile(path+".sed", bytes.Replace(data, []byte("Bash allowed"), []byte("Bash allowes"), 1), 0o600)
	os.Rename(path+".sed", path) // as sed -i does
	wantBreak(t, a.verify(t, testKey, nil), "the file was replaced", "mac mismatch")
}

// The whole directory swapped for an older copy of itself.
func TestAnchoredDirectoryReplaced(t *testing.T) {
	a := newAnchored(t)
	a.fill(t, 1, 2)
	old := a.dir + ".old"
	copyDir(t, a.dir, old)
	a.fill(t, 3, 2)
	os.RemoveAll(a.dir)
	os.Rename(old, a.dir)
	wantBreak(t, a.verify(t, testKey, nil), "the journal directory was replaced", "removed at the end")
}

// Someone with the HMAC key rewrites a lease line and re-chains every
// line after it, macs included. The checkpoints still sign the old
// heads; rewriting them too (and re-chaining the audit file) passes every
// HMAC check, but not the signatures.
func TestAnchoredRewriteWithStolenKey(t *testing.T) {
	a := newAnchored(t)
	a.fill(t, 1, 6)
	leases, audit := journalPath(a.dir, Leases), journalPath(a.dir, Audit)
	recs := make([]map[string]any, 6)
	for i := range recs {
		recs[i] = heartbeat(i + 1)
	}
	recs[1]["lease_id"] = testUUID(999)
	forged := buildJournal(t, len(recs), func(i int) map[string]any { return recs[i-1] })
	os.WriteFile(leases, forged, 0o600)
	wantBreak(t, Verify(a.dir, testKey), "is not the line this checkpoint signed", "rewritten at or before seq")

	// Now the audit file too: each checkpoint's heads replaced by the
	// forged ones, the audit chain rebuilt under the stolen key.
	var forgedHeads []string
	for _, l := range bytes.SplitAfter(forged, []byte("\n")) {
		if len(l) > 1 {
			forgedHeads = append(forgedHeads, schemasSHA(bytes.TrimSuffix(l, []byte("\n"))))
		}
	}
	lines, _, err := ReadFrom(audit, 0)
	if err != nil {
		t.Fatal(err)
	}
	var auditRecs []map[string]any
	for _, l := range lines {
		v := l.Value
		delete(v, "seq")
		delete(v, "prev")
		delete(v, "mac")
		auditRecs = append(auditRecs, v)
	}
	prevHash := ZeroHash
	var out []byte
	for i, v := range auditRecs {
		if v["event_type"] == EventCheckpoint {
			d := v["details"].(map[string]any)
			n, _ := d["leases_seq"].(interface{ String() string })
			var seq int
			fmtSscan(n.String(), &seq)
			d["leases_head"] = forgedHeads[seq-1]
			d["audit_head"] = prevHash
		}
		one := buildJournal(t, 1, func(int) map[string]any { return v })
		out = append(out, rechain(t, one, uint64(i+1), prevHash)...)
		prevHash = schemasSHA(bytes.TrimSuffix(out[bytes.LastIndexByte(out[:len(out)-1], '\n')+1:], []byte("\n")))
	}
	os.WriteFile(audit, out, 0o600)
	if r := Verify(a.dir, testKey); !r.OK() {
		t.Fatalf("the full forgery should pass every HMAC check: %s", breaksString(r.Breaks))
	}
	r := VerifyWith(a.dir, nil, VerifyOptions{PublicKey: a.pub(t), RequireProof: true})
	wantBreak(t, r, "checkpoint signature does not verify", "no checkpoint verifies under the given public key")
	// And a key from elsewhere proves nothing.
	other, _, _ := ed25519.GenerateKey(nil)
	if r := VerifyWith(a.dir, nil, VerifyOptions{PublicKey: other, RequireProof: true}); r.OK() {
		t.Fatal("another key verified the checkpoints")
	}
}

// An acknowledged last line damaged in place is damage, not a torn write:
// it is reported and never moved aside.
func TestAnchoredDamagedLastLineIsNotTorn(t *testing.T) {
	a := newAnchored(t)
	a.fill(t, 1, 3)
	path := journalPath(a.dir, Leases)
	data, _ := os.ReadFile(path)
	data[len(data)-2] = ' ' // the last line loses its closing brace: not JSON
	os.WriteFile(path, data, 0o600)
	wantBreak(t, a.verify(t, testKey, nil), "the last line is damaged, not torn")
	w := a.open(t)
	defer w.Close()
	if len(w.Recoveries()) != 0 {
		t.Fatalf("damage moved aside as torn: %+v", w.Recoveries())
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, data) {
		t.Fatal("the damaged file was changed")
	}
	if w.Broken() == nil {
		t.Fatal("no break")
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	os.MkdirAll(to, 0o700)
	entries, _ := os.ReadDir(from)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(to, e.Name()), b, 0o600)
	}
}

func schemasSHA(b []byte) string { l := Line{Raw: b}; return l.Hash() }

func fmtSscan(s string, n *int) { fmt.Sscan(s, n) }

// rechain rewrites a one-line journal (seq 1, prev zeros) as the line at
// seq with prev, under the test key.
func rechain(t *testing.T, one []byte, seq uint64, prev string) []byte {
	t.Helper()
	v, err := schemas.ParseJSON(bytes.TrimSuffix(one, []byte("\n")))
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	delete(m, "seq")
	delete(m, "prev")
	delete(m, "mac")
	body, err := schemas.Canonical(m)
	if err != nil {
		t.Fatal(err)
	}
	var p [32]byte
	hex.Decode(p[:], []byte(prev))
	an := newAnalyser(analyseOpts{key: testKey})
	line, _ := appendLine(nil, body, seq, &p, an.mac)
	return line
}

// A broken audit file takes no line, not even a checkpoint or a record
// of writing resumed, while the lease file goes on.
func TestNoCheckpointIntoABrokenAuditFile(t *testing.T) {
	a := newAnchored(t)
	a.fill(t, 1, 3)
	path := journalPath(a.dir, Audit)
	data, _ := os.ReadFile(path)
	data = bytes.Replace(data, []byte("Bash allowed"), []byte("Bash allowes"), 1)
	os.WriteFile(path, data, 0o600)
	w := a.open(t)
	if w.Broken() == nil {
		t.Fatal("no break")
	}
	for i := 10; i < 20; i++ {
		appendT(t, w, Leases, heartbeat(i))
	}
	w.Close()
	if after, _ := os.ReadFile(path); !bytes.Equal(after, data) {
		t.Fatal("lines were appended to a broken audit file")
	}
}

// Verify runs while the registry writes: lines, checkpoints and the head
// move under it, and it must never call that damage.
func TestVerifyWhileWriting(t *testing.T) {
	a := newAnchored(t)
	a.opts.CheckpointEvery = 3
	w := a.open(t)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 1; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			w.Append(Leases, heartbeat(i))
			w.Append(Audit, gateAllowed(i))
		}
	}()
	pub := a.pub(t)
	for i := 0; i < 30; i++ {
		if r := a.verify(t, testKey, pub); !r.OK() {
			close(stop)
			<-done
			t.Fatalf("verify %d while writing: %s", i, breaksString(r.Breaks))
		}
	}
	close(stop)
	<-done
	w.Close()
	if r := a.verify(t, testKey, pub); !r.OK() || r.Checkpoints.Uncovered != 0 {
		t.Fatalf("after closing: %+v %s", r.Checkpoints, breaksString(r.Breaks))
	}
}

// Lines a caller writes itself (nothing else being written) still make
// the commit goroutine sign a checkpoint every CheckpointEvery lines, not
// only at Close.
func TestCheckpointsWhileWritingInline(t *testing.T) {
	a := newAnchored(t)
	w := a.open(t)
	for i := 1; i <= 20; i++ {
		appendT(t, w, Audit, gateAllowed(i))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r := a.verify(t, testKey, a.pub(t))
	// Every 4 lines (each written by the commit goroutine before the next
	// line), and one at Close.
	if !r.OK() || r.Checkpoints.Uncovered != 0 || r.Checkpoints.Verified < 5 || r.Checkpoints.Verified != r.Checkpoints.Count {
		t.Fatalf("checkpoints %+v %s", r.Checkpoints, breaksString(r.Breaks))
	}
}
