package wire

import "encoding/json"

// MaxMessage bounds one message to the registry. Manifests and tool
// inputs are small; a larger message is answered with TooLarge and
// skipped, and the connection keeps working.
const MaxMessage = 4 << 20

// MaxAnswer bounds one answer the client reads (a full lease list).
const MaxAnswer = 64 << 20

// Envelope is the part of every message that is not the op's params.
type Envelope struct {
	ID json.RawMessage `json:"id,omitempty"`
	Op Op              `json:"op"`
	// Token is the operator token (Operator ops, and Session ops done for
	// another session by the operator).
	Token string `json:"token,omitempty"`
	// Capability is the session capability admit handed back when the
	// session began; Session ops present it.
	Capability string `json:"capability,omitempty"`
	// RunTicket is the ticket of the confined run the caller runs in
	// (`leasedeck run`): a session admitted with it gets its lease under
	// the run's.
	RunTicket string `json:"run_ticket,omitempty"`
}

// Response answers one message.
type Response struct {
	ID     json.RawMessage `json:"id,omitempty"`
	OK     bool            `json:"ok"`
	Result any             `json:"result,omitempty"`
	Error  *Error          `json:"error,omitempty"`
}

// Empty is the params of an op that takes none, and the result of an op
// that answers nothing but success.
type Empty struct{}

// StatusParams asks for the registry's status.
type StatusParams = Empty

// StatusResult is the registry's status.
type StatusResult struct {
	Workspace        string        `json:"workspace"`
	PID              int           `json:"pid"`
	IssuerSessionID  string        `json:"issuer_session_id"`
	KeyFingerprint   string        `json:"key_fingerprint"`
	Journal          JournalStatus `json:"journal"`
	PendingApprovals int           `json:"pending_approvals"`
	// Health is "ok", or why the registry cannot decide.
	Health string `json:"health"`
	// Start says how the registry rebuilt its state, and how its
	// snapshots fare since.
	Start StartStatus `json:"start"`
}

// StartStatus is how a registry rebuilt its state at start: from a
// snapshot and the journal's tail, or from every line.
type StartStatus struct {
	FromSnapshot bool `json:"from_snapshot"`
	// SnapshotAt is the journal position the snapshot it started from
	// was taken at.
	SnapshotAt    string   `json:"snapshot_at,omitempty"`
	ReplayedLines int      `json:"replayed_lines"`
	Refused       []string `json:"snapshots_refused,omitempty"` // why snapshots there were not used
	// SnapshotError is why the last snapshot could not be written ("":
	// it was, or none was due).
	SnapshotError string `json:"snapshot_error,omitempty"`
}

// JournalStatus is the head of each journal file.
type JournalStatus struct {
	LeasesSeq  uint64 `json:"leases_seq"`
	LeasesHead string `json:"leases_head"`
	AuditSeq   uint64 `json:"audit_seq"`
	AuditHead  string `json:"audit_head"`
}

// IssueParams asks for a lease from a declared manifest, under Parent or
// (no parent) under the root policy.
type IssueParams struct {
	Manifest Doc    `json:"manifest,omitzero"`
	Parent   string `json:"parent,omitempty"`
}

// IssueResult is a grant or a refusal. A refusal is an answer, not an
// error: Status says which.
type IssueResult struct {
	LeaseID  string         `json:"lease_id"`
	Status   string         `json:"status"`
	Lease    map[string]any `json:"lease,omitempty"`
	Diff     map[string]any `json:"diff,omitempty"`
	Refusals []string       `json:"refusals,omitempty"`
	Reason   string         `json:"reason,omitempty"`
}

// Granted is IssueResult.Status for a grant.
const Granted = "granted"

