package registry

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/leasedeck/leasedeck/redact"
	"github.com/leasedeck/leasedeck/registry/record"
	"github.com/leasedeck/leasedeck/registry/wire"
)

// Confined runs (`leasedeck run`): the registry's half. A run asks for its
// session lease with the operator token (only the human who started it
// holds that), receives a run ticket, records how its process tree is
// confined, reports its egress connections, polls whether its lease is
// still live and says when it ended. Hook sessions inside the tree carry
// the ticket (RunTicketEnv) and are issued as children of the run's lease;
// a ticket is a 256-bit secret bound to one run, known only to that run's
// tree, so it can neither name another lease nor outlive its run.

// RunTicketEnv is the environment variable a confined tree's hooks read
// their run ticket from.
const RunTicketEnv = wire.RunTicketEnv

// Audit events of confined runs.
const (
	EventRunConfined = "leasedeck.run.confined"
	EventRunEnded    = "leasedeck.run.ended"
	EventEgress      = "leasedeck.egress.connection"
)

// Confinement says whether, and by what, a lease's process tree is held in
// the kernel (the wire's type: views carry it as it is).
type Confinement = wire.Confinement

// runBook holds the runs this registry serves, in memory: a run's tree
// does not outlive its connection to the registry (run stops it when the
// registry goes away), so a restarted registry serves no runs. How each
// run was confined is journaled (leasedeck.run.confined, folded into
// LeaseState.Run), so the record of it outlives the registry.
type runBook struct {
	mu       sync.Mutex
	byLease  map[string]*Confinement
	byTicket map[[32]byte]string // SHA-256 of the ticket → run lease
	pids     map[string]int      // run lease → the run process (the tree's root)
}

func (b *runBook) add(lease string, ticket [32]byte, pid int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.byLease == nil {
		b.byLease, b.byTicket, b.pids = map[string]*Confinement{}, map[[32]byte]string{}, map[string]int{}
	}
	b.byLease[lease] = &Confinement{RunLeaseID: lease, Reason: "the run has not reported its confinement yet"}
	b.byTicket[ticket] = lease
	b.pids[lease] = pid
}

// rootOf is the run process of a run's lease (0: not told).
func (b *runBook) rootOf(lease string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.pids[lease]
}

// runOf answers the live run whose tree holds the process pid ("" when
// none does, or pid is unknown).
func (b *runBook) runOf(pid int) string {
	if pid <= 0 {
		return ""
	}
	b.mu.Lock()
	live := map[string]int{}
	for lease, root := range b.pids {
		if c := b.byLease[lease]; c != nil && !c.Ended && root > 0 {
			live[lease] = root
		}
	}
	b.mu.Unlock()
	for lease, root := range live {
		if pid == root || descendsFrom(pid, root) {
			return lease
		}
	}
	return ""
}

// leaseFor answers the live run lease a ticket names.
func (b *runBook) leaseFor(ticket string) (string, bool) {
	// Looked up by the ticket's hash: the lookup's timing says nothing
	// about the ticket itself.
	sum := sha256.Sum256([]byte(ticket))
	b.mu.Lock()
	defer b.mu.Unlock()
	lease, ok := b.byTicket[sum]
	if !ok {
		return "", false
	}
	c := b.byLease[lease]
	return lease, c != nil && !c.Ended
}

func (b *runBook) get(lease string) (Confinement, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.byLease[lease]
	if c == nil {
		return Confinement{}, false
	}
	return *c, true
}

func (b *runBook) update(lease string, fn func(*Confinement)) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.byLease[lease]
	if c == nil {
		return false
	}
	fn(c)
	return true
}

// confinementLocked is the confinement of id's nearest ancestor-or-self
// that is a run's lease: the live run's own record while this registry
// serves it (it knows a run before the run reports), else what the
// journal says (a run before a restart). The caller holds s.mu.
func (s *Service) confinementLocked(id string) *Confinement {
	for cur, hops := id, 0; cur != "" && hops < 64; hops++ {
		if c, ok := s.runs.get(cur); ok {
			return &c
		}
		l := s.st.Leases[cur]
		if l == nil {
			return nil
		}
		if l.Run != nil {
			c := *l.Run
			return &c
		}
		cur = l.ParentID
	}
	return nil
}

