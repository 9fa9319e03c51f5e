package wire

import "context"

// Confined runs (`leasedeck run`): every op is the operator's, because
// only the human who starts a run holds the token; the tree it confines
// never sees it.
const (
	OpRunBegin    Op = "run_begin"
	OpRunConfined Op = "run_confined"
	OpRunLive     Op = "run_live"
	OpRunEnd      Op = "run_end"
	OpEgress      Op = "egress"
)

// RunTicketEnv is the environment variable a confined tree's hooks read
// their run ticket from.
const RunTicketEnv = "LEASEDECK_RUN_TICKET"

// Confinement says whether, and by what, a lease's process tree is held in
// the kernel. A lease issued under a run's lease shows the run's.
type Confinement struct {
	Confined       bool   `json:"confined"`
	LandlockABI    int    `json:"landlock_abi,omitempty"`
	MountNamespace bool   `json:"mount_namespace"`
	Narrowed       int    `json:"narrowed_hierarchies,omitempty"`
	Network        string `json:"network,omitempty"`
	Reason         string `json:"reason,omitempty"` // why a run is unconfined
	RunLeaseID     string `json:"run_lease_id"`
	Ended          bool   `json:"ended,omitempty"`
}

// RunBeginParams asks for a run's session lease from the client's declared
// manifest.
type RunBeginParams struct {
	Client   string `json:"client"`
	Manifest Doc    `json:"manifest,omitzero"`
	PID      int    `json:"pid,omitempty"`
}

// RunBeginResult is the lease (or the refusal) and, for a grant, the run
// ticket the tree's hooks present.
type RunBeginResult struct {
	Issue  IssueResult `json:"issue"`
	Ticket string      `json:"ticket,omitempty"`
}

// RunConfinedParams records how a run's tree is held.
type RunConfinedParams struct {
	LeaseID string `json:"lease_id"`
	Confinement
}

// RunLiveParams asks whether a run's lease may still act.
type RunLiveParams struct {
	LeaseID string `json:"lease_id"`
}

// RunLiveResult is live, or why not (revoked, expired, budget spent).
type RunLiveResult struct {
	Live   bool   `json:"live"`
	Reason string `json:"reason,omitempty"`
}

// RunEndParams records the end of a run.
type RunEndParams struct {
	LeaseID  string `json:"lease_id"`
	ExitCode int    `json:"exit_code"`
	Stopped  bool   `json:"stopped,omitempty"` // run stopped the tree
	Reason   string `json:"reason,omitempty"`
}

// EgressParams reports one connection of a run's egress proxy: when it is
// decided (before an allowed one is opened) and when it closes.
type EgressParams struct {
	LeaseID   string `json:"lease_id"`
	Phase     string `json:"phase"` // "decided" or "closed"
	Host      string `json:"host"`
	Port      int    `json:"port"`
	Method    string `json:"method,omitempty"`
	Allowed   bool   `json:"allowed"`
	Reason    string `json:"reason,omitempty"`
	BytesUp   int64  `json:"bytes_up,omitempty"`
	BytesDown int64  `json:"bytes_down,omitempty"`
}

// RunBegin asks for a run's session lease (operator).
func (c *Client) RunBegin(ctx context.Context, p RunBeginParams) (RunBeginResult, error) {
	return call[RunBeginParams, RunBeginResult](ctx, c, OpRunBegin, p)
}

// RunConfined records how a run's tree is held (operator).
func (c *Client) RunConfined(ctx context.Context, p RunConfinedParams) error {
	_, err := call[RunConfinedParams, Empty](ctx, c, OpRunConfined, p)
	return err
}

// RunLive asks whether a run's lease may still act (operator).
func (c *Client) RunLive(ctx context.Context, p RunLiveParams) (RunLiveResult, error) {
	return call[RunLiveParams, RunLiveResult](ctx, c, OpRunLive, p)
}

// RunEnd records the end of a run (operator).
func (c *Client) RunEnd(ctx context.Context, p RunEndParams) error {
	_, err := call[RunEndParams, Empty](ctx, c, OpRunEnd, p)
	return err
}

// Egress journals one egress connection (operator).
func (c *Client) Egress(ctx context.Context, p EgressParams) error {
	_, err := call[EgressParams, Empty](ctx, c, OpEgress, p)
	return err
}

// SetRunTicket makes every later message carry a confined run's ticket, so
// that the registry issues the session's lease under the run's.
func (c *Client) SetRunTicket(ticket string) {
	c.mu.Lock()
	c.runTicket = ticket
	c.mu.Unlock()
}