// GateParams presents one tool call to the gate, under a lease, an
// admission (a turn), or a session (its current turn). There is no
// summary member: the line a human reads is derived by the registry from
// the exact input, never taken from the caller.
type GateParams struct {
	LeaseID       string `json:"lease_id,omitempty"`
	AdmissionID   string `json:"admission_id,omitempty"`
	Session       string `json:"session,omitempty"`
	ParentSession string `json:"parent_session,omitempty"`
	AgentName     string `json:"agent_name,omitempty"`
	Client        string `json:"client,omitempty"`
	Tool          string `json:"tool"`
	Input         Doc    `json:"input,omitzero"`
	// MaxWaitMs caps how long a call that needs a human may wait.
	MaxWaitMs int64 `json:"max_wait_ms,omitempty"`
	DryRun    bool  `json:"dry_run,omitempty"`
	// ClientPrompt says the hook can put a held call to the client's own
	// permission prompt (Claude Code's "ask"). It only says the hook can:
	// whether it does is the policy's (approvals.where), never the caller's.
	ClientPrompt bool `json:"client_prompt,omitempty"`
	// ToolUseID is the client's id of the call, which its post-tool event
	// repeats: how a call asked in the client is matched to its outcome.
	ToolUseID string `json:"tool_use_id,omitempty"`
}

// CheckParams is a gate that records and spends nothing (a dry run).
type CheckParams GateParams

// Verdict is the gate's answer for one tool call.
type Verdict string

// Verdicts. Allow lets the call run; Deny refuses this call (the lease can
// go on); Block refuses because the lease cannot act at all any more;
// Ask means a human must decide first (only from check).
const (
	VerdictAllow Verdict = "allow"
	VerdictDeny  Verdict = "deny"
	VerdictBlock Verdict = "block"
	VerdictAsk   Verdict = "ask"
)

// GateAnswer is the gate's answer to a call.
type GateAnswer struct {
	Verdict    Verdict  `json:"decision"`
	Reason     string   `json:"reason"`
	ApprovalID string   `json:"approval_id,omitempty"`
	Approvals  []string `json:"approvals,omitempty"`
	DecidedBy  string   `json:"decided_by,omitempty"`
	// AskedIn is "client" when an ask verdict is handed to the client's
	// own permission prompt (policy approvals.where "client"): the hook
	// asks there, and nothing waits in the cockpit.
	AskedIn string `json:"asked_in,omitempty"`
	// Seq and EventID name the audit line that records the answer (its
	// seq in audit.jsonl, its event_id); absent when nothing was recorded.
	Seq     uint64 `json:"seq,omitempty"`
	EventID string `json:"event_id,omitempty"`
}

// UsageParams charges tokens and cost to a lease and its ancestors.
type UsageParams struct {
	LeaseID string   `json:"lease_id"`
	Tokens  *float64 `json:"tokens,omitempty"`
	CostUSD *float64 `json:"cost_usd,omitempty"`
	Source  string   `json:"source,omitempty"`
}

// FinishParams ends a lease: "completed" (the agent is done) or
// "stopped" (an operator stops it).
type FinishParams struct {
	LeaseID string `json:"lease_id"`
	Status  string `json:"status"`
	Reason  string `json:"reason,omitempty"`
}

// LeasesParams lists every lease.
type LeasesParams = Empty

// LeasesResult lists every lease and refusal in decision order.
type LeasesResult struct {
	Leases []LeaseView `json:"leases"`
}

// LeaseParams names one lease.
type LeaseParams struct {
	LeaseID string `json:"lease_id"`
}

// RevokeParams revokes a lease and its live subtree.
type RevokeParams struct {
	LeaseID string `json:"lease_id"`
	// By is "issuer" (default) or an ancestor lease's id (rule L3).
	By     string `json:"by,omitempty"`
	Reason string `json:"reason"`
}

// RevokeResult lists the leases a revocation closed, children first.
type RevokeResult struct {
	Revoked []string `json:"revoked"`
}

// ApprovalsParams lists pending approvals.
type ApprovalsParams = Empty

// ApprovalsResult lists undecided requests, oldest first.
type ApprovalsResult struct {
	Pending []ApprovalView `json:"pending"`
}

// AdmitParams begins a turn of a client session (or, with NoTurn, makes
// sure the session has its lease). Raw session and turn ids and the
// prompt are kept only as salted hashes.
type AdmitParams struct {
	Client        string `json:"client,omitempty"`
	Session       string `json:"session"`
	ParentSession string `json:"parent_session,omitempty"`
	AgentName     string `json:"agent_name,omitempty"`
	Manifest      Doc    `json:"manifest,omitzero"`
	Prompt        string `json:"prompt,omitempty"`
	Turn          string `json:"turn,omitempty"`
	Resume        bool   `json:"resume,omitempty"`
	NoTurn        bool   `json:"no_turn,omitempty"`
}

