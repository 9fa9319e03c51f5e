package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/registry/wire"
)

// The attacks of the trust-boundary issue, driven as an agent would: a raw
// Unix-socket client that holds no operator token, and sometimes a
// capability for a session of its own. Each must fail with the reason in
// the answer and nothing changed in the registry's state or its journal,
// and the registry must keep serving the session it attacked.

// victim is a client session begun the way the hook begins one.
type victim struct {
	c          *wire.Client
	session    string
	lease      string
	admission  string
	capability string
}

// patient gives approvals a minute, so that a slow machine (or the race
// detector) cannot expire a request a test is still looking at.
func patient(f *fixture) *fixture {
	f.svc.cfg.ApprovalTimeout = time.Minute
	return f
}

func beginVictim(t *testing.T, sock, session string) victim {
	t.Helper()
	c := dialTest(t, sock, "")
	a, err := c.Admit(context.Background(), wire.AdmitParams{Client: "claude-code", Session: session,
		Manifest: wire.DocOf(agentManifest("victim", 100, nil)), Prompt: "work"})
	if err != nil || !a.Allowed || a.Capability == "" {
		t.Fatalf("begin %s: %+v %v", session, a, err)
	}
	c.SetCapability(a.Capability)
	return victim{c: c, session: session, lease: a.LeaseID, admission: a.AdmissionID, capability: a.Capability}
}

// snapshot is everything an attack must leave as it was: both journal
// files byte for byte, and the registry's view of every lease and of the
// pending approvals.
func snapshot(t *testing.T, f *fixture) string {
	t.Helper()
	var b bytes.Buffer
	for _, name := range []string{"leases.jsonl", "audit.jsonl"} {
		data, err := os.ReadFile(filepath.Join(f.dir, ".leasedeck", "journal", name))
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
	}
	views, _ := json.Marshal(f.svc.Views())
	pending, _ := json.Marshal(f.svc.PendingApprovals())
	b.Write(views)
	b.Write(pending)
	return b.String()
}

