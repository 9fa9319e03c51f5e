package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/registry"
	"github.com/leasedeck/leasedeck/registry/wire"
)

// Attacks on the journal by someone who can write the workspace's files
// (the agent runs as the same user), driven through the built binary. In
// each the registry must stop allowing, say why in its health, and
// `journal verify` must name what happened.

func (w *wsEnv) journalFile(name string) string {
	return filepath.Join(w.dir, ".leasedeck", "journal", name)
}

// allowedNow presents a harmless call to the gate over the socket and
// says whether it was allowed. The lease was issued by the operator (it is
// no client session's), so the call carries the operator token.
func (w *wsEnv) allowedNow(lease string) (bool, string) {
	w.t.Helper()
	c, err := wire.Dial(w.sock(), time.Second)
	if err != nil {
		w.t.Fatal(err)
	}
	defer c.Close()
	c.SetToken(w.token(w.t))
	a, err := c.Gate(context.Background(), wire.GateParams{LeaseID: lease, Tool: "Bash",
		Input: wire.DocOf(map[string]any{"command": "git status"}), Client: "e2e"})
	if err != nil {
		return false, err.Error()
	}
	return a.Verdict == wire.VerdictAllow, fmt.Sprintf("%+v", a)
}

func (w *wsEnv) health() string {
	w.t.Helper()
	r := w.run("", "status")
	if r.code != 0 {
		w.t.Fatalf("status: %+v", r)
	}
	return r.stdout
}

func TestAttackJournalDirectoryRemovedWhileServing(t *testing.T) {
	w := newWorkspace(t)
	w.serve()
	lease := w.issue(w.writeManifest("agent", 50, nil), "")
	if ok, r := w.allowedNow(lease); !ok {
		t.Fatalf("before the attack: %+v", r)
	}
	if err := os.RemoveAll(filepath.Join(w.dir, ".leasedeck", "journal")); err != nil {
		t.Fatal(err)
	}
	if h := w.health(); strings.Contains(h, `"health": "ok"`) || !strings.Contains(h, "was removed") {
		t.Fatalf("health after removing the journal directory:\n%s", h)
	}
	if ok, r := w.allowedNow(lease); ok {
		t.Fatalf("the registry still allows with its journal gone: %+v", r)
	}
}

// sed -i replaces the file (a new inode) while the registry serves.
func TestAttackSedReplacesTheJournal(t *testing.T) {
	sed, err := exec.LookPath("sed")
	if err != nil {
		t.Skip("no sed")
	}
	w := newWorkspace(t)
	w.serve()
	lease := w.issue(w.writeManifest("agent", 50, nil), "")
	if ok, r := w.allowedNow(lease); !ok {
		t.Fatalf("before the attack: %+v", r)
	}
	if out, err := exec.Command(sed, "-i", `s/"leasedeck.gate.allowed"/"leasedeck.gate.allowed"/`, w.journalFile("audit.jsonl")).CombinedOutput(); err != nil {
		t.Fatalf("sed: %v %s", err, out)
	}
	if ok, r := w.allowedNow(lease); ok {
		t.Fatalf("the registry still allows into a replaced file: %+v", r)
	}
	if h := w.health(); !strings.Contains(h, "replaced by another") {
		t.Fatalf("health:\n%s", h)
	}
	w.stop()
	// Same bytes, new inode: the content is intact, and verify says the
	// file was replaced without calling it damage.
	r := w.run("", "journal", "verify")
	if r.code != 0 || !strings.Contains(r.stdout, "the file was replaced") {
		t.Fatalf("verify after sed -i with no change: %+v", r)
	}
	// Now an edit that changes a line. (Whether verify can also say the
	// file was replaced depends on the file system not handing the new
	// file the inode number the kept head names, now free again.)
	exec.Command(sed, "-i", `s/"leasedeck.gate.allowed"/"leasedeck.gate.denied"/`, w.journalFile("audit.jsonl")).Run()
	r = w.run("", "journal", "verify")
	if r.code != 1 || !strings.Contains(r.stdout, "mac mismatch") {
		t.Fatalf("verify after sed -i: %+v", r)
	}
}

// A revoked line cut at a line boundary while the registry is stopped:
// the chain is intact, but the kept head is not reached. The restarted
// registry refuses to decide; verify names the cut.
func TestAttackRevokedLineCut(t *testing.T) {
	w := newWorkspace(t)
	w.serve()
	lease := w.issue(w.writeManifest("agent", 50, nil), "")
	if r := w.run("", "revoke", lease, "--reason", "caught"); r.code != 0 {
		t.Fatalf("revoke: %+v", r)
	}
	w.stop()
	path := w.journalFile("leases.jsonl")
	data, _ := os.ReadFile(path)
	lines := bytes.SplitAfter(data, []byte("\n"))
	last := lines[len(lines)-2]
	if !bytes.Contains(last, []byte(`"event":"revoked"`)) {
		t.Fatalf("the last lease line is not the revocation: %s", last)
	}
	os.WriteFile(path, data[:len(data)-len(last)], 0o600)

	w.serve()
	if ok, r := w.allowedNow(lease); ok {
		t.Fatalf("the cut revocation let the lease allow again: %+v", r)
	}
	if h := w.health(); !strings.Contains(h, "removed at the end") {
		t.Fatalf("health:\n%s", h)
	}
	w.stop()
	r := w.run("", "journal", "verify")
	if r.code != 1 || !strings.Contains(r.stdout, "1 line(s) removed at the end") {
		t.Fatalf("verify: %+v", r)
	}
}

