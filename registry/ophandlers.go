package registry

import (
	"context"
	"time"

	"github.com/leasedeck/leasedeck/approvals"
	"github.com/leasedeck/leasedeck/registry/wire"
)

// The handlers of the op table, one per op, over the op's params type.

func (h *Handler) opStatus(_ context.Context, _ *call, _ *wire.Empty) (wire.StatusResult, *wire.Error) {
	return h.status(), nil
}

func (h *Handler) opIssue(_ context.Context, c *call, p *wire.IssueParams) (wire.IssueResult, *wire.Error) {
	if !p.Manifest.Set {
		return wire.IssueResult{}, bad("issue needs a manifest")
	}
	if e := h.svc.checkIssueInRun(c, p.Parent); e != nil {
		return wire.IssueResult{}, e
	}
	res, err := h.svc.Issue(p.Manifest.V, p.Parent)
	if err != nil && res.Status == "" {
		return wire.IssueResult{}, mapErr(err)
	}
	return issueOut(res), nil
}

func (h *Handler) opGate(ctx context.Context, c *call, p *wire.GateParams) (wire.GateAnswer, *wire.Error) {
	return h.gate(ctx, c, wire.OpGate, p)
}

func (h *Handler) opCheck(ctx context.Context, c *call, p *wire.CheckParams) (wire.GateAnswer, *wire.Error) {
	gp := wire.GateParams(*p)
	gp.DryRun = true
	return h.gate(ctx, c, wire.OpCheck, &gp)
}

func (h *Handler) gate(ctx context.Context, c *call, op wire.Op, p *wire.GateParams) (wire.GateAnswer, *wire.Error) {
	s := h.svc
	if (p.LeaseID == "" && p.AdmissionID == "" && p.Session == "") || p.Tool == "" {
		return wire.GateAnswer{}, bad("%s needs lease_id (or admission_id, or session) and tool", op)
	}
	input, rerr := toolInput(p.Input)
	if rerr != nil {
		return wire.GateAnswer{}, rerr
	}
	// No summary comes from the caller: the service derives the line a
	// human reads from the exact input.
	gr := GateRequest{Call: ToolCall{Tool: p.Tool, Input: input}, Client: p.Client,
		MaxWait: time.Duration(p.MaxWaitMs) * time.Millisecond, DryRun: p.DryRun,
		ClientPrompt: p.ClientPrompt, ToolUseID: p.ToolUseID}
	admission := p.AdmissionID
	if admission == "" && p.LeaseID == "" {
		a, e := h.sessionTurn(c, p.Client, p.Session, p.ParentSession, p.AgentName)
		if e != nil {
			return wire.GateAnswer{}, e
		}
		admission = a
	}
	if admission != "" {
		ans, err := s.GateAdmission(ctx, admission, gr)
		if err == nil {
			err = ans.refused
		}
		if err != nil {
			return wire.GateAnswer{}, mapErr(err)
		}
		return gateOut(ans), nil
	}
	if _, known := s.lease(p.LeaseID); !known {
		return wire.GateAnswer{}, wire.Errorf(wire.UnknownLease, "unknown lease %s", p.LeaseID)
	}
	gr.LeaseID = p.LeaseID
	ans := s.Gate(ctx, gr)
	if ans.refused != nil {
		return wire.GateAnswer{}, mapErr(ans.refused)
	}
	return gateOut(ans), nil
}

// sessionTurn resolves the current turn of the session a hook names
// (beginning one if it has none, issuing nothing), so that the hook need
// not admit first: one round trip instead of two.
func (h *Handler) sessionTurn(c *call, client, session, parent, agent string) (string, *wire.Error) {
	s := h.svc
	if e := s.checkPeerTicket(c); e != nil {
		return "", e
	}
	a, err := s.Admit(AdmitRequest{Client: client, Session: session, ParentSession: parent,
		AgentName: agent, Resume: true, RunTicket: c.env.RunTicket, mustBeNew: c.freshSession && !c.operator, noIssue: true})
	if err != nil {
		return "", mapErr(err)
	}
	if !a.Allowed {
		return "", &wire.Error{Code: wire.Closed, Message: a.Reason}
	}
	return a.AdmissionID, nil
}

func (h *Handler) opUsage(_ context.Context, _ *call, p *wire.UsageParams) (wire.Empty, *wire.Error) {
	if err := h.svc.RecordUsage(p.LeaseID, Usage{Tokens: p.Tokens, CostUSD: p.CostUSD, Source: p.Source}); err != nil {
		return wire.Empty{}, mapErr(err)
	}
	return wire.Empty{}, nil
}

func (h *Handler) opFinish(_ context.Context, c *call, p *wire.FinishParams) (wire.Empty, *wire.Error) {
	st := Status(p.Status)
	if st != Completed && st != Stopped {
		return wire.Empty{}, bad(`finish needs status "completed" or "stopped"`)
	}
	if st == Stopped && !c.operator {
		return wire.Empty{}, needsOperator("finish with status stopped")
	}
	if err := h.svc.Finish(p.LeaseID, st, p.Reason); err != nil {
		return wire.Empty{}, mapErr(err)
	}
	return wire.Empty{}, nil
}

func (h *Handler) opLeases(_ context.Context, _ *call, _ *wire.Empty) (wire.LeasesResult, *wire.Error) {
	views := h.svc.Views()
	out := wire.LeasesResult{Leases: make([]wire.LeaseView, len(views))}
	for i, v := range views {
		out.Leases[i] = leaseOut(v)
	}
	return out, nil
}