func TestAttacksWithoutTokenChangeNothing(t *testing.T) {
	f := newFixture(t)
	sock := served(t, f)
	v := beginVictim(t, sock, "victim-session")
	if ans, err := v.c.Gate(context.Background(), wire.GateParams{AdmissionID: v.admission, Tool: "Write",
		Input: wire.DocOf(map[string]any{"file_path": "src/a.go", "content": "x"})}); err != nil || ans.Verdict != wire.VerdictAllow {
		t.Fatalf("victim's own call: %+v %v", ans, err)
	}
	// The attacker has a session of its own: its capability is real, but
	// it is not the victim's.
	own := beginVictim(t, sock, "attacker-session")

	man, _ := json.Marshal(agentManifest("child", 10, nil))
	attacks := []struct {
		name, line string
		code       wire.Code
		says       string
	}{
		{"finish another lease", `{"op":"finish","lease_id":"` + v.lease + `","status":"completed"}`, wire.WrongSession, "not this caller's"},
		{"stop another lease", `{"op":"finish","lease_id":"` + v.lease + `","status":"stopped","reason":"x"}`, wire.Unauthorized, "operator token"},
		{"forge a post-tool report that revokes", `{"op":"report","admission_id":"` + v.admission + `","tool":"Write","input":{"file_path":"/etc/passwd","content":"x"},"status":"success"}`, wire.WrongSession, "another session"},
		{"forge a post-tool report in another session", `{"op":"report","session":"victim-session","tool":"Write","input":{"file_path":"/etc/passwd","content":"x"},"status":"success"}`, wire.WrongSession, "not this caller's"},
		{"forge a report as a new subagent of another session", `{"op":"report","session":"victim-session/agent/x","parent_session":"victim-session","tool":"Write","input":{"file_path":"/etc/passwd","content":"x"},"status":"success"}`, wire.WrongSession, "parent session"},
		{"report in a session with no lease", `{"op":"report","session":"nobody-session","client":"claude-code","tool":"Write","input":{"file_path":"/etc/passwd","content":"x"},"status":"success"}`, wire.NeedsManifest, "manifest"},
		{"charge usage to another lease", `{"op":"usage","lease_id":"` + v.lease + `","tokens":1000000000,"source":"provider_reported"}`, wire.WrongSession, "not this caller's"},
		{"charge telemetry to another turn", `{"op":"telemetry","admission_id":"` + v.admission + `","tokens":1000000000,"source":"provider_reported"}`, wire.WrongSession, "another session"},
		{"fill another lease's fan-out", `{"op":"issue","parent":"` + v.lease + `","manifest":` + string(man) + `}`, wire.WrongSession, "not this caller's"},
		{"start a subagent under another session", `{"op":"admit","client":"claude-code","session":"victim-session/agent/x","parent_session":"victim-session","manifest":` + string(man) + `}`, wire.WrongSession, "parent session"},
		{"take over another session's turn", `{"op":"admit","client":"claude-code","session":"victim-session","resume":true}`, wire.WrongSession, "not this caller's"},
		{"gate in another session", `{"op":"gate","session":"victim-session","tool":"Bash","input":{"command":"ls"}}`, wire.WrongSession, "not this caller's"},
		{"gate under another lease", `{"op":"gate","lease_id":"` + v.lease + `","tool":"Bash","input":{"command":"ls"}}`, wire.WrongSession, "not this caller's"},
		{"end another session", `{"op":"end_session","session":"victim-session"}`, wire.WrongSession, "not this caller's"},
		{"finalize another turn", `{"op":"finalize","admission_id":"` + v.admission + `","end_session":true}`, wire.WrongSession, "another session"},
		{"issue a root lease", `{"op":"issue","manifest":` + string(man) + `}`, wire.Unauthorized, "root lease"},
		{"revoke", `{"op":"revoke","lease_id":"` + v.lease + `","reason":"x"}`, wire.Unauthorized, "operator token"},
		{"decide", `{"op":"decide","approval_id":"x","outcome":"approved"}`, wire.Unauthorized, "operator token"},
	}
	for _, withOwn := range []bool{false, true} {
		r := dialRaw(t, sock)
		for _, a := range attacks {
			line := a.line
			if withOwn {
				line = strings.Replace(line, "{", `{"capability":"`+own.capability+`",`, 1)
			}
			before := snapshot(t, f)
			ans := r.send(line)
			if ans.OK || ans.Error == nil || ans.Error.Code != a.code || !strings.Contains(ans.Error.Message, a.says) {
				t.Errorf("%s (own capability %v): %+v", a.name, withOwn, ans.Error)
			}
			if after := snapshot(t, f); after != before {
				t.Errorf("%s (own capability %v) changed the registry's state or journal", a.name, withOwn)
			}
		}
	}
	// The victim goes on as if nothing happened.
	ans, err := v.c.Gate(context.Background(), wire.GateParams{AdmissionID: v.admission, Tool: "Bash", Input: wire.DocOf(map[string]any{"command": "ls"})})
	if err != nil || ans.Verdict != wire.VerdictAllow {
		t.Fatalf("victim after the attacks: %+v %v", ans, err)
	}
	if view, _ := f.svc.View(v.lease); view.Status != Granted || view.Spent["steps"] != 2 || view.Spent["tokens"] != 0 || view.LiveChildren != 0 {
		t.Fatalf("victim's lease after the attacks: %+v", view)
	}
	f.verifyClean()
}

// The summary a human reads is the registry's, from the exact input.
func TestApprovalSummaryIsDerivedNotChosen(t *testing.T) {
	f := patient(newFixture(t))
	sock := served(t, f)
	own := beginVictim(t, sock, "s")
	r := dialRaw(t, sock)
	msg := `{"op":"gate","capability":"` + own.capability + `","admission_id":"` + own.admission +
		`","tool":"Bash","input":{"command":"rm -rf src"},"summary":"Bash: git status","max_wait_ms":60000}`
	r.c.Write([]byte(msg + "\n"))
	p := waitPending(t, f, 1)[0]
	if !strings.Contains(p.Summary, "rm -rf src") || strings.Contains(p.Summary, "git status") {
		t.Fatalf("the human would read %q", p.Summary)
	}
	if _, err := f.svc.DecideApproval(p.ID, "denied", "", "no", "operator"); err != nil {
		t.Fatal(err)
	}
}

