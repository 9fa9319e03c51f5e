// Package hookrun is one client hook invocation: a client's native hook
// payload on stdin, parsed by the client's adapter, asked of the pinned
// workspace's registry (dialled and verified), and the client's own answer
// on stdout, stderr and the exit code. Both `leasedeck hook` and the lean
// hook binary (cmd/leasedeck-hook) run it, so the hook path has one
// implementation; it imports nothing a hook does not need, which is what
// keeps the lean binary's start-up close to a bare Go program's.
package hookrun

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/leasedeck/leasedeck/bridge"
)

// MaxInput bounds a hook payload. Tool results can be large (a 10 MB
// file read); they are digested, never stored, but must be read whole to
// be hashed.
const MaxInput = 64 << 20

// ReadAllLimited reads r whole, refusing more than limit bytes. With the
// error for a larger input it returns the first limit bytes, which are
// enough to tell which event a hook payload is.
func ReadAllLimited(r io.Reader, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return b[:limit], fmt.Errorf("input is larger than %d MiB", limit>>20)
	}
	return b, nil
}

// Invocation is what a hook command line says: the client, the workspace
// the hook is pinned to and the hook timeout the client was configured
// with (install writes both).
type Invocation struct {
	Client    string
	Workspace string
	Timeout   int // seconds; 0: the client's default
}

// Flags adds the hook's flags to fs, filling inv when fs is parsed.
func (inv *Invocation) Flags(fs *flag.FlagSet) {
	fs.StringVar(&inv.Workspace, "workspace", "", "workspace directory (default: nearest .leasedeck/ upward, or $LEASEDECK_WORKSPACE)")
	fs.IntVar(&inv.Timeout, "timeout", 0, "the hook timeout the client was configured with, in seconds (install writes it)")
}

// Streams are a hook's standard streams.
type Streams struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// ErrUnknownClient names a client no adapter speaks for.
var ErrUnknownClient = bridge.ErrUnknownClient

// Run answers one hook invocation and returns the exit code the client
// expects. Only an unknown client returns an error (a usage error: the
// hook command itself is wrong); every other failure is answered in the
// client's own form, a gate failing closed.
func Run(inv Invocation, s Streams) (int, error) {
	a, err := bridge.AdapterFor(inv.Client)
	if err != nil {
		return 0, err // it wraps ErrUnknownClient and names the known clients
	}
	emit := func(out bridge.Output) int {
		s.Stdout.Write(out.Stdout)
		s.Stderr.Write(out.Stderr)
		return out.ExitCode
	}
	data, rerr := ReadAllLimited(s.Stdin, MaxInput)
	ev, err := a.Parse(data)
	if rerr != nil {
		// Too large to read whole: what its first bytes say it is only
		// decides the form of the refusal (a gate's fails closed).
		err = rerr
	}
	if err != nil {
		// Tell the client in its own form; a gate fails closed (nothing
		// was asked of the registry, so there is no mode but enforce).
		if ev == nil {
			ev = &bridge.Event{Client: a.Name()}
		}
		return emit(bridge.Render(a, ev, bridge.FailVerdict("enforce", ev, "leasedeck could not read the hook payload: "+err.Error()))), nil
	}
	if ev.Op == bridge.OpNone {
		return emit(bridge.Render(a, ev, bridge.Verdict{Kind: bridge.NoOpinion})), nil
	}
	configured := time.Duration(inv.Timeout) * time.Second
	deadline := hookDeadline(a, ev.Native, configured)
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	t := Connect(ctx, inv.Workspace)
	if !t.Connected() {
		return emit(bridge.Render(a, ev, bridge.VerdictFor(ev, Unanswered(ev, t.why)))), nil
	}
	defer t.Close()
	req, err := ev.Request("")
	if err != nil {
		return emit(bridge.Render(a, ev, bridge.FailVerdict(t.Mode(), ev, err.Error()))), nil
	}
	wait := approvalBudget(a, ev.Native, configured, t, deadline)
	resp := bridge.Process(t.Caller(), req, t.Options(ctx, wait))
	return emit(bridge.Render(a, ev, bridge.VerdictFor(ev, resp))), nil
}