// A third party holding only the public key proves a journal, and
// refuses it once a line changes.
func TestJournalPubkeyProof(t *testing.T) {
	w := newWorkspace(t)
	if r := w.run("", "journal", "pubkey"); r.code != 1 || !strings.Contains(r.stderr, "no checkpoint key yet") {
		t.Fatalf("pubkey before the registry ran: %+v", r)
	}
	w.serve()
	lease := w.issue(w.writeManifest("agent", 50, nil), "")
	w.allowedNow(lease)
	w.stop()
	pk := w.run("", "journal", "pubkey")
	if pk.code != 0 || !strings.HasPrefix(pk.stdout, "ed25519:") {
		t.Fatalf("pubkey: %+v", pk)
	}
	key := strings.TrimSpace(pk.stdout)
	// Copy the journal where no state directory knows it.
	dst := filepath.Join(t.TempDir(), "journal")
	os.MkdirAll(dst, 0o700)
	for _, f := range []string{"leases.jsonl", "audit.jsonl"} {
		b, _ := os.ReadFile(w.journalFile(f))
		os.WriteFile(filepath.Join(dst, f), b, 0o600)
	}
	r := w.run("", "journal", "verify", "--pubkey", key, dst)
	if r.code != 0 || !strings.Contains(r.stdout, "verified under the public key") || !strings.Contains(r.stdout, "0 line(s) after them unsigned") {
		t.Fatalf("third-party verify: %+v", r)
	}
	if r := w.run("", "journal", "verify", "--pubkey", "ed25519:zz", dst); r.code != 2 {
		t.Fatalf("bad key: %+v", r)
	}
	b, _ := os.ReadFile(filepath.Join(dst, "leases.jsonl"))
	os.WriteFile(filepath.Join(dst, "leases.jsonl"), bytes.Replace(b, []byte("end to end"), []byte("end to End"), 1), 0o600)
	if r := w.run("", "journal", "verify", "--pubkey", key, dst); r.code != 1 || !strings.Contains(r.stdout, "checkpoint") {
		t.Fatalf("third-party verify of an edited journal: %+v", r)
	}
}

// An agent that has read the HMAC key (it runs as the same user) rewrites
// the registry's last gate line with a second event_type, re-MAC'd and
// re-chained: a reader that took the last of two members would see a
// denial where the registry allowed, or the reverse. The journal's direct
// decoder declines a duplicate like anything unusual, and the generic
// parser refuses it: verify names the line, and the registry refuses to
// serve on it.
func TestAttackDuplicateMemberWithTheKey(t *testing.T) {
	w := newWorkspace(t)
	w.serve()
	lease := w.issue(w.writeManifest("agent", 50, nil), "")
	if ok, r := w.allowedNow(lease); !ok {
		t.Fatalf("before the attack: %+v", r)
	}
	w.stop()
	keyText, err := os.ReadFile(filepath.Join(w.stateDir(), "key"))
	if err != nil {
		t.Fatal(err)
	}
	key, err := registry.ParseKeyHex(string(keyText))
	if err != nil {
		t.Fatal(err)
	}
	path := w.journalFile("audit.jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	at := -1
	for i, l := range lines {
		if bytes.Contains(l, []byte(`"event_type":"leasedeck.gate.allowed"`)) {
			at = i
		}
	}
	if at < 0 {
		t.Fatalf("no gate line in the audit journal:\n%s", data)
	}
	lines[at] = bytes.Replace(lines[at], []byte(`{`), []byte(`{"event_type":"leasedeck.gate.denied",`), 1)
	var prev [32]byte
	if at > 0 {
		prev = sha256.Sum256(lines[at-1])
	}
	mac := hmac.New(sha256.New, key)
	for i := at; i < len(lines); i++ {
		l := lines[i]
		body := l[:bytes.Index(l, []byte(`,"prev":"`))] // the record and its seq
		signed := fmt.Appendf(nil, `%s,"prev":"%x"`, body, prev)
		mac.Reset()
		mac.Write(signed)
		lines[i] = fmt.Appendf(nil, `%s,"mac":"%x"}`, signed, mac.Sum(nil))
		prev = sha256.Sum256(lines[i])
	}
	if err := os.WriteFile(path, append(bytes.Join(lines, []byte("\n")), '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	r := w.run("", "journal", "verify")
	if r.code != 1 || !strings.Contains(r.stdout, fmt.Sprintf("audit.jsonl line %d: not JSON: ", at+1)) ||
		!strings.Contains(r.stdout, `duplicate member name "event_type"`) {
		t.Fatalf("verify of the rewritten line: %+v", r)
	}
	w.serve()
	if ok, r := w.allowedNow(lease); ok {
		t.Fatalf("the registry allows on a journal with a rewritten line: %+v", r)
	}
}
