package wire

// Op names a socket operation.
type Op string

// The socket's ops. The registry's op table says who may call each and
// README's "Socket API" section is checked against it.
const (
	OpStatus     Op = "status"
	OpIssue      Op = "issue"
	OpGate       Op = "gate"
	OpCheck      Op = "check"
	OpUsage      Op = "usage"
	OpFinish     Op = "finish"
	OpLeases     Op = "leases"
	OpLease      Op = "lease"
	OpRevoke     Op = "revoke"
	OpApprovals  Op = "approvals"
	OpAdmit      Op = "admit"
	OpReport     Op = "report"
	OpTelemetry  Op = "telemetry"
	OpEndSession Op = "end_session"
	OpFinalize   Op = "finalize"
	OpDecide     Op = "decide"
)

// Access says who may call an op.
type Access string

const (
	// Operator ops need the operator token: only a human (the cockpit, or
	// a command run by the human holding the token) decides, revokes or
	// stops.
	Operator Access = "operator"
	// Session ops act for one client session and are bound to it: the
	// caller shows that session's capability, or the operator token.
	Session Access = "session"
	// ReadOnly ops change nothing; any local caller may use them.
	ReadOnly Access = "read-only"
)
