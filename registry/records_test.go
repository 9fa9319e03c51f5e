package registry

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/leasedeck/leasedeck/journal"
	"github.com/leasedeck/leasedeck/registry/record"
	"github.com/leasedeck/leasedeck/registry/wire"
)

// serve puts the fixture's service on a real Unix socket.
func (f *fixture) serve() string {
	f.t.Helper()
	sock := filepath.Join(f.t.TempDir(), "r.sock")
	l, err := Listen(sock)
	if err != nil {
		f.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := NewHandler(f.svc, "tok")
	done := make(chan struct{})
	go func() { h.Serve(ctx, l); close(done) }()
	f.t.Cleanup(func() { cancel(); <-done })
	return sock
}

// rawCall sends one line over a fresh connection, as any local process
// can, and returns the answer line parsed (nil when the registry closed
// the connection without answering).
func rawCall(t testing.TB, sock, line string) map[string]any {
	t.Helper()
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write([]byte(line + "\n")); err != nil {
		t.Fatal(err)
	}
	ans, err := bufio.NewReader(c).ReadBytes('\n')
	if err != nil {
		return nil
	}
	var out map[string]any
	if err := json.Unmarshal(ans, &out); err != nil {
		t.Fatalf("answer is not JSON: %v: %s", err, ans)
	}
	return out
}

func errCode(ans map[string]any) string {
	e, _ := ans["error"].(map[string]any)
	s, _ := e["code"].(string)
	return s
}

func (f *fixture) verifyClean() {
	f.t.Helper()
	r := VerifyJournal(filepath.Join(f.dir, ".leasedeck", "journal"), &f.key, journal.VerifyOptions{})
	if !r.OK() {
		f.t.Fatalf("journal does not verify: %v", r.Breaks)
	}
}

// long is n code points, most of them multi-byte, so a cap counted in
// bytes instead of code points would show.
func long(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteRune([]rune("aé😀")[i%3])
	}
	return b.String()
}

// A revocation or a stop says why in up to 1000 characters, the service's
// own limit once; the record's reason is capped at 500. A long reason is
// clipped, never a schema failure that leaves the lease open.
func TestLongReasonsRevokeAndStop(t *testing.T) {
	for _, n := range []int{499, 500, 501, 1000, 1001, 5000} {
		f := newFixture(t)
		parent := f.issue(agentManifest("p", 10, nil), "")
		child := f.issue(agentManifest("c", 5, nil), parent)
		res, err := f.svc.Revoke(parent, "issuer", long(n))
		if err != nil || len(res.Revoked) != 2 {
			t.Fatalf("revoke with a %d-character reason: %v %+v", n, err, res)
		}
		for _, id := range []string{parent, child} {
			v, _ := f.svc.View(id)
			if v.Status != Revoked || utf8.RuneCountInString(v.Reason) > record.Cap(record.LeaseReason) {
				t.Fatalf("%d: %s is %s with a %d-character reason", n, id, v.Status, utf8.RuneCountInString(v.Reason))
			}
		}
		stopped := f.issue(agentManifest("s", 5, nil), "")
		if err := f.svc.Finish(stopped, Stopped, long(n)); err != nil {
			t.Fatalf("stop with a %d-character reason: %v", n, err)
		}
		f.verifyClean()
		f.restart()
		if v, _ := f.svc.View(stopped); v.Status != Stopped {
			t.Fatalf("after restart the stopped lease is %s", v.Status)
		}
	}
}

// A manifest invalid in many places is refused, and the refusal is
// recorded: the client is not told the journal is unavailable.
func TestRefusalWithLongReasonIsRecorded(t *testing.T) {
	f := newFixture(t)
	bad := agentManifest("x", 5, func(m map[string]any) {
		m["allow"] = map[string]any{"tools": []any{"Bash"}, "read_paths": []any{}, "write_paths": []any{}, "commands": []any{},
			"hosts": []any{"HTTP://" + long(80), "https://" + long(90), "ftp://" + long(100), "x y", "A"}}
	})
	res, err := f.svc.Issue(bad, "")
	if err != nil {
		t.Fatalf("a refusal is a result, not an error: %v", err)
	}
	if res.Status != Refused || len(res.Refusals) != 1 || res.Refusals[0] != "runtime_error:invalid_manifest" {
		t.Fatalf("refusal %+v", res)
	}
	if utf8.RuneCountInString(res.Reason) <= record.Cap(record.LeaseReason) {
		t.Fatalf("the test needs a reason over the cap, got %d characters: %s", utf8.RuneCountInString(res.Reason), res.Reason)
	}
	v, ok := f.svc.View(res.LeaseID)
	if !ok || v.Status != Refused {
		t.Fatalf("the refusal was not recorded: %+v", v)
	}
	f.verifyClean()

	sock := f.serve()
	b, _ := json.Marshal(map[string]any{"op": "issue", "manifest": bad, "token": "tok"}) // a root lease: the operator
	ans := rawCall(t, sock, string(b))
	if ans["ok"] != true {
		t.Fatalf("issue over the socket: %v", ans)
	}
	if r, _ := ans["result"].(map[string]any); r["status"] != "refused" || strings.Contains(ans["result"].(map[string]any)["reason"].(string), "journal") {
		t.Fatalf("socket answer %v", ans)
	}
}

