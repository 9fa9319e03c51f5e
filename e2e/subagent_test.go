package e2e

import (
	"os"
	"time"

	"github.com/leasedeck/leasedeck/e2e/fakemodel"
	"github.com/leasedeck/leasedeck/registry"
)

// checkSubagentRun checks a headless run in which the model delegated to a
// subagent (script "child") that wrote file with content and then tried
// sudo: the write happened, sudo was refused and did not run, every lease
// ended when the client exited, and there is one session lease (of agent
// sessionAgent, when named) with one child lease isChild accepts.
func (e *env) checkSubagentRun(srv *fakemodel.Server, file, content, sessionAgent string, isChild func(registry.LeaseView) bool) {
	t := e.t
	t.Helper()
	if b, err := os.ReadFile(e.path(file)); err != nil || string(b) != content {
		t.Errorf("the subagent's allowed write did not happen: %v %q", err, b)
	}
	if rs, ok := srv.ResultsAfter("child", 1); !ok || len(rs) != 1 || !contains(rs[0].Text, "command sudo is denied") {
		t.Errorf("the subagent's sudo: %v %+v", ok, rs)
	}
	if exists(e.path("pwned.txt")) {
		t.Error("the subagent's sudo ran")
	}
	e.waitLeasesEnded("", 15*time.Second)
	var parent, child int
	leases := e.leases()
	for _, l := range leases {
		t.Logf("lease %s parent %q %s %q", l.ID, l.ParentID, l.Status, l.Agent)
		if l.ParentID != "" || sessionAgent != "" && l.Agent != sessionAgent {
			continue
		}
		parent++
		for _, c := range leases {
			if c.ParentID == l.ID && isChild(c) {
				child++
			}
		}
	}
	if parent != 1 || child != 1 {
		t.Errorf("want one session lease with one child lease for the subagent, got %d and %d", parent, child)
	}
}
