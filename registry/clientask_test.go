package registry

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/approvals"
)

func askFixture(t *testing.T, where string) *fixture {
	return newFixtureWith(t, func(c *Config) {
		c.Policy = &Policy{Root: policyManifest(t), Mode: "enforce", ApproveIn: where}
	})
}

// rmCall needs a human under agentManifest (approvals: command:rm).
func rmCall(dir string) ToolCall {
	return ToolCall{Tool: "Bash", Input: map[string]any{"command": "rm -rf src/old"}}
}

// Where a held call is answered is the policy's alone: whatever the caller
// says it can do, under the cockpit policy (or with no admission, or a
// hook that cannot ask) the call waits in the cockpit.
func TestAskInClientOnlyWhenThePolicySaysSo(t *testing.T) {
	for _, c := range []struct {
		name      string
		where     string
		prompt    bool
		admission bool
		inClient  bool
	}{
		{"policy client, hook can ask", ApproveInClient, true, true, true},
		{"policy cockpit, hook can ask", ApproveInCockpit, true, true, false},
		{"policy unset, hook can ask", "", true, true, false},
		{"policy client, hook cannot", ApproveInClient, false, true, false},
		{"policy client, a bare lease", ApproveInClient, true, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := askFixture(t, c.where)
			a, err := f.svc.Admit(AdmitRequest{Client: "claude-code", Session: "s1", Manifest: agentManifest("a", 10, nil), Prompt: "p"})
			if err != nil || !a.Allowed {
				t.Fatal(a, err)
			}
			req := GateRequest{Call: rmCall(f.dir), ClientPrompt: c.prompt, ToolUseID: "toolu_1", MaxWait: 300 * time.Millisecond}
			var ans GateAnswer
			done := make(chan struct{})
			go func() {
				defer close(done)
				if c.admission {
					ans, _ = f.svc.GateAdmission(context.Background(), a.AdmissionID, req)
				} else {
					req.LeaseID = a.LeaseID
					ans = f.svc.Gate(context.Background(), req)
				}
			}()
			if !c.inClient {
				waitPending(t, f, 1)
			}
			<-done
			if got := ans.Verdict == VerdictAsk && ans.AskedIn == ApproveInClient; got != c.inClient {
				t.Fatalf("asked in the client: %v, want %v (%+v)", got, c.inClient, ans)
			}
			if !c.inClient {
				return
			}
			// Charged as an allowed call is, and not decidable in the cockpit.
			if v, _ := f.svc.View(a.LeaseID); v.Spent["steps"] != 1 {
				t.Errorf("spent %v steps, want 1", v.Spent["steps"])
			}
			if _, err := f.svc.DecideApproval(ans.ApprovalID, approvals.Approved, approvals.Once, "", "cockpit"); !errors.Is(err, approvals.ErrUnknown) {
				t.Errorf("deciding a call asked in the client: %v", err)
			}
		})
	}
}

// A call asked in the client is still held to everything but the human:
// a lease with no budget left blocks it, however it would be asked.
func TestAskInClientNeedsBudget(t *testing.T) {
	f := askFixture(t, ApproveInClient)
	a, _ := f.svc.Admit(AdmitRequest{Client: "claude-code", Session: "s1", Manifest: agentManifest("a", 1, nil), Prompt: "p"})
	req := GateRequest{Call: rmCall(f.dir), ClientPrompt: true, ToolUseID: "toolu_1"}
	if ans, _ := f.svc.GateAdmission(context.Background(), a.AdmissionID, req); ans.AskedIn != ApproveInClient {
		t.Fatalf("first: %+v", ans)
	}
	req.ToolUseID = "toolu_2"
	if ans, _ := f.svc.GateAdmission(context.Background(), a.AdmissionID, req); ans.Verdict != VerdictBlock {
		t.Fatalf("with the budget spent by the first ask: %+v", ans)
	}
}

// The outcome: a post-tool report with the call's id is "allowed-by-user"
// (and certifies the turn: the call was gated); a permission-denied report
// or the end of the turn without one is "declined"; a restart keeps an
// open ask open.
func TestAskInClientOutcome(t *testing.T) {
	f, _ := snapshotted(t)
	f.svc.cfg.Policy = &Policy{Root: policyManifest(t), Mode: "enforce", ApproveIn: ApproveInClient}
	a, _ := f.svc.Admit(AdmitRequest{Client: "claude-code", Session: "s1", Manifest: agentManifest("a", 10, nil), Prompt: "p"})
	ask := func(id, cmd string) GateAnswer {
		ans, _ := f.svc.GateAdmission(context.Background(), a.AdmissionID, GateRequest{
			Call: ToolCall{Tool: "Bash", Input: map[string]any{"command": cmd}}, ClientPrompt: true, ToolUseID: id})
		if ans.AskedIn != ApproveInClient {
			t.Fatalf("%s: %+v", id, ans)
		}
		return ans
	}
	ran, refused, dropped := ask("t1", "rm -rf src/a"), ask("t2", "rm -rf src/b"), ask("t3", "rm -rf src/c")
	// The report names its call by id, whatever its input says.
	if _, err := f.svc.ReportCall(a.AdmissionID, ToolCall{Tool: "Bash", Input: map[string]any{"command": "rm -rf src/a"}}, "success", "", "t1"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.ReportCall(a.AdmissionID, ToolCall{Tool: "Bash", Input: map[string]any{"command": "rm -rf src/b"}}, "denied", "", "t2"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.WriteSnapshot(); err != nil {
		t.Fatal(err)
	}
	f.restart()
	f.svc.cfg.Policy = &Policy{Root: policyManifest(t), Mode: "enforce", ApproveIn: ApproveInClient}
	f.svc.mu.Lock()
	open := f.svc.st.ClientAsks[dropped.ApprovalID] != nil
	f.svc.mu.Unlock()
	if !open {
		t.Fatal("a restart lost the open ask")
	}
	fin, err := f.svc.Finalize(a.AdmissionID, "completed", false, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range fin.Reasons {
		if r == "1 tool call(s) ran without an allowed pre-tool gate" {
			t.Errorf("the call allowed in the client counts as ungated: %v", fin.Reasons)
		}
	}
	f.svc.mu.Lock()
	defer f.svc.mu.Unlock()
	got := map[string]string{}
	for _, c := range f.svc.st.AnsweredAsks {
		got[c.ID] = c.Outcome
	}
	want := map[string]string{ran.ApprovalID: AskAllowedByUser, refused.ApprovalID: AskDeclined, dropped.ApprovalID: AskDeclined}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: %q, want %q", id[:8], got[id], w)
		}
	}
	if len(f.svc.st.ClientAsks) != 0 {
		t.Errorf("%d asks still open after the turn ended", len(f.svc.st.ClientAsks))
	}
}