// Usage figures a budget cannot hold are bad requests at the socket: a
// cost of 1e308 twice would make spend infinite (and every later listing
// unencodable); tokens at or above 2^63 would wrap negative.
func TestBadUsageFiguresAreBadRequests(t *testing.T) {
	f := newFixture(t)
	id := f.issue(agentManifest("u", 10, nil), "")
	sock := f.serve()
	for _, fig := range []string{
		`"cost_usd":1e308`, `"cost_usd":-1`, `"cost_usd":9007199254740992`,
		`"tokens":9223372036854775808`, `"tokens":1e19`, `"tokens":-3`, `"tokens":1.5`, `"tokens":9007199254740992`,
	} {
		ans := rawCall(t, sock, `{"op":"usage","token":"tok","lease_id":"`+id+`",`+fig+`,"source":"provider_reported"}`)
		if ans == nil || errCode(ans) != string(wire.BadRequest) {
			t.Errorf("usage with %s: %v, want bad_request", fig, ans)
		}
	}
	// A figure in range is charged.
	if ans := rawCall(t, sock, `{"op":"usage","token":"tok","lease_id":"`+id+`","tokens":9007199254740991,"cost_usd":1.25}`); ans["ok"] != true {
		t.Fatalf("usage in range: %v", ans)
	}
	for _, op := range []string{`{"op":"leases"}`, `{"op":"lease","lease_id":"` + id + `"}`} {
		if ans := rawCall(t, sock, op); ans == nil || ans["ok"] != true {
			t.Fatalf("%s after usage: %v", op, ans)
		}
	}
	v, _ := f.svc.View(id)
	if v.Spent["tokens"] != 9007199254740991 || v.Spent["cost_usd"] != 1.25 {
		t.Fatalf("spent %v", v.Spent)
	}
	f.verifyClean()
}

// A journal that already holds figures the socket now refuses (written
// by an older registry) still folds and answers: sums saturate, negative
// figures charge nothing, nothing becomes Inf, NaN or negative.
func TestFoldToleratesBadFiguresInTheJournal(t *testing.T) {
	f := newFixture(t)
	id := f.issue(agentManifest("u", 10, func(m map[string]any) { m["budget"].(map[string]any)["cost_usd"] = int64(5) }), "")
	f.svc.Close()
	w, err := journal.Open(filepath.Join(f.dir, ".leasedeck", "journal"), f.key.Bytes(), journal.Options{LockPath: filepath.Join(f.dir, ".leasedeck", "registry.lock")})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []map[string]any{
		{"lease_id": id, "cost_usd": 1e308}, {"lease_id": id, "cost_usd": 1e308},
		{"lease_id": id, "tokens": 1.8446744073709552e19}, {"lease_id": id, "tokens": 9.223372036854776e18},
		{"lease_id": id, "tokens": int64(-5), "steps": int64(-7)},
	} {
		a := record.NewAudit(EventBudgetSpent, f.clk.Now(), "", record.Details{})
		v := a.Value()
		v["details"] = d
		if _, err := w.Append(journal.Audit, v); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	f.open()
	if err := f.svc.Health(); err != nil {
		t.Fatalf("the journal must still fold: %v", err)
	}
	v, _ := f.svc.View(id)
	for k, x := range v.Spent {
		if math.IsInf(x, 0) || math.IsNaN(x) || x < 0 {
			t.Fatalf("spent %s = %v", k, x)
		}
	}
	if v.Spent["cost_usd"] != math.MaxFloat64 || v.Spent["tokens"] < 1.8e19 || v.Spent["steps"] != 0 {
		t.Fatalf("spent %v: want cost saturated, tokens summed, steps not refunded", v.Spent)
	}
	sock := f.serve()
	for _, op := range []string{`{"op":"leases"}`, `{"op":"lease","lease_id":"` + id + `"}`} {
		if ans := rawCall(t, sock, op); ans == nil || ans["ok"] != true {
			t.Fatalf("%s on a journal with bad figures: %v", op, ans)
		}
	}
	// The budget is spent, so the gate blocks rather than allows.
	if a := f.gate(id, "Read", map[string]any{"file_path": "src/x"}); a.Verdict == VerdictAllow {
		t.Fatalf("gate after a saturated spend: %+v", a)
	}
}

// A gate answer names the audit line that records it (its seq and event
// id), so a client can point to the record of what it was told.
func TestGateAnswerNamesItsAuditLine(t *testing.T) {
	f := newFixture(t)
	id := f.issue(agentManifest("g", 10, nil), "")
	sock := f.serve()
	for _, c := range []struct{ input, decision string }{
		{`{"file_path":"src/a.go","content":"x"}`, "allow"},
		{`{"file_path":"/etc/passwd","content":"x"}`, "deny"},
	} {
		ans := rawCall(t, sock, `{"op":"gate","token":"tok","lease_id":"`+id+`","tool":"Write","input":`+c.input+`}`)
		r, _ := ans["result"].(map[string]any)
		if ans["ok"] != true || r["decision"] != c.decision {
			t.Fatalf("gate: %v", ans)
		}
		seq, _ := r["seq"].(float64)
		eid, _ := r["event_id"].(string)
		if seq == 0 || eid == "" {
			t.Fatalf("the answer does not name its audit line: %v", r)
		}
		lines, _, err := journal.ReadFrom(filepath.Join(f.dir, ".leasedeck", "journal", journal.AuditFile), 0)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, l := range lines {
			if l.Seq == uint64(seq) {
				a := record.ParseAudit(l.Value)
				found = a.EventID == eid && a.Details.Decision == c.decision && a.Details.LeaseID == id
			}
		}
		if !found {
			t.Fatalf("audit seq %v is not the %s line %s", seq, c.decision, eid)
		}
	}
}
