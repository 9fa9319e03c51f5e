package record_test

import (
	"testing"

	"github.com/leasedeck/leasedeck/registry/record"
)

func TestDeciderSaysWhoAndWhy(t *testing.T) {
	for _, c := range []struct {
		event, by, outcome, scope, reason, approval string
		want                                        string
	}{
		{record.ApprovalDecided, "cockpit", "approved", "once", "", "a", "approved once by cockpit"},
		{record.ApprovalDecided, "operator", "approved", "lease", "", "a", "approved for the lease by operator"},
		{record.ApprovalDecided, "operator", "denied", "", "not on main", "a", "denied by operator: not on main"},
		{record.ApprovalDecided, "expiry", "expired", "", "", "a", "expired (no decision before the deadline)"},
		{record.ApprovalDecided, "restart", "expired", "", "", "a", "expired (the registry restarted while it waited)"},
		{record.GateAllowed, "cockpit", "", "lease", "within the lease", "a", "approved for the lease by cockpit"},
		{record.GateDenied, "cockpit", "", "", "a human denied", "a", "denied by cockpit"},
		{record.GateAllowed, "", "", "", "within the lease", "", ""},
		{record.GateAllowed, "cockpit", "", "", "", "", ""}, // no approval: no decider
		{record.ToolReported, "cockpit", "approved", "", "", "a", ""},
	} {
		a := record.Audit{EventType: c.event, Reasoning: c.reason,
			Details: record.Details{By: c.by, Outcome: c.outcome, Scope: c.scope, ApprovalID: c.approval}}
		if got := record.Decider(&a); got != c.want {
			t.Errorf("%s by %q %s: got %q, want %q", c.event, c.by, c.outcome, got, c.want)
		}
	}
}