func (h *Handler) opLease(_ context.Context, _ *call, p *wire.LeaseParams) (wire.LeaseView, *wire.Error) {
	v, ok := h.svc.View(p.LeaseID)
	if !ok {
		return wire.LeaseView{}, wire.Errorf(wire.UnknownLease, "unknown lease %s", p.LeaseID)
	}
	return leaseOut(v), nil
}

func (h *Handler) opRevoke(_ context.Context, _ *call, p *wire.RevokeParams) (wire.RevokeResult, *wire.Error) {
	if p.LeaseID == "" {
		return wire.RevokeResult{}, bad("revoke needs lease_id")
	}
	res, err := h.svc.Revoke(p.LeaseID, p.By, p.Reason)
	if err != nil {
		return wire.RevokeResult{}, mapErr(err)
	}
	return wire.RevokeResult{Revoked: res.Revoked}, nil
}

func (h *Handler) opApprovals(_ context.Context, _ *call, _ *wire.Empty) (wire.ApprovalsResult, *wire.Error) {
	pending := h.svc.PendingApprovals()
	out := wire.ApprovalsResult{Pending: make([]wire.ApprovalView, len(pending))}
	for i, a := range pending {
		out.Pending[i] = wire.ApprovalView(a)
	}
	return out, nil
}

func (h *Handler) opAdmit(_ context.Context, c *call, p *wire.AdmitParams) (wire.AdmitResult, *wire.Error) {
	if e := h.svc.checkPeerTicket(c); e != nil {
		return wire.AdmitResult{Allowed: false, Reason: e.Message}, nil
	}
	res, err := h.svc.Admit(AdmitRequest{Client: p.Client, Session: p.Session, ParentSession: p.ParentSession,
		AgentName: p.AgentName, Manifest: p.Manifest.V, Prompt: p.Prompt, Turn: p.Turn, Resume: p.Resume, NoTurn: p.NoTurn,
		RunTicket: c.env.RunTicket, mustBeNew: c.freshSession && !c.operator})
	if err != nil && !res.Allowed && res.Reason == "" {
		return wire.AdmitResult{}, mapErr(err)
	}
	if err == nil && res.Allowed && p.ParentSession == "" {
		h.svc.watchClient(p.Client, p.Session, c.peer)
	}
	return admitOut(res), nil
}

func (h *Handler) opReport(_ context.Context, c *call, p *wire.ReportParams) (wire.ReportResult, *wire.Error) {
	if p.AdmissionID == "" && p.Session == "" {
		return wire.ReportResult{}, bad("report needs admission_id (or session)")
	}
	input, rerr := toolInput(p.Input)
	if rerr != nil {
		return wire.ReportResult{}, rerr
	}
	admission := p.AdmissionID
	if admission == "" {
		a, e := h.sessionTurn(c, p.Client, p.Session, p.ParentSession, p.AgentName)
		if e != nil {
			return wire.ReportResult{}, e
		}
		admission = a
	}
	res, err := h.svc.ReportCall(admission, ToolCall{Tool: p.Tool, Input: input}, p.Status, p.ResultHash, p.ToolUseID)
	if err != nil {
		return wire.ReportResult{}, mapErr(err)
	}
	return wire.ReportResult(res), nil
}

func (h *Handler) opTelemetry(_ context.Context, _ *call, p *wire.TelemetryParams) (wire.TelemetryResult, *wire.Error) {
	w, err := h.svc.Telemetry(p.AdmissionID, p.Tokens, p.CostUSD, p.Source)
	if err != nil {
		return wire.TelemetryResult{}, mapErr(err)
	}
	return wire.TelemetryResult{Warnings: w}, nil
}

func (h *Handler) opEndSession(_ context.Context, _ *call, p *wire.EndSessionParams) (wire.FinalizeResult, *wire.Error) {
	if p.Session == "" {
		return wire.FinalizeResult{}, bad("end_session needs session")
	}
	res, err := h.svc.EndSession(p.Session, p.StopReason)
	if err != nil {
		return wire.FinalizeResult{}, mapErr(err)
	}
	return wire.FinalizeResult(res), nil
}

func (h *Handler) opFinalize(_ context.Context, _ *call, p *wire.FinalizeParams) (wire.FinalizeResult, *wire.Error) {
	res, err := h.svc.Finalize(p.AdmissionID, p.StopReason, p.EndSession, p.Aborted)
	if err != nil {
		return wire.FinalizeResult{}, mapErr(err)
	}
	return wire.FinalizeResult(res), nil
}

func (h *Handler) opDecide(_ context.Context, _ *call, p *wire.DecideParams) (wire.DecideResult, *wire.Error) {
	var out approvals.Outcome
	switch p.Outcome {
	case "approved", "approve":
		out = approvals.Approved
	case "denied", "deny":
		out = approvals.Denied
	default:
		return wire.DecideResult{}, bad(`decide needs outcome "approved" or "denied"`)
	}
	by := p.By
	if by == "" {
		by = "operator"
	}
	r, err := h.svc.DecideApproval(p.ApprovalID, out, approvals.Scope(p.Scope), p.Reason, by)
	if err != nil {
		return wire.DecideResult{}, mapErr(err)
	}
	return wire.DecideResult{ApprovalID: r.ID, LeaseID: r.LeaseID, Outcome: string(out)}, nil
}
