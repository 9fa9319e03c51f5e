package main

import (
	"os"
	"strings"
	"testing"
)

// Claude Code's hooks installed with --tool-outcomes=false: the gate as
// ever, no PostToolUse. doctor takes it for what install wrote (no
// missing-event problem) and says what is not journaled; once policy.json
// asks in the client, whose answers come from PostToolUse, it is a
// problem whose fix (a full install) clears it, and install itself refuses
// the lean form then. Uninstall removes it all.
func TestDoctorAndInstallWithoutToolOutcomes(t *testing.T) {
	d := newDoctorWS(t)
	d.serve()
	d.program(t, "", "claude", "2.1.328 (Claude Code)")
	if r := d.run("", "install", "claude-code", "--command", binary, "--tool-outcomes=false"); r.code != 0 {
		t.Fatal(r)
	}
	s := readFile(t, d.settings(t))
	if strings.Contains(s, `"PostToolUse"`) || !strings.Contains(s, `"PostToolUseFailure"`) || !strings.Contains(s, `"onFailure": "block"`) {
		t.Fatalf("the lean install:\n%s", s)
	}
	rep, r := d.doctor(t)
	note, ok := findingOf(rep, "claude-code", "hooks (project)", "no PostToolUse hook")
	if !rep.OK || r.code != 0 || !ok || note.Status != statusNote {
		t.Fatalf("doctor on a lean install: %+v %+v\n%s", note, problems(rep), r.stdout)
	}
	if _, ok := findingOf(rep, "claude-code", "hooks (project)", "pinned to this workspace"); !ok {
		t.Errorf("the scope's ok line is missing:\n%s", r.stdout)
	}

	d.setApproveIn("client")
	rep, r = d.doctor(t)
	f, ok := findingOf(rep, "claude-code", "hooks (project)", "approvals.where")
	if r.code != 1 || !ok || f.Status != statusProblem || !strings.Contains(f.Fix, "leasedeck install claude-code") {
		t.Fatalf("doctor, lean install and approvals in the client: %+v\n%s", f, r.stdout)
	}
	before := readFile(t, d.settings(t))
	refused := d.run("", "install", "claude-code", "--command", binary, "--tool-outcomes=false")
	if refused.code != 3 || !strings.Contains(refused.stderr, `approvals.where "client"`) {
		t.Errorf("install --tool-outcomes=false with approvals in the client: %+v", refused)
	}
	if readFile(t, d.settings(t)) != before {
		t.Errorf("a refused install changed the file")
	}
	d.applyFix(t, f.Fix)
	rep, r = d.doctor(t)
	if _, still := findingOf(rep, "claude-code", "hooks (project)", "PostToolUse"); still || !rep.OK {
		t.Fatalf("after the fix: %+v\n%s", problems(rep), r.stdout)
	}
	if !strings.Contains(readFile(t, d.settings(t)), `"PostToolUse"`) {
		t.Errorf("the fix did not put PostToolUse back")
	}
	if r := d.run("", "uninstall", "claude-code"); r.code != 0 {
		t.Fatal(r)
	}
	if _, err := os.Stat(d.settings(t)); !os.IsNotExist(err) {
		t.Errorf("uninstall left the file install created: %v", err)
	}
}