// runParent resolves a hook session's run ticket to the lease its
// session must be issued under. A session that already has a live lease
// outside that run is refused: a tree must not borrow another's lease.
func (s *Service) runParent(ticket, existingLease string) (string, error) {
	if ticket == "" {
		return "", nil
	}
	run, ok := s.runs.leaseFor(ticket)
	if !ok {
		return "", fmt.Errorf("%w: the run ticket names no running confined run", ErrNotAllowed)
	}
	if existingLease != "" {
		s.mu.Lock()
		under := existingLease == run
		for _, a := range s.st.Chain(existingLease) {
			under = under || a == run
		}
		s.mu.Unlock()
		if !under {
			return "", fmt.Errorf("%w: the session already holds a lease outside this run", ErrNotAllowed)
		}
	}
	return run, nil
}

// peerKey carries a connection's peer process id in its context.
type peerKey struct{}

func peerOf(ctx context.Context) int {
	pid, _ := ctx.Value(peerKey{}).(int)
	return pid
}

// checkPeerTicket holds a session op to the run its caller runs in: a
// process inside a confined run's tree must present that run's ticket (it
// cannot drop the ticket to get a lease outside the run), and a ticket
// works only inside its own run's tree (it cannot be carried out of it).
// A run that did not say its process id is held by its ticket alone.
func (s *Service) checkPeerTicket(c *call) *wire.Error {
	inside := s.runs.runOf(c.peer)
	ticket := c.env.RunTicket
	if ticket == "" {
		if inside != "" {
			return wire.Errorf(wire.NotAllowed, "the caller runs inside the confined run of lease %s but presents no run ticket", record.ShortID(inside))
		}
		return nil
	}
	run, ok := s.runs.leaseFor(ticket)
	if !ok {
		return wire.Errorf(wire.NotAllowed, "the run ticket names no running confined run")
	}
	if c.peer > 0 && s.runs.rootOf(run) > 0 && inside != run {
		return wire.Errorf(wire.NotAllowed, "the run ticket of lease %s is presented from outside that run's process tree", record.ShortID(run))
	}
	return nil
}

// checkIssueInRun: a process inside a confined run's tree issues leases
// only under the run's lease or a lease beneath it.
func (s *Service) checkIssueInRun(c *call, parent string) *wire.Error {
	run := s.runs.runOf(c.peer)
	if run == "" {
		return nil
	}
	if parent != "" {
		s.mu.Lock()
		under := parent == run || slices.Contains(s.st.Chain(parent), run)
		s.mu.Unlock()
		if under {
			return nil
		}
	}
	return wire.Errorf(wire.NotAllowed, "inside the confined run of lease %s, leases are issued only under the run's lease", record.ShortID(run))
}

// opRunBegin issues the run's session lease from the declared manifest
// and answers it with a fresh run ticket.
func (h *Handler) opRunBegin(_ context.Context, _ *call, p *wire.RunBeginParams) (wire.RunBeginResult, *wire.Error) {
	m, ok := p.Manifest.V.(map[string]any)
	if !ok {
		return wire.RunBeginResult{}, bad("run_begin needs the client's declared manifest in /manifest")
	}
	s := h.svc
	res, err := s.Issue(m, "")
	if err != nil && res.Status == "" {
		return wire.RunBeginResult{}, mapErr(err)
	}
	if res.Status != Granted {
		return wire.RunBeginResult{Issue: issueOut(res)}, nil
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return wire.RunBeginResult{}, wire.Errorf(wire.Internal, "no randomness for a run ticket")
	}
	ticket := hex.EncodeToString(b)
	s.runs.add(res.LeaseID, sha256.Sum256([]byte(ticket)), p.PID)
	return wire.RunBeginResult{Issue: issueOut(res), Ticket: ticket}, nil
}

// opRunConfined records how the run's tree is held.
func (h *Handler) opRunConfined(_ context.Context, _ *call, p *wire.RunConfinedParams) (wire.Empty, *wire.Error) {
	c := p.Confinement
	c.Network, c.Reason, c.RunLeaseID, c.Ended = redact.OneLine(c.Network, 200), redact.OneLine(c.Reason, 300), p.LeaseID, false
	s := h.svc
	if !s.runs.update(p.LeaseID, func(cur *Confinement) { *cur = c }) {
		return wire.Empty{}, noRun(p.LeaseID)
	}
	details := map[string]any{"lease_id": p.LeaseID, "confined": c.Confined, "landlock_abi": int64(c.LandlockABI),
		"mount_namespace": c.MountNamespace, "narrowed_hierarchies": int64(c.Narrowed), "network": c.Network}
	if c.Reason != "" {
		details["reason"] = c.Reason
	}
	if err := s.appendAudit(runAudit(EventRunConfined, s.Now(), "run confined: "+describeConfinement(c), details)); err != nil {
		return wire.Empty{}, mapErr(err)
	}
	return wire.Empty{}, nil
}

