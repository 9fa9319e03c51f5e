package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// setApproveIn writes policy.json's approvals.where (before serve).
func (w *wsEnv) setApproveIn(where string) {
	w.t.Helper()
	p := filepath.Join(w.dir, ".leasedeck", "policy.json")
	b, err := os.ReadFile(p)
	if err != nil {
		w.t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		w.t.Fatal(err)
	}
	m["approvals"] = map[string]any{"where": where}
	out, _ := json.MarshalIndent(m, "", "  ")
	if err := os.WriteFile(p, out, 0o600); err != nil {
		w.t.Fatal(err)
	}
}

// auditOf lists the audit lines of one event type.
func (w *wsEnv) auditOf(eventType string) []map[string]any {
	var out []map[string]any
	for _, l := range strings.Split(w.audit(), "\n") {
		var v map[string]any
		if json.Unmarshal([]byte(l), &v) == nil && v["event_type"] == eventType {
			out = append(out, v)
		}
	}
	return out
}

func detailsOf(v map[string]any) map[string]any {
	d, _ := v["details"].(map[string]any)
	return d
}

// With approvals.where "client", a held call is put to Claude Code's own
// prompt (permissionDecision "ask"), nothing waits in the cockpit, the call
// is charged as an allowed one, and the journal records its outcome from
// the client's next events: its PostToolUse (allowed by the user), or the
// end of the turn with none (declined, after the PermissionRequest that
// leasedeck leaves to the client's prompt). Recorded payloads, real binary.
func TestHeldCallAskedInTheClient(t *testing.T) {
	w := newWorkspace(t)
	w.setApproveIn("client")
	w.serve()
	pre := func(id, command string) result {
		return w.hook("claude-code", w.payload("claude-code", "PreToolUse", func(m map[string]any) {
			m["tool_input"] = map[string]any{"command": command}
			m["tool_use_id"] = id
		}))
	}
	// 1: asked in the client, then allowed there (its PostToolUse).
	r := pre("toolu_ASKED1", "rm -rf build")
	if r.code != 0 || !strings.Contains(r.stdout, `"permissionDecision":"ask"`) {
		t.Fatalf("a held call was not asked in the client: %+v", r)
	}
	if a := w.run("", "approvals", "--json"); strings.Contains(a.stdout, "approval_id") {
		t.Fatalf("a call asked in the client waits in the cockpit too: %s", a.stdout)
	}
	asked := w.auditOf("leasedeck.approval.client_asked")
	if len(asked) != 1 || detailsOf(asked[0])["tool_use_id"] != "toolu_ASKED1" || detailsOf(asked[0])["steps"] != 1.0 {
		t.Fatalf("client_asked lines: %v", asked)
	}
	approval, _ := detailsOf(asked[0])["approval_id"].(string)
	// Nobody can decide it in the cockpit: it is not an approval request.
	if d := w.run("", "approve", approval); d.code == 0 {
		t.Fatalf("a call asked in the client was approved from outside it: %+v", d)
	}
	post := w.hook("claude-code", w.payload("claude-code", "PostToolUse", func(m map[string]any) {
		m["tool_input"] = map[string]any{"command": "rm -rf build"}
		m["tool_use_id"] = "toolu_ASKED1"
	}))
	if post.code != 0 {
		t.Fatalf("PostToolUse: %+v", post)
	}
	// 2: asked, the client's PermissionRequest left to its prompt, which
	// (in -p mode) denies: no PostToolUse, then the turn ends.
	if r := pre("toolu_ASKED2", "rm -rf dist"); !strings.Contains(r.stdout, `"permissionDecision":"ask"`) {
		t.Fatalf("second call: %+v", r)
	}
	pr := w.hook("claude-code", w.payload("claude-code", "PermissionRequest", func(m map[string]any) {
		m["tool_name"] = "Bash"
		m["tool_input"] = map[string]any{"command": "rm -rf dist"}
	}))
	if pr.code != 0 || strings.TrimSpace(pr.stdout) != "" {
		t.Fatalf("PermissionRequest of a call asked in the client must leave it to the client: %+v", pr)
	}
	if a := w.run("", "approvals", "--json"); strings.Contains(a.stdout, "approval_id") {
		t.Fatalf("the PermissionRequest put the call in the cockpit: %s", a.stdout)
	}
	if s := w.hook("claude-code", w.payload("claude-code", "Stop", nil)); s.code != 0 {
		t.Fatalf("Stop: %+v", s)
	}
	answered := w.auditOf("leasedeck.approval.client_answered")
	if len(answered) != 2 {
		t.Fatalf("client_answered lines: %v", answered)
	}
	got := []string{detailsOf(answered[0])["outcome"].(string), detailsOf(answered[1])["outcome"].(string)}
	if got[0] != "allowed-by-user" || got[1] != "declined" || detailsOf(answered[0])["approval_id"] != approval {
		t.Errorf("outcomes %v (want allowed-by-user, declined): %v", got, answered)
	}
	// Both were charged as allowed calls are: one step each.
	for _, l := range w.leases() {
		if l.Spent["steps"] != 2 {
			t.Errorf("lease %s spent %v steps, want 2", l.ID[:8], l.Spent["steps"])
		}
	}
	tail := w.run("", "journal", "tail", "-n", "0")
	if !strings.Contains(tail.stdout, "asked in the client (claude-code)") || !strings.Contains(tail.stdout, "client answered: allowed-by-user") ||
		!strings.Contains(tail.stdout, "client answered: declined") {
		t.Errorf("journal tail does not say where it was asked and what became of it:\n%s", tail.stdout)
	}
}

// The agent cannot choose where it is asked: with the policy's default
// (the cockpit) a held call waits in the cockpit whatever the hook could
// do, and a policy that names anything else is refused at load, naming
// the member.
func TestApproveInIsThePolicysChoice(t *testing.T) {
	w := newWorkspace(t)
	w.setApproveIn("agent")
	if r := w.run("", "serve"); r.code == 0 || !strings.Contains(r.stderr+r.stdout, "/approvals/where") {
		t.Errorf("a bad approvals.where was not refused with its pointer: %+v", r)
	}
	w.setApproveIn("cockpit")
	w.serve()
	id, done := w.heldCall("rm -rf build")
	if r := w.run("", "deny", id, "--reason", "no"); r.code != 0 {
		t.Fatalf("deny: %+v", r)
	}
	if r := <-done; !strings.Contains(r.stdout, `"permissionDecision":"deny"`) {
		t.Errorf("after the cockpit's deny: %+v", r)
	}
	if n := len(w.auditOf("leasedeck.approval.client_asked")); n != 0 {
		t.Errorf("%d calls asked in the client under the cockpit policy", n)
	}
}
