package hookrun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/leasedeck/leasedeck/bridge"
	"github.com/leasedeck/leasedeck/handshake"
	"github.com/leasedeck/leasedeck/registry/wire"
	"github.com/leasedeck/leasedeck/workspace/locate"
)

// EnvRegistryPID is how `leasedeck run` tells its tree's hooks which
// process the registry it checked is.
const EnvRegistryPID = "LEASEDECK_REGISTRY_PID"

func runRegistryPID() int {
	n, err := strconv.Atoi(os.Getenv(EnvRegistryPID))
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// restartGrace is how long a hook waits for a registry socket to appear
// when no process holds the registry lock (a registry about to be
// restarted); while one holds it (a registry replaying its journal), the
// hook waits up to its deadline.
const restartGrace = 2 * time.Second

// Target is what a hook or bridge invocation talks to: a connection to
// the pinned workspace's registry, verified (package handshake), and what
// the registry answered about the policy in force. Nothing in it comes
// from a file an agent can write.
type Target struct {
	client *wire.Client
	target handshake.Target // what client was dialled to, to dial again
	ws     locate.Place
	hello  handshake.Answer
	why    string // why there is no client
}

// Connected reports whether a verified registry answered.
func (t *Target) Connected() bool { return t.client != nil }

// Why says why there is no connection (empty when Connected).
func (t *Target) Why() string { return t.why }

// Mode is the enforcement mode the registry answered with. Without an
// answer there is no mode but enforce: an absent registry is never
// "observe".
func (t *Target) Mode() string {
	if t.client != nil && t.hello.Mode == "observe" {
		return "observe"
	}
	return "enforce"
}

// ApprovalTimeout is the registry's approval timeout (0: unknown).
func (t *Target) ApprovalTimeout() time.Duration {
	return time.Duration(t.hello.ApprovalTimeoutMs) * time.Millisecond
}

// Options are the bridge exchange's options for this registry.
func (t *Target) Options(ctx context.Context, maxWait time.Duration) bridge.ProcessOptions {
	// No manifest from the workspace: the registry issues a session's
	// lease from its own copy of agents/<client>.json.
	var caps bridge.Capabilities = bridge.CapabilityFiles{Dir: t.ws.CapabilityDir()}
	if os.Getenv(wire.RunTicketEnv) != "" {
		// Inside a confined run the run ticket is the tree's capability,
		// and the state directory is hidden from the tree.
		caps = nil
	}
	return bridge.ProcessOptions{Mode: t.Mode(), MaxWait: maxWait, Context: ctx, Capabilities: caps}
}

// pinnedWorkspace is the workspace a hook is bound to: --workspace (which
// install writes into the hook command) or $LEASEDECK_WORKSPACE — both
// set by the human, in the client's configuration or environment. It is
// never looked for from a directory, which the agent chooses (a planted
// src/.leasedeck/ and a call whose cwd is src).
func pinnedWorkspace(flagValue string) (locate.Place, error) {
	if flagValue == "" && os.Getenv(locate.EnvWorkspace) == "" {
		return locate.Place{}, errors.New("this hook is not pinned to a workspace (no --workspace, no $" + locate.EnvWorkspace +
			"); run 'leasedeck install' again in the workspace, which writes --workspace into the hook command")
	}
	return locate.Find(flagValue, "")
}

// Connect dials the pinned workspace's registry and verifies it,
// all before deadline. No workspace, no registry, or a process that is
// not the registry leaves client nil with why.
func Connect(ctx context.Context, flagValue string) *Target {
	t := &Target{}
	w, err := pinnedWorkspace(flagValue)
	if err != nil {
		t.why = err.Error()
		return t
	}
	t.ws = w
	// A hook asks one thing at a time and its context ends only at its
	// deadline: a blocking socket waits for each answer in the kernel.
	target := handshake.Target{Workspace: w.Root, Socket: w.SocketPath(), Lock: w.LockPath(), Blocking: true}
	key, err := w.LoadHandshakeKey()
	switch {
	case err == nil:
		target.Key = key
	case os.Getenv(wire.RunTicketEnv) != "" && runRegistryPID() > 0:
		// Inside a confined run the secret is hidden from the tree (and
		// so from this hook) and the state directory is not writable, so
		// nothing in the tree can bind the socket: the kernel's word that
		// the peer is the registry `leasedeck run` checked suffices.
		target.PeerPID = runRegistryPID()
	default:
		t.why = fmt.Sprintf("cannot check that the registry of %s is the real one: %v", w.Root, err)
		return t
	}
	t.target = target
	c, hello, err := t.redial(ctx)
	if err != nil {
		// Not running, not the real one, hung or refusing: each denies,
		// and the reason says which for the human who reads it.
		t.why = handshake.Explain(err, w.Root)
		return t
	}
	t.hello, t.client = hello, c
	return t
}

// redial connects to the target's registry and verifies it, waiting
// within ctx for one that is starting or restarting, and returns a client
// bound by ctx's deadline.
func (t *Target) redial(ctx context.Context) (*wire.Client, handshake.Answer, error) {
	conn, hello, err := t.target.Dial(ctx, restartGrace)
	if err != nil {
		return nil, hello, err
	}
	// The handshake's connection reads through its own 4 KiB buffer.
	c := wire.NewClientSize(conn, 4<<10)
	// Under `leasedeck run`, the run's ticket makes this session a child
	// of the run's lease.
	c.SetRunTicket(os.Getenv(wire.RunTicketEnv))
	if d, ok := ctx.Deadline(); ok {
		c.SetDeadline(d)
	}
	return c, hello, nil
}

// hookDeadline is when a hook's whole exchange must be over: the
// client's hook timeout (as configured, or the client's default) less
// the same margin an approval wait keeps, so a hook that gets no answer
// denies before the client gives up on it (and fails open). A hook the
// client gives only a moment (Codex's SessionEnd and Interrupt: 1 s, at
// most 3 s; Claude Code's SessionEnd: 1.5 s) has no time for a human but
// still has half of it for the registry: with the margin alone it had
// none, never reached the registry, and the session's lease outlived
// the session.
func hookDeadline(a bridge.Adapter, native string, configured time.Duration) time.Time {
	w := bridge.ApprovalWait(a, native, configured, 0)
	if half := bridge.HookTimeout(a, native, configured) / 2; w < half {
		w = half
	}
	return time.Now().Add(w)
}

// approvalBudget is how long a held call may wait for a human: the
// registry's approval timeout, within what is left before deadline (less
// a moment to answer).
func approvalBudget(a bridge.Adapter, native string, configured time.Duration, t *Target, deadline time.Time) time.Duration {
	wait := bridge.ApprovalWait(a, native, configured, t.ApprovalTimeout())
	if left := time.Until(deadline) - 500*time.Millisecond; left < wait {
		wait = max(left, time.Millisecond)
	}
	return wait
}

// Unanswered is the response when no registry answered (none is running,
// it did not answer in time, or the process on the socket is not it): a
// gate or a new turn is denied whatever mode the workspace is in, since
// only the registry can say the workspace observes; anything else is an
// error the client shows.
func Unanswered(ev *bridge.Event, why string) bridge.Response {
	r := bridge.Unreachable("enforce", ev)
	if r.Decision == bridge.DecisionDeny {
		r.Reason = why + "; the leasedeck registry is not reachable, and without its answer the call is refused (in every enforcement mode); " + bridge.StartHint
		return r
	}
	r.Reason = why + "; " + r.Reason
	return r
}
