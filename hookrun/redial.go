package hookrun

import (
	"context"
	"errors"

	"github.com/leasedeck/leasedeck/bridge"
	"github.com/leasedeck/leasedeck/handshake"
	"github.com/leasedeck/leasedeck/registry/wire"
)

// maxRedials bounds how often one hook asks again after losing its
// connection: a registry restarted by its supervisor comes back once; one
// that dies on every call is not asked for ever.
const maxRedials = 4

// redialCaller is the hook's bridge.Caller. When the connection is lost
// before an answer (the registry was stopped or crashed mid-call) it dials
// the registry again — verified as the first time, waiting within the
// hook's deadline for one that is coming back — and asks again. A call
// the old registry journaled but could not answer is then asked twice: it
// may be charged twice, it is never allowed without an answer. A registry
// that comes back in another enforcement mode is not asked: the call ends
// with the first error (a gate is refused), since the hook has chosen its
// mode from the first registry's word.
type redialCaller struct {
	t          *Target
	dial       func(ctx context.Context) (*wire.Client, handshake.Answer, error)
	capability string
}

// Caller is the registry client the hook's exchange goes through.
func (t *Target) Caller() bridge.Caller {
	return &redialCaller{t: t, dial: t.redial}
}

// Close closes whichever connection the exchange ended on.
func (t *Target) Close() {
	if t.client != nil {
		t.client.Close()
	}
}

// redo runs do on the target's client, and again on a new connection each
// time the connection is lost before an answer.
func redo[R any](ctx context.Context, r *redialCaller, do func(c *wire.Client) (R, error)) (R, error) {
	out, err := do(r.t.client)
	for n := 0; n < maxRedials && errors.Is(err, wire.ErrConnectionLost) && ctx.Err() == nil; n++ {
		c, hello, derr := r.dial(ctx)
		if derr != nil || hello.Mode != r.t.hello.Mode {
			if c != nil {
				c.Close()
			}
			return out, err
		}
		r.t.client.Close()
		r.t.client = c
		c.SetCapability(r.capability)
		out, err = do(c)
	}
	return out, err
}

func (r *redialCaller) SetCapability(capability string) {
	r.capability = capability
	r.t.client.SetCapability(capability)
}

func (r *redialCaller) Admit(ctx context.Context, p wire.AdmitParams) (wire.AdmitResult, error) {
	return redo(ctx, r, func(c *wire.Client) (wire.AdmitResult, error) { return c.Admit(ctx, p) })
}

func (r *redialCaller) Gate(ctx context.Context, p wire.GateParams) (wire.GateAnswer, error) {
	return redo(ctx, r, func(c *wire.Client) (wire.GateAnswer, error) { return c.Gate(ctx, p) })
}

func (r *redialCaller) Check(ctx context.Context, p wire.CheckParams) (wire.GateAnswer, error) {
	return redo(ctx, r, func(c *wire.Client) (wire.GateAnswer, error) { return c.Check(ctx, p) })
}

func (r *redialCaller) Report(ctx context.Context, p wire.ReportParams) (wire.ReportResult, error) {
	return redo(ctx, r, func(c *wire.Client) (wire.ReportResult, error) { return c.Report(ctx, p) })
}

func (r *redialCaller) Telemetry(ctx context.Context, p wire.TelemetryParams) (wire.TelemetryResult, error) {
	return redo(ctx, r, func(c *wire.Client) (wire.TelemetryResult, error) { return c.Telemetry(ctx, p) })
}

func (r *redialCaller) Finalize(ctx context.Context, p wire.FinalizeParams) (wire.FinalizeResult, error) {
	return redo(ctx, r, func(c *wire.Client) (wire.FinalizeResult, error) { return c.Finalize(ctx, p) })
}

func (r *redialCaller) EndSession(ctx context.Context, p wire.EndSessionParams) (wire.FinalizeResult, error) {
	return redo(ctx, r, func(c *wire.Client) (wire.FinalizeResult, error) { return c.EndSession(ctx, p) })
}

var _ bridge.Caller = (*redialCaller)(nil)