// AdmitResult is the admission and the lease it runs under. A refusal
// (no lease could be issued, the session's lease is revoked) is an
// answer with Allowed false and the reason.
type AdmitResult struct {
	AdmissionID string       `json:"admission_id,omitempty"`
	LeaseID     string       `json:"lease_id,omitempty"`
	Allowed     bool         `json:"allowed"`
	Reason      string       `json:"reason,omitempty"`
	Refusals    []string     `json:"refusals,omitempty"`
	Lease       LeaseView    `json:"lease"`
	Context     string       `json:"context,omitempty"`
	Issue       *IssueResult `json:"issue,omitempty"`
	// Capability is handed back once, when the session begins: the
	// unguessable secret every later session op of this session (and of
	// its subagents) presents. The registry keeps only its hash.
	Capability string `json:"capability,omitempty"`
}

// ReportParams reports a tool's outcome (post-tool): the result only as
// a hash.
type ReportParams struct {
	AdmissionID string `json:"admission_id,omitempty"`
	// Session (with ParentSession, AgentName and Client, as for a gate)
	// names the caller's session instead of an admission: the registry
	// reports under the session's current turn, saving the hook the admit
	// round trip.
	Session       string `json:"session,omitempty"`
	ParentSession string `json:"parent_session,omitempty"`
	AgentName     string `json:"agent_name,omitempty"`
	Client        string `json:"client,omitempty"`
	Tool          string `json:"tool"`
	Input         Doc    `json:"input,omitzero"`
	Status        string `json:"status,omitempty"`
	ResultHash    string `json:"result_hash,omitempty"`
	// ToolUseID is the client's id of the call (GateParams.ToolUseID).
	ToolUseID string `json:"tool_use_id,omitempty"`
}

// ReportResult is a post-tool report's outcome: a change outside the
// grant revokes the lease.
type ReportResult struct {
	Violation bool     `json:"violation"`
	Reason    string   `json:"reason,omitempty"`
	Revoked   []string `json:"revoked,omitempty"`
}

// TelemetryParams reports usage for a turn.
type TelemetryParams struct {
	AdmissionID string   `json:"admission_id"`
	Tokens      *float64 `json:"tokens,omitempty"`
	CostUSD     *float64 `json:"cost_usd,omitempty"`
	Source      string   `json:"source,omitempty"`
}

// TelemetryResult says which figures were not charged, and why.
type TelemetryResult struct {
	Warnings []string `json:"warnings"`
}

// EndSessionParams ends a client session: its open turn is finalized,
// its lease and live subtree complete.
type EndSessionParams struct {
	Session    string `json:"session"`
	StopReason string `json:"stop_reason,omitempty"`
}

// FinalizeParams ends a turn.
type FinalizeParams struct {
	AdmissionID string `json:"admission_id"`
	StopReason  string `json:"stop_reason,omitempty"`
	EndSession  bool   `json:"end_session,omitempty"`
	Aborted     bool   `json:"aborted,omitempty"`
}

// FinalizeResult is a turn's certification.
type FinalizeResult struct {
	Certified        bool     `json:"certified"`
	Reasons          []string `json:"reasons,omitempty"`
	TelemetryQuality string   `json:"telemetry_quality"`
}

// DecideParams records a human's decision on a pending approval.
type DecideParams struct {
	ApprovalID string `json:"approval_id"`
	// Outcome is "approved" or "denied".
	Outcome string `json:"outcome"`
	// Scope is "once" (default) or "lease" (remembered for the lease).
	Scope  string `json:"scope,omitempty"`
	Reason string `json:"reason,omitempty"`
	By     string `json:"by,omitempty"`
}

// DecideResult confirms a durable decision.
type DecideResult struct {
	ApprovalID string `json:"approval_id"`
	LeaseID    string `json:"lease_id"`
	Outcome    string `json:"outcome"`
}