// waitPending waits until n approvals are pending (a condition, polled;
// the gate's waiter has no other signal a test can see).
func waitPending(t *testing.T, f *fixture, n int) []ApprovalView {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		p := f.svc.PendingApprovals()
		if len(p) == n {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d approvals pending, want %d", len(p), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// 1,000 approval requests filed at once under one lease: the policy's
// five wait for a human, every other one is refused with its code and
// leaves no line in the journal.
func TestApprovalFloodIsCapped(t *testing.T) {
	f := patient(newFixture(t))
	sock := served(t, f)
	own := beginVictim(t, sock, "flooder")
	auditPath := filepath.Join(f.dir, ".leasedeck", "journal", "audit.jsonl")
	before, _ := os.ReadFile(auditPath)
	const flood = 1000
	answers := make(chan *wire.Error, flood)
	var conns sync.WaitGroup
	for i := range flood {
		conns.Add(1)
		go func() {
			defer conns.Done()
			c, err := net.Dial("unix", sock)
			if err != nil {
				answers <- &wire.Error{Code: "dial", Message: err.Error()}
				return
			}
			defer c.Close()
			fmt.Fprintf(c, `{"op":"gate","capability":%q,"admission_id":%q,"tool":"Bash","input":{"command":"rm -rf src/%d"},"max_wait_ms":60000}`+"\n",
				own.capability, own.admission, i)
			var a rawAnswer
			if err := json.NewDecoder(c).Decode(&a); err != nil {
				answers <- &wire.Error{Code: "no answer", Message: err.Error()}
				return
			}
			answers <- a.Error
		}()
	}
	refused := 0
	for refused < flood-DefaultMaxPendingApprovals {
		e := <-answers
		// Past the connection cap a request is refused before it is read;
		// on a loaded machine the kernel's listen backlog may fill first
		// and refuse the connection itself (EAGAIN): refused just the same.
		// Under load a connection can also wait a second unread: it is then
		// the idlest, and closed to make room (EOF, or a reset since its
		// line was never read).
		if e != nil && (e.Code == wire.TooManyConnections || e.Code == "dial" && strings.Contains(e.Message, "resource temporarily unavailable") ||
			e.Code == "no answer" && (e.Message == "EOF" || strings.HasSuffix(e.Message, "connection reset by peer"))) {
			refused++
			continue
		}
		if e == nil || e.Code != wire.TooManyApprovals || !strings.Contains(e.Message, "max_pending_approvals") {
			t.Fatalf("a flooded request: %+v", e)
		}
		refused++
	}
	pending := waitPending(t, f, DefaultMaxPendingApprovals)
	after, _ := os.ReadFile(auditPath)
	if got := strings.Count(string(after[len(before):]), "\n"); got != DefaultMaxPendingApprovals {
		t.Fatalf("the flood wrote %d audit lines, want %d (one per waiting request)", got, DefaultMaxPendingApprovals)
	}
	for _, p := range pending {
		f.svc.DecideApproval(p.ID, "denied", "", "flood", "operator")
	}
	conns.Wait()
	// The registry still serves the session it refused, on a new
	// connection: its first one may have been closed to make room for the
	// flood (it was idle, waiting for nothing, while the flood went on).
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, `{"op":"gate","capability":%q,"admission_id":%q,"tool":"Bash","input":{"command":"ls src"}}`+"\n",
		own.capability, own.admission)
	var a rawAnswer
	if err := json.NewDecoder(c).Decode(&a); err != nil || !a.OK {
		t.Fatalf("the flooder's session afterwards: %+v %v", a, err)
	}
}

// A caller that hangs up while its call waits for a human: the request is
// cancelled at once, journaled as cancelled, and an operator's approval
// afterwards finds it decided; the call never runs.
func TestHangUpCancelsPendingApproval(t *testing.T) {
	f := patient(newFixture(t))
	sock := served(t, f)
	own := beginVictim(t, sock, "quitter")
	r := dialRaw(t, sock)
	fmt.Fprintf(r.c, `{"op":"gate","capability":%q,"admission_id":%q,"tool":"Bash","input":{"command":"rm -rf src"},"max_wait_ms":60000}`+"\n",
		own.capability, own.admission)
	id := waitPending(t, f, 1)[0].ID
	r.c.Close()
	waitPending(t, f, 0)
	op := dialTest(t, sock, testToken)
	_, err := op.Decide(context.Background(), wire.DecideParams{ApprovalID: id, Outcome: "approved"})
	if wire.CodeOf(err) != wire.AlreadyDecided || !strings.Contains(err.Error(), "cancelled") {
		t.Fatalf("approving a cancelled request: %v", err)
	}
	audit, _ := os.ReadFile(filepath.Join(f.dir, ".leasedeck", "journal", "audit.jsonl"))
	if !strings.Contains(string(audit), `"outcome":"cancelled"`) || strings.Contains(string(audit), `"decision":"allow","tool":"Bash"`) {
		t.Fatalf("journal:\n%s", audit)
	}
	f.verifyClean()
	f.restart()
	if len(f.svc.PendingApprovals()) != 0 {
		t.Fatal("a cancelled request is pending again after a restart")
	}
}

// A closed session lease is never issued again for the same session, with
// a fresh budget or otherwise.
func TestClosedSessionLeaseIsNotReissued(t *testing.T) {
	f := newFixture(t)
	sock := served(t, f)
	v := beginVictim(t, sock, "done-session")
	ctx := context.Background()
	if _, err := v.c.EndSession(ctx, wire.EndSessionParams{Session: v.session}); err != nil {
		t.Fatal(err)
	}
	leases := len(f.svc.Views())
	a, err := v.c.Admit(ctx, wire.AdmitParams{Client: "claude-code", Session: v.session,
		Manifest: wire.DocOf(agentManifest("again", 100, nil)), Prompt: "more"})
	if err != nil || a.Allowed || !strings.Contains(a.Reason, "issued once") || a.LeaseID != v.lease {
		t.Fatalf("admit after the session ended: %+v %v", a, err)
	}
	if len(f.svc.Views()) != leases {
		t.Fatal("a new lease was issued for a session whose lease closed")
	}
}

// Capabilities survive a restart (the journal keeps their hashes), and a
// capability is not accepted for another session after it either.
func TestCapabilityAfterRestart(t *testing.T) {
	f := newFixture(t)
	sock := served(t, f)
	v := beginVictim(t, sock, "long-session")
	other := beginVictim(t, sock, "other-session")
	f.restart()
	sock = served(t, f)
	c := dialTest(t, sock, "")
	c.SetCapability(v.capability)
	ctx := context.Background()
	in := wire.DocOf(map[string]any{"command": "ls"})
	if ans, err := c.Gate(ctx, wire.GateParams{Session: v.session, Tool: "Bash", Input: in}); err != nil || ans.Verdict != wire.VerdictAllow {
		t.Fatalf("own session after a restart: %+v %v", ans, err)
	}
	if _, err := c.Gate(ctx, wire.GateParams{Session: other.session, Tool: "Bash", Input: in}); wire.CodeOf(err) != wire.WrongSession {
		t.Fatalf("another session after a restart: %v", err)
	}
}

// The cap comes from the policy's max_pending_approvals.
func TestApprovalCapIsConfigurable(t *testing.T) {
	f := patient(newFixture(t))
	f.svc.cfg.MaxPendingApprovals = 2
	sock := served(t, f)
	own := beginVictim(t, sock, "two")
	for i := range 2 {
		r := dialRaw(t, sock)
		fmt.Fprintf(r.c, `{"op":"gate","capability":%q,"admission_id":%q,"tool":"Bash","input":{"command":"rm -rf src/%d"},"max_wait_ms":60000}`+"\n",
			own.capability, own.admission, i)
		waitPending(t, f, i+1)
	}
	_, err := own.c.Gate(context.Background(), wire.GateParams{AdmissionID: own.admission, Tool: "Bash",
		Input: wire.DocOf(map[string]any{"command": "rm -rf src/third"})})
	if wire.CodeOf(err) != wire.TooManyApprovals || !strings.Contains(err.Error(), "2 approval request(s)") {
		t.Fatalf("third request: %v", err)
	}
	for _, p := range f.svc.PendingApprovals() {
		f.svc.DecideApproval(p.ID, "denied", "", "done", "operator")
	}
}

// Inside a confined run the run ticket is the tree's capability: it acts
// for the sessions under the run's lease, and for none outside it.
func TestRunTicketBindsToItsRun(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("a run's process tree is read from /proc")
	}
	f := newFixture(t)
	sock := served(t, f)
	ctx := context.Background()
	outside := beginVictim(t, sock, "outside-the-run")
	op := dialTest(t, sock, testToken)
	// This test process stands for a process of the run's tree (its parent is the run).
	run, err := op.RunBegin(ctx, wire.RunBeginParams{Client: "claude-code", Manifest: wire.DocOf(agentManifest("run", 100, nil)),
		PID: os.Getppid()})
	if err != nil || run.Ticket == "" {
		t.Fatalf("run begin: %+v %v", run, err)
	}
	hook := dialTest(t, sock, "")
	hook.SetRunTicket(run.Ticket)
	in, err := hook.Admit(ctx, wire.AdmitParams{Client: "claude-code", Session: "inside-the-run",
		Manifest: wire.DocOf(agentManifest("inner", 50, nil)), Prompt: "go"})
	if err != nil || !in.Allowed || in.Lease.ParentID != run.Issue.LeaseID {
		t.Fatalf("a session inside the run: %+v %v", in, err)
	}
	// A later hook process of the run has the ticket but no capability.
	later := dialTest(t, sock, "")
	later.SetRunTicket(run.Ticket)
	cmd := wire.DocOf(map[string]any{"command": "ls"})
	if ans, err := later.Gate(ctx, wire.GateParams{Session: "inside-the-run", Tool: "Bash", Input: cmd}); err != nil || ans.Verdict != wire.VerdictAllow {
		t.Fatalf("the run's own session by ticket: %+v %v", ans, err)
	}
	before := snapshot(t, f)
	if _, err := later.Gate(ctx, wire.GateParams{AdmissionID: outside.admission, Tool: "Bash", Input: cmd}); wire.CodeOf(err) != wire.WrongSession {
		t.Fatalf("a session outside the run by ticket: %v", err)
	}
	if snapshot(t, f) != before {
		t.Fatal("the refused call changed something")
	}
}

