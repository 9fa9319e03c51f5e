package registry

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSessionLifecycle(t *testing.T) {
	f := newFixture(t)
	man := agentManifest("claude", 100, nil)
	const rawSession, rawPrompt = "session-RAW-abc123", "please do the SECRET-PROMPT thing"
	a1, err := f.svc.Admit(AdmitRequest{Client: "claude-code", Session: rawSession, Manifest: man, Prompt: rawPrompt, Turn: "turn-1"})
	if err != nil || !a1.Allowed {
		t.Fatalf("admit: %+v %v", a1, err)
	}
	if !strings.Contains(a1.Context, "You may write: src/**") {
		t.Errorf("context: %q", a1.Context)
	}
	a2, _ := f.svc.Admit(AdmitRequest{Client: "claude-code", Session: rawSession, Manifest: man, Prompt: "again"})
	if a2.LeaseID != a1.LeaseID || a2.AdmissionID == a1.AdmissionID {
		t.Fatalf("second turn: lease %s vs %s, admission %s vs %s", a2.LeaseID, a1.LeaseID, a2.AdmissionID, a1.AdmissionID)
	}
	sub, _ := f.svc.Admit(AdmitRequest{Client: "claude-code", Session: "sub-1", ParentSession: rawSession, AgentName: "subagent Explore", Manifest: man})
	if !sub.Allowed || sub.Lease.ParentID != a1.LeaseID || sub.Lease.Agent != "subagent Explore" {
		t.Fatalf("subagent: %+v", sub)
	}

	ctx := context.Background()
	write := ToolCall{Tool: "Write", Input: map[string]any{"file_path": "src/a.go", "content": "x"}}
	if ans, _ := f.svc.GateAdmission(ctx, a2.AdmissionID, GateRequest{Call: write}); ans.Verdict != VerdictAllow {
		t.Fatalf("pre-tool: %+v", ans)
	}
	if r, _ := f.svc.Report(a2.AdmissionID, write, "success", "", "Write: src/a.go"); r.Violation {
		t.Fatalf("report: %+v", r)
	}
	tok := 1200.0
	if w, _ := f.svc.Telemetry(a2.AdmissionID, &tok, nil, "provider_reported"); len(w) != 0 {
		t.Errorf("warnings %v", w)
	}
	fin, _ := f.svc.Finalize(a2.AdmissionID, "completed", false, false)
	if !fin.Certified {
		t.Fatalf("finalize: %+v", fin)
	}

	// A write outside the grant reported after the fact: revoked, non_certified.
	a3, _ := f.svc.Admit(AdmitRequest{Client: "claude-code", Session: rawSession, Manifest: man})
	outside := ToolCall{Tool: "Write", Input: map[string]any{"file_path": "docs/x.md"}}
	r, _ := f.svc.Report(a3.AdmissionID, outside, "success", "", "Write: docs/x.md")
	if !r.Violation || len(r.Revoked) != 2 {
		t.Fatalf("violation: %+v", r)
	}
	fin, _ = f.svc.Finalize(a3.AdmissionID, "completed", false, false)
	if fin.Certified || !strings.Contains(strings.Join(fin.Reasons, ";"), "scope violation") {
		t.Fatalf("finalize after violation: %+v", fin)
	}
	if a4, _ := f.svc.Admit(AdmitRequest{Client: "claude-code", Session: rawSession, Manifest: man}); a4.Allowed {
		t.Fatalf("revoked session admitted again: %+v", a4)
	}
	// Nothing raw in the journal.
	for _, name := range []string{"leases.jsonl", "audit.jsonl"} {
		b, _ := os.ReadFile(filepath.Join(f.dir, ".leasedeck", "journal", name))
		for _, raw := range []string{rawSession, "SECRET-PROMPT", "turn-1"} {
			if strings.Contains(string(b), raw) {
				t.Errorf("%s contains %q", name, raw)
			}
		}
	}
	// Everything folds back the same after a restart.
	f.restart()
	f.svc.Snapshot(func(st *State) {
		if a := st.Admissions[a2.AdmissionID]; a == nil || a.Finalized != "certified" || a.Allowed != 1 {
			t.Errorf("admission after restart: %+v", a)
		}
	})
}
