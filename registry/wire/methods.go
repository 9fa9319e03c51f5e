package wire

import "context"

// One method per op. Each sends the op's params and decodes its result.

// Status asks for the registry's status.
func (c *Client) Status(ctx context.Context) (StatusResult, error) {
	return call[Empty, StatusResult](ctx, c, OpStatus, Empty{})
}

// Issue asks for a lease from a declared manifest.
func (c *Client) Issue(ctx context.Context, p IssueParams) (IssueResult, error) {
	return call[IssueParams, IssueResult](ctx, c, OpIssue, p)
}

// Gate presents a tool call to the gate; a call that needs a human waits
// for the decision.
func (c *Client) Gate(ctx context.Context, p GateParams) (GateAnswer, error) {
	return call[GateParams, GateAnswer](ctx, c, OpGate, p)
}

// Check decides a tool call without recording or spending anything.
func (c *Client) Check(ctx context.Context, p CheckParams) (GateAnswer, error) {
	return call[CheckParams, GateAnswer](ctx, c, OpCheck, p)
}

// Usage charges usage to a lease and its ancestors.
func (c *Client) Usage(ctx context.Context, p UsageParams) error {
	_, err := call[UsageParams, Empty](ctx, c, OpUsage, p)
	return err
}

// Finish ends a lease (completed, or stopped by an operator).
func (c *Client) Finish(ctx context.Context, p FinishParams) error {
	_, err := call[FinishParams, Empty](ctx, c, OpFinish, p)
	return err
}

// Leases lists every lease and refusal.
func (c *Client) Leases(ctx context.Context) (LeasesResult, error) {
	return call[Empty, LeasesResult](ctx, c, OpLeases, Empty{})
}

// Lease shows one lease in full.
func (c *Client) Lease(ctx context.Context, p LeaseParams) (LeaseView, error) {
	return call[LeaseParams, LeaseView](ctx, c, OpLease, p)
}

// Revoke revokes a lease and its live subtree (operator).
func (c *Client) Revoke(ctx context.Context, p RevokeParams) (RevokeResult, error) {
	return call[RevokeParams, RevokeResult](ctx, c, OpRevoke, p)
}

// Approvals lists pending approval requests.
func (c *Client) Approvals(ctx context.Context) (ApprovalsResult, error) {
	return call[Empty, ApprovalsResult](ctx, c, OpApprovals, Empty{})
}

// Admit begins a session's turn (or makes sure it has its lease).
func (c *Client) Admit(ctx context.Context, p AdmitParams) (AdmitResult, error) {
	return call[AdmitParams, AdmitResult](ctx, c, OpAdmit, p)
}

// Report records a tool's outcome (post-tool).
func (c *Client) Report(ctx context.Context, p ReportParams) (ReportResult, error) {
	return call[ReportParams, ReportResult](ctx, c, OpReport, p)
}

// Telemetry records a turn's usage.
func (c *Client) Telemetry(ctx context.Context, p TelemetryParams) (TelemetryResult, error) {
	return call[TelemetryParams, TelemetryResult](ctx, c, OpTelemetry, p)
}

// EndSession ends a client session.
func (c *Client) EndSession(ctx context.Context, p EndSessionParams) (FinalizeResult, error) {
	return call[EndSessionParams, FinalizeResult](ctx, c, OpEndSession, p)
}

// Finalize ends a turn and certifies it.
func (c *Client) Finalize(ctx context.Context, p FinalizeParams) (FinalizeResult, error) {
	return call[FinalizeParams, FinalizeResult](ctx, c, OpFinalize, p)
}

// Decide records a human's decision on a pending approval (operator).
func (c *Client) Decide(ctx context.Context, p DecideParams) (DecideResult, error) {
	return call[DecideParams, DecideResult](ctx, c, OpDecide, p)
}
