package registry

import "github.com/leasedeck/leasedeck/registry/wire"

// The service's answers as the wire carries them. The service keeps its
// own types (a Status, a Verdict); the protocol is plain values.

func issueOut(r IssueResult) wire.IssueResult {
	return wire.IssueResult{LeaseID: r.LeaseID, Status: string(r.Status), Lease: r.Lease, Diff: r.Diff,
		Refusals: r.Refusals, Reason: r.Reason}
}

func gateOut(a GateAnswer) wire.GateAnswer {
	return wire.GateAnswer{Verdict: wire.Verdict(a.Verdict), Reason: a.Reason, ApprovalID: a.ApprovalID,
		Approvals: a.Approvals, DecidedBy: a.DecidedBy, AskedIn: a.AskedIn, Seq: a.Seq, EventID: a.EventID}
}

func admitOut(r AdmitResult) wire.AdmitResult {
	out := wire.AdmitResult{AdmissionID: r.AdmissionID, LeaseID: r.LeaseID, Allowed: r.Allowed, Reason: r.Reason,
		Refusals: r.Refusals, Lease: leaseOut(r.Lease), Context: r.Context, Capability: r.Capability}
	if r.Issue != nil {
		is := issueOut(*r.Issue)
		out.Issue = &is
	}
	return out
}

func leaseOut(v LeaseView) wire.LeaseView {
	out := wire.LeaseView{
		ID: v.ID, ParentID: v.ParentID, Status: string(v.Status), Live: v.Live, Agent: v.Agent,
		RuntimeAgent: v.RuntimeAgent, Purpose: v.Purpose, IssuedAt: v.IssuedAt, ExpiresAt: v.ExpiresAt,
		ClosedAt: v.ClosedAt, Reason: v.Reason, Refusals: v.Refusals, RevokedBy: v.RevokedBy,
		Generation: v.Generation, Children: v.Children, LiveChildren: v.LiveChildren, Budget: v.Budget,
		Remaining: v.Remaining, Spent: v.Spent, Narrowing: v.Narrowing, Lease: v.Lease, Declared: v.Declared,
		Confinement:  v.Confinement,
		HistoryError: v.HistoryError,
	}
	for _, e := range v.LastDecisions {
		out.Activity = append(out.Activity, wire.GateEvent(e))
	}
	return out
}
