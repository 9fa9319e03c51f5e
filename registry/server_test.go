package registry

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/journal"
	"github.com/leasedeck/leasedeck/registry/wire"
)

const testToken = "operator-token-for-tests"

// served serves f's service on a real Unix socket and returns its path.
func served(t *testing.T, f *fixture) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "r.sock")
	l, err := Listen(sock)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		NewHandler(f.svc, testToken).Serve(ctx, l)
		close(done)
	}()
	t.Cleanup(func() { cancel(); <-done })
	return sock
}

func dialTest(t *testing.T, sock, token string) *wire.Client {
	t.Helper()
	c, err := wire.Dial(sock, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c.SetToken(token)
	t.Cleanup(func() { c.Close() })
	return c
}

// rawConn is a client that writes bytes, as a hostile or buggy process
// would, and reads the answers.
type rawConn struct {
	t *testing.T
	c net.Conn
	r *bufio.Reader
}

func dialRaw(t *testing.T, sock string) *rawConn {
	t.Helper()
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	return &rawConn{t: t, c: c, r: bufio.NewReader(c)}
}

type rawAnswer struct {
	ID     json.RawMessage `json:"id"`
	OK     bool            `json:"ok"`
	Result json.RawMessage `json:"result"`
	Error  *wire.Error     `json:"error"`
}

func (r *rawConn) send(line string) rawAnswer {
	r.t.Helper()
	if _, err := r.c.Write([]byte(line + "\n")); err != nil {
		r.t.Fatal(err)
	}
	b, err := r.r.ReadBytes('\n')
	if err != nil {
		r.t.Fatalf("no answer to %.80s: %v", line, err)
	}
	var a rawAnswer
	if err := json.Unmarshal(b, &a); err != nil {
		r.t.Fatalf("answer %q: %v", b, err)
	}
	return a
}

func TestServerBadMessages(t *testing.T) {
	f := newFixture(t)
	r := dialRaw(t, served(t, f))
	cases := []struct{ line, code, says string }{
		{`{"op":"frobnicate","id":7}`, "bad_request", `unknown op "frobnicate" (known: admit, approvals, check`},
		{`{"id":1}`, "bad_request", "no op"},
		{`not json`, "bad_request", "malformed"},
		{`[1,2]`, "bad_request", "JSON object"},
		{`{"op":"status","op":"revoke"}`, "bad_request", "duplicate"},
		{`{"op":"gate","lease_id":7,"tool":"Bash"}`, "bad_request", "/lease_id must be a string"},
		{`{"op":"gate","lease_id":"x","tool":"Bash","max_wait_ms":"soon"}`, "bad_request", "/max_wait_ms must be a number"},
		{`{"op":"gate","lease_id":"x","tool":"Bash","input":[1]}`, "bad_request", "/input must be a JSON object"},
		{`{"op":"gate","tool":"Bash"}`, "bad_request", "needs lease_id"},
		{`{"op":"issue","token":"` + testToken + `"}`, "bad_request", "needs a manifest"},
		{`{"op":"issue","manifest":{}}`, "unauthorized", "root lease"},
		{`{"op":"finish","lease_id":"x","status":"paused"}`, "bad_request", `"completed" or "stopped"`},
		{`{"op":"decide","approval_id":"x","outcome":"approved"}`, "unauthorized", "operator token"},
		{`{"op":"revoke","lease_id":"x","reason":"r","token":"wrong"}`, "unauthorized", "operator token"},
		{`{"op":"lease","lease_id":"nope"}`, "unknown_lease", "nope"},
	}
	for _, c := range cases {
		a := r.send(c.line)
		if a.OK || a.Error == nil || string(a.Error.Code) != c.code || !strings.Contains(a.Error.Message, c.says) {
			t.Errorf("%s: %+v %v", c.line, a, a.Error)
		}
	}
	// The connection survived every one of them.
	if a := r.send(`{"op":"status","id":"s"}`); !a.OK || string(a.ID) != `"s"` {
		t.Fatalf("status after bad messages: %+v", a)
	}
}

// Members an op does not know are ignored: a newer client talks to this
// registry.
func TestServerIgnoresUnknownMembers(t *testing.T) {
	f := newFixture(t)
	id := f.issue(agentManifest("a", 10, nil), "")
	r := dialRaw(t, served(t, f))
	a := r.send(`{"op":"check","token":"` + testToken + `","lease_id":"` + id + `","tool":"Bash","input":{"command":"ls"},"from_the_future":{"x":[1,2]},"id":3}`)
	var ans wire.GateAnswer
	if !a.OK || json.Unmarshal(a.Result, &ans) != nil || ans.Verdict != wire.VerdictAllow {
		t.Fatalf("check with an unknown member: %+v %s", a, a.Result)
	}
}

// A panic in a handler is answered as internal and the connection keeps
// working.
func TestServerPanicIsInternal(t *testing.T) {
	const boom wire.Op = "test_panic"
	spec := op(boom, wire.ReadOnly, "panics", nil, func(*Handler, context.Context, *call, *wire.Empty) (wire.Empty, *wire.Error) {
		var m map[string]int
		m["x"] = 1 // a nil-map write: a real runtime panic
		return wire.Empty{}, nil
	})
	opIndex[boom] = &spec
	t.Cleanup(func() { delete(opIndex, boom) })
	f := newFixture(t)
	r := dialRaw(t, served(t, f))
	a := r.send(`{"op":"test_panic","id":9}`)
	if a.OK || a.Error == nil || a.Error.Code != wire.Internal || string(a.ID) != "9" {
		t.Fatalf("panic: %+v", a)
	}
	if a := r.send(`{"op":"status"}`); !a.OK {
		t.Fatalf("status after a panic: %+v", a)
	}
}

// What the server does not classify is internal; journal_unavailable is
// only for the journal's own failures.
func TestCodeOf(t *testing.T) {
	cases := []struct {
		err  error
		want wire.Code
	}{
		{errors.New("something nobody expected"), wire.Internal},
		{&journal.InvalidRecordError{Kind: journal.Leases}, wire.Internal},
		{fmt.Errorf("issue: %w", &journal.WriteError{File: "leases.jsonl", Op: "fsync", Err: errors.New("EIO")}), wire.JournalUnavailable},
		{fmt.Errorf("x: %w", &journal.BreakError{}), wire.JournalUnavailable},
		{fmt.Errorf("x: %w", journal.ErrStopped), wire.JournalUnavailable},
		{journal.ErrClosed, wire.JournalUnavailable},
		{fmt.Errorf("%w: line 3", ErrJournalUnfolded), wire.JournalUnavailable},
		{ErrUnknownParent, wire.UnknownParent},
		{fmt.Errorf("%w: x", ErrUnknownLease), wire.UnknownLease},
		{fmt.Errorf("%w: x", ErrNotAllowed), wire.NotAllowed},
		{fmt.Errorf("%w: x", ErrClosed), wire.Closed},
		{fmt.Errorf("%w: x", ErrNeedsManifest), wire.NeedsManifest},
	}
	for _, c := range cases {
		if got := codeOf(c.err); got != c.want {
			t.Errorf("%v: %s, want %s", c.err, got, c.want)
		}
	}
}

// A manifest invalid in many places is refused with its reasons, or, if
// a record cannot be written for any other reason than the journal, the
// answer says internal: never journal_unavailable while the journal is
// fine.
func TestManyInvalidPlacesNotJournalUnavailable(t *testing.T) {
	f := newFixture(t)
	c := dialTest(t, served(t, f), "")
	bad := map[string]any{"schema_version": "1.2"}
	for i := range 60 {
		bad[fmt.Sprintf("member_%02d_with_a_long_name_to_make_the_reason_long", i)] = i
	}
	bad["agent"] = map[string]any{"name": 5, "kind": "nope"}
	bad["allow"] = map[string]any{"tools": "Bash", "read_paths": 1, "write_paths": true, "hosts": 2, "commands": 3}
	res, err := c.Issue(context.Background(), wire.IssueParams{Manifest: wire.DocOf(bad)})
	if code := wire.CodeOf(err); code == wire.JournalUnavailable {
		t.Fatalf("a healthy journal reported unavailable: %v", err)
	}
	if err == nil && res.Status != "refused" {
		t.Fatalf("invalid manifest: %+v", res)
	}
	if f.svc.Health() != nil {
		t.Fatalf("journal unhealthy: %v", f.svc.Health())
	}
}

// A journal that really cannot be written is journal_unavailable.
func TestJournalClosedIsJournalUnavailable(t *testing.T) {
	f := newFixture(t)
	c := dialTest(t, served(t, f), testToken)
	id := f.issue(agentManifest("a", 10, nil), "")
	f.svc.Journal().Close()
	err := c.Finish(context.Background(), wire.FinishParams{LeaseID: id, Status: "completed"})
	if wire.CodeOf(err) != wire.JournalUnavailable {
		t.Fatalf("finish on a closed journal: %v", err)
	}
}

// A subagent whose parent session has no lease gets a code, not a
// sentence to match.
func TestUnknownParentCode(t *testing.T) {
	f := newFixture(t)
	c := dialTest(t, served(t, f), "")
	ctx := context.Background()
	man := wire.DocOf(agentManifest("sub", 10, nil))
	_, err := c.Admit(ctx, wire.AdmitParams{Client: "claude-code", Session: "s/agent/1", ParentSession: "s", Manifest: man})
	if wire.CodeOf(err) != wire.UnknownParent {
		t.Fatalf("admit under an unknown parent: %v", err)
	}
	_, err = c.Gate(ctx, wire.GateParams{Session: "s/agent/1", ParentSession: "s", Tool: "Bash", Input: wire.DocOf(map[string]any{"command": "ls"})})
	if wire.CodeOf(err) != wire.UnknownParent {
		t.Fatalf("gate under an unknown parent: %v", err)
	}
	parent, err := c.Admit(ctx, wire.AdmitParams{Client: "claude-code", Session: "s", Manifest: man})
	if err != nil || parent.Capability == "" {
		t.Fatalf("parent admit: %+v %v", parent, err)
	}
	c.SetCapability(parent.Capability)
	if a, err := c.Admit(ctx, wire.AdmitParams{Client: "claude-code", Session: "s/agent/1", ParentSession: "s", Manifest: man}); err != nil || !a.Allowed {
		t.Fatalf("admit once the parent has its lease: %+v %v", a, err)
	}
}

// The typed client round-trips every read-only op against a real
// registry, and a cancelled context ends a call that waits for a human.
func TestClientRoundTrip(t *testing.T) {
	f := newFixture(t)
	sock := served(t, f)
	c := dialTest(t, sock, testToken)
	ctx := context.Background()
	res, err := c.Issue(ctx, wire.IssueParams{Manifest: wire.DocOf(agentManifest("a", 10, nil))})
	if err != nil || res.Status != wire.Granted {
		t.Fatalf("issue: %+v %v", res, err)
	}
	st, err := c.Status(ctx)
	if err != nil || st.Health != "ok" || st.PID != os.Getpid() || st.Journal.LeasesSeq == 0 {
		t.Fatalf("status: %+v %v", st, err)
	}
	ls, err := c.Leases(ctx)
	if err != nil || len(ls.Leases) != 1 || ls.Leases[0].ID != res.LeaseID || ls.Leases[0].Status != "granted" {
		t.Fatalf("leases: %+v %v", ls, err)
	}
	if _, err := c.Gate(ctx, wire.GateParams{LeaseID: res.LeaseID, Tool: "Bash", Input: wire.DocOf(map[string]any{"command": "ls"})}); err != nil {
		t.Fatal(err)
	}
	v, err := c.Lease(ctx, wire.LeaseParams{LeaseID: res.LeaseID})
	if err != nil || len(v.Activity) != 1 || v.Activity[0].Tool != "Bash" || v.Lease == nil {
		t.Fatalf("lease: %+v %v", v, err)
	}

	// A call held for a human ends when its context does.
	waiter := dialTest(t, sock, testToken)
	wctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	_, err = waiter.Gate(wctx, wire.GateParams{LeaseID: res.LeaseID, Tool: "Bash", Input: wire.DocOf(map[string]any{"command": "rm -rf src/x"})})
	if !errors.Is(err, wire.ErrUnreachable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("held call after its deadline: %v", err)
	}
	if _, err := waiter.Status(ctx); !errors.Is(err, wire.ErrUnreachable) {
		t.Fatalf("a client abandoned mid-answer must not be reused: %v", err)
	}
}