// A post-tool report may name the caller's session instead of an
// admission (one round trip for the hook): it lands on the session's
// current turn, and a write outside the grant revokes as it would by
// admission.
func TestReportBySession(t *testing.T) {
	f := newFixture(t)
	sock := served(t, f)
	v := beginVictim(t, sock, "report-session")
	ctx := context.Background()
	inside := wire.DocOf(map[string]any{"file_path": "src/a.go", "content": "x"})
	r, err := v.c.Report(ctx, wire.ReportParams{Session: v.session, Client: "claude-code", Tool: "Write", Input: inside, Status: "success"})
	if err != nil || r.Violation {
		t.Fatalf("own report by session: %+v %v", r, err)
	}
	audit, _ := os.ReadFile(filepath.Join(f.dir, ".leasedeck", "journal", "audit.jsonl"))
	if !strings.Contains(string(audit), `"admission_id":"`+v.admission+`"`) || !strings.Contains(string(audit), EventToolReported) {
		t.Fatalf("the report is not journaled under the session's turn %s:\n%s", v.admission, audit)
	}
	outside := wire.DocOf(map[string]any{"file_path": "docs/x.md", "content": "x"})
	r, err = v.c.Report(ctx, wire.ReportParams{Session: v.session, Client: "claude-code", Tool: "Write", Input: outside, Status: "success"})
	if err != nil || !r.Violation {
		t.Fatalf("a write outside the grant reported by session: %+v %v", r, err)
	}
	if view, _ := f.svc.View(v.lease); view.Status != Revoked {
		t.Fatalf("the lease after the violation: %s", view.Status)
	}
	if _, err := v.c.Report(ctx, wire.ReportParams{Tool: "Write", Input: inside}); wire.CodeOf(err) != wire.BadRequest {
		t.Fatalf("a report naming neither admission nor session: %v", err)
	}
	f.verifyClean()
}
