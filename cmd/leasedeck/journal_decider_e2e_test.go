package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// heldCall sends a PreToolUse the gate holds for a human (the command
// carries a credential) and waits until the request is pending; it
// returns the approval id and a channel with the hook's answer.
func (w *wsEnv) heldCall(command string) (string, <-chan result) {
	w.t.Helper()
	stdin := w.payload("claude-code", "PreToolUse", func(m map[string]any) {
		m["tool_input"].(map[string]any)["command"] = command
	})
	done := make(chan result, 1)
	go func() { done <- w.hook("claude-code", stdin) }()
	deadline := time.Now().Add(8 * time.Second)
	for {
		var pending []struct {
			ID      string `json:"approval_id"`
			Summary string `json:"summary"`
		}
		r := w.run("", "approvals", "--json")
		json.Unmarshal([]byte(r.stdout), &pending)
		for _, p := range pending {
			if strings.Contains(p.Summary, strings.Fields(command)[0]) {
				return p.ID, done
			}
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("the call %q was never held (approvals: %+v)", command, r)
		}
	}
}

// journal tail says who decided each approval and why, in text and in
// --json, for an operator's approval (once and for the lease) and deny.
func TestJournalTailShowsWhoDecided(t *testing.T) {
	w := newWorkspace(t)
	w.serve()
	const secret = "ghp_aB3cD6eF9gH2iJ5kL8mN1oP4qR7sT0uV3wX6y"

	id1, done1 := w.heldCall("echo " + secret + " > one.txt")
	if r := w.run("", "deny", id1[:8], "--reason", "no tokens in files"); r.code != 0 {
		t.Fatalf("deny: %+v", r)
	}
	<-done1
	id2, done2 := w.heldCall("ls " + secret)
	if r := w.run("", "approve", id2[:8], "--for-lease"); r.code != 0 {
		t.Fatalf("approve: %+v", r)
	}
	<-done2

	r := w.run("", "journal", "tail", "-n", "0")
	if r.code != 0 {
		t.Fatalf("journal tail: %+v", r)
	}
	var decided, gate []string
	for _, line := range strings.Split(r.stdout, "\n") {
		switch {
		case strings.Contains(line, "leasedeck.approval.decided"):
			decided = append(decided, line)
		case strings.Contains(line, "leasedeck.gate.allowed"), strings.Contains(line, "leasedeck.gate.denied"):
			gate = append(gate, line)
		}
	}
	if len(decided) != 2 {
		t.Fatalf("want 2 decided lines, got %q\n%s", decided, r.stdout)
	}
	if !strings.Contains(decided[0], "denied by operator: no tokens in files") {
		t.Errorf("the deny line does not say who and why: %q", decided[0])
	}
	if !strings.Contains(decided[1], "approved for the lease by operator") {
		t.Errorf("the approval line does not say who and how far: %q", decided[1])
	}
	joined := strings.Join(gate, "\n")
	if !strings.Contains(joined, "denied by operator") || !strings.Contains(joined, "approved for the lease by operator") {
		t.Errorf("the gate lines do not name the decision they follow:\n%s", joined)
	}
	if strings.Contains(r.stdout, secret) {
		t.Error("journal tail prints the credential")
	}

	r = w.run("", "journal", "tail", "--json", "-n", "0")
	if r.code != 0 {
		t.Fatalf("journal tail --json: %+v", r)
	}
	type seen struct{ by, outcome, scope, reasoning string }
	var got []seen
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var v struct {
			EventType string `json:"event_type"`
			Reasoning string `json:"reasoning"`
			Details   struct {
				By, Outcome, Scope string
				ApprovalID         string `json:"approval_id"`
			} `json:"details"`
		}
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("journal tail --json printed a line that is not JSON: %q", line)
		}
		if v.EventType == "leasedeck.approval.decided" {
			got = append(got, seen{v.Details.By, v.Details.Outcome, v.Details.Scope, v.Reasoning})
		}
		if v.EventType == "leasedeck.gate.allowed" && v.Details.ApprovalID == id2 && (v.Details.By != "operator" || v.Details.Scope != "lease") {
			t.Errorf("the approved call's gate line: by %q scope %q", v.Details.By, v.Details.Scope)
		}
	}
	want := []seen{{"operator", "denied", "", "no tokens in files"}, {"operator", "approved", "lease", ""}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("--json decisions: got %+v, want %+v", got, want)
	}
}