// runAudit builds a run's audit event: the vocabulary's members where it
// has them (lease_id, client), the rest as the event's own flat scalars.
func runAudit(event string, at time.Time, summary string, details map[string]any) record.Audit {
	d := record.Details{Extra: map[string]any{}}
	for k, v := range details {
		if str, ok := v.(string); ok && (k == "lease_id" || k == "client") {
			d.SetString(k, str)
			continue
		}
		d.Extra[k] = v
	}
	return record.NewAudit(event, at, summary, d)
}

func noRun(lease string) *wire.Error {
	return wire.Errorf(wire.UnknownLease, "no run holds lease %s", lease)
}

func describeConfinement(c Confinement) string {
	if !c.Confined {
		return "UNCONFINED (hooks only): " + c.Reason
	}
	parts := []string{fmt.Sprintf("Landlock ABI %d", c.LandlockABI)}
	if c.MountNamespace {
		parts = append(parts, "mount namespace")
	}
	if c.Narrowed > 0 {
		parts = append(parts, fmt.Sprintf("%d narrowed hierarchies", c.Narrowed))
	}
	if c.Network != "" {
		parts = append(parts, "network: "+c.Network)
	}
	return strings.Join(parts, ", ")
}

// opRunLive answers whether the run's lease may still act: live, not
// expired, not revoked on its chain, and with budget left.
func (h *Handler) opRunLive(_ context.Context, _ *call, p *wire.RunLiveParams) (wire.RunLiveResult, *wire.Error) {
	s := h.svc
	now := s.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st.Leases[p.LeaseID] == nil {
		return wire.RunLiveResult{}, wire.Errorf(wire.UnknownLease, "unknown lease %s", p.LeaseID)
	}
	live, why := s.st.Live(p.LeaseID, now)
	if live {
		rem := s.st.Remaining(p.LeaseID, now)
		for _, f := range []BudgetField{Steps, Tokens, CostUSD} {
			if left, ok := rem.Get(f); ok && left <= 0 {
				live, why = false, fmt.Sprintf("budget %s is spent on this lease's chain", f)
			}
		}
	}
	return wire.RunLiveResult{Live: live, Reason: why}, nil
}

// opRunEnd records the end of a run, closes its ticket and completes its
// lease when it is still open.
func (h *Handler) opRunEnd(_ context.Context, _ *call, p *wire.RunEndParams) (wire.Empty, *wire.Error) {
	s := h.svc
	if !s.runs.update(p.LeaseID, func(c *Confinement) { c.Ended = true }) {
		return wire.Empty{}, noRun(p.LeaseID)
	}
	reason := redact.OneLine(p.Reason, 300)
	details := map[string]any{"lease_id": p.LeaseID, "exit_code": int64(p.ExitCode), "stopped": p.Stopped, "reason": reason}
	if err := s.appendAudit(runAudit(EventRunEnded, s.Now(), "confined run ended: "+reason, details)); err != nil {
		return wire.Empty{}, mapErr(err)
	}
	if ok, _ := s.Live(p.LeaseID); ok {
		if err := s.Finish(p.LeaseID, Completed, reason); err != nil {
			return wire.Empty{}, mapErr(err)
		}
	}
	return wire.Empty{}, nil
}

// opEgress journals one connection of a run's egress proxy.
func (h *Handler) opEgress(_ context.Context, _ *call, p *wire.EgressParams) (wire.Empty, *wire.Error) {
	s := h.svc
	if _, ok := s.runs.get(p.LeaseID); !ok {
		return wire.Empty{}, noRun(p.LeaseID)
	}
	if p.Phase != "decided" && p.Phase != "closed" {
		return wire.Empty{}, bad(`egress needs phase "decided" or "closed"`)
	}
	host := redact.OneLine(p.Host, 253)
	details := map[string]any{"lease_id": p.LeaseID, "host": host, "port": int64(p.Port), "method": redact.OneLine(p.Method, 16),
		"allowed": p.Allowed, "phase": p.Phase, "bytes_up": p.BytesUp, "bytes_down": p.BytesDown}
	verdict := "allowed"
	if !p.Allowed {
		verdict = "refused"
		details["reason"] = redact.OneLine(p.Reason, 300)
	}
	summary := fmt.Sprintf("egress %s %s:%d %s", p.Phase, host, p.Port, verdict)
	if err := s.appendAudit(runAudit(EventEgress, s.Now(), summary, details)); err != nil {
		return wire.Empty{}, mapErr(err)
	}
	return wire.Empty{}, nil
}
