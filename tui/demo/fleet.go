// Package demo is a simulated fleet of coding agents for `leasedeck demo`.
// It drives the registry's real lifecycle protocol over the workspace
// socket — admit, gate, report, telemetry, finalize — exactly as the
// bridge does for a real client, so what the cockpit shows is the
// registry deciding, not a mock-up: sessions of several clients,
// subagents with child leases, allowed and denied calls, telemetry,
// approval requests that wait for the person at the cockpit, a refused
// manifest, and one scope violation that gets its lease revoked.
package demo

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/leasedeck/leasedeck/registry/wire"
)

// Clients are the agent clients the fleet plays.
var Clients = []string{"claude-code", "codex-cli", "gemini-code-assist"}

// Fleet is the simulated agents.
type Fleet struct {
	Socket string
	// Manifest returns the declared manifest a client presents when a
	// session begins (the workspace's agents/<client>.json).
	Manifest func(client string) (map[string]any, error)
	Agents   int           // how many top-level agents; default 4
	Pace     time.Duration // pause between one agent's steps; default 900 ms
	// MaxWait is how long a call that needs a human waits (the registry
	// also caps it with its approval timeout); default 110 s.
	MaxWait time.Duration
	// Errorf, when set, hears about calls that failed (the registry went
	// away, for instance); the fleet keeps going regardless.
	Errorf func(format string, args ...any)
}

// Run plays the fleet until ctx ends.
func (f *Fleet) Run(ctx context.Context) {
	if f.Agents <= 0 {
		f.Agents = 4
	}
	if f.Pace <= 0 {
		f.Pace = 900 * time.Millisecond
	}
	if f.MaxWait <= 0 {
		f.MaxWait = 110 * time.Second
	}
	var wg sync.WaitGroup
	for i := 0; i < f.Agents; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Stagger the starts so the tree grows one session at a time.
			if !sleep(ctx, time.Duration(i)*f.Pace*3/2) {
				return
			}
			a := &agent{f: f, n: i + 1, client: Clients[i%len(Clients)], script: scripts[i%len(scripts)]}
			a.run(ctx)
		}()
	}
	wg.Wait()
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// agent is one simulated top-level agent and its subagents.
type agent struct {
	f      *Fleet
	n      int
	client string
	script script
	epoch  int // a new session after the previous one was revoked
}

func (a *agent) errorf(format string, args ...any) {
	if a.f.Errorf != nil {
		a.f.Errorf(format, args...)
	}
}

// conn is one socket connection; a gate that waits for a human holds it,
// so every (sub)agent has its own.
func (a *agent) conn(ctx context.Context) (*wire.Client, func(), error) {
	c, err := wire.Dial(a.f.Socket, 2*time.Second)
	if err != nil {
		return nil, nil, err
	}
	stop := context.AfterFunc(ctx, func() { c.Close() })
	return c, func() { stop(); c.Close() }, nil
}

func (a *agent) run(ctx context.Context) {
	for ctx.Err() == nil {
		c, done, err := a.conn(ctx)
		if err != nil {
			a.errorf("agent %d: %v", a.n, err)
			if !sleep(ctx, 3*time.Second) {
				return
			}
			continue
		}
		a.session(ctx, c)
		done()
		// The session ended (revoked, or its lease closed): a new one
		// begins after a pause, as a developer would start it again.
		a.epoch++
		if !sleep(ctx, 4*a.f.Pace) {
			return
		}
	}
}

// session runs the agent's script, then keeps working in small turns
// until its lease can no longer admit it.
func (a *agent) session(ctx context.Context, c *wire.Client) {
	s := &sess{a: a, c: c, id: fmt.Sprintf("demo-%s-%d-%d", a.client, a.n, a.epoch),
		name: fmt.Sprintf("%s #%d", a.client, a.n), purpose: a.script.purpose}
	if a.epoch == 0 {
		if !s.admit(ctx) {
			return
		}
		for _, st := range a.script.steps {
			if !s.do(ctx, st) {
				return
			}
		}
		s.finalize(false)
	}
	for turn := 0; ctx.Err() == nil; turn++ {
		if !s.admit(ctx) {
			return
		}
		for _, st := range idleTurn(turn, a.n) {
			if !s.do(ctx, st) {
				return
			}
		}
		s.finalize(false)
	}
}

// sess is one client session (or a subagent's) in flight.
type sess struct {
	a          *agent
	c          *wire.Client
	id         string // raw session id (the registry keeps only a salted hash)
	parent     string // the parent session, for a subagent
	name       string
	purpose    string
	manifest   map[string]any // nil: the client's declared manifest
	admission  string
	lease      string
	blocked    bool
	capability string // the client session's capability (a subagent's is its parent's)
}

func (s *sess) admit(ctx context.Context) bool {
	man := s.manifest
	if man == nil {
		m, err := s.a.f.Manifest(s.a.client)
		if err != nil {
			s.a.errorf("agent %d: %v", s.a.n, err)
			return false
		}
		man = withPurpose(m, s.purpose)
	}
	res, err := s.c.Admit(ctx, wire.AdmitParams{Client: s.a.client, Session: s.id, ParentSession: s.parent,
		AgentName: s.name, Manifest: wire.DocOf(man), Prompt: "demo prompt: " + s.purpose})
	if err != nil {
		s.a.errorf("%s: admit: %v", s.name, err)
		return false
	}
	if !res.Allowed {
		return false
	}
	if res.Capability != "" {
		// A new client session: its later ops (and its subagents') show
		// the capability the registry handed back, as the hook does.
		s.capability = res.Capability
		s.c.SetCapability(res.Capability)
	}
	s.admission, s.lease = res.AdmissionID, res.LeaseID
	return sleep(ctx, s.a.f.Pace)
}

func (s *sess) finalize(end bool) {
	if s.admission == "" {
		return
	}
	p := wire.FinalizeParams{AdmissionID: s.admission, StopReason: "end_turn", EndSession: end}
	if _, err := s.c.Finalize(context.Background(), p); err != nil {
		s.a.errorf("%s: finalize: %v", s.name, err)
	}
	s.admission = ""
}

// do plays one step; false ends the session (its lease is closed, or the
// registry is gone).
func (s *sess) do(ctx context.Context, st step) bool {
	if ctx.Err() != nil {
		return false
	}
	switch st.kind {
	case stepCall:
		ans, err := s.c.Gate(ctx, wire.GateParams{AdmissionID: s.admission, Tool: st.tool, Input: wire.DocOf(st.input),
			MaxWaitMs: s.a.f.MaxWait.Milliseconds()})
		if err != nil {
			s.a.errorf("%s: gate: %v", s.name, err)
			return false
		}
		switch ans.Verdict {
		case wire.VerdictAllow:
			s.report(st, "ok")
		case wire.VerdictBlock:
			s.blocked = true
			return false
		default:
			s.report(st, "denied")
		}
	case stepUngated:
		// A client whose hook failed open: the tool ran without a gate,
		// and the post-tool report is the first the registry hears of it.
		s.report(st, "ok")
	case stepTelemetry:
		tokens, cost := float64(st.tokens), st.cost
		p := wire.TelemetryParams{AdmissionID: s.admission, Tokens: &tokens, CostUSD: &cost, Source: st.source}
		if _, err := s.c.Telemetry(ctx, p); err != nil {
			s.a.errorf("%s: telemetry: %v", s.name, err)
			return false
		}
	case stepSubagent:
		c, done, err := s.a.conn(ctx)
		if err != nil {
			return false
		}
		sub := &sess{a: s.a, c: c, id: s.id + "/" + st.sub.role, parent: s.id,
			name: st.sub.role, purpose: st.sub.purpose,
			manifest: subManifest(s.a.client, st.sub), capability: s.capability}
		c.SetCapability(s.capability)
		if sub.admit(ctx) {
			for _, x := range st.sub.steps {
				if !sub.do(ctx, x) {
					break
				}
			}
			if !sub.blocked {
				sub.finalize(true)
			}
		}
		done()
	}
	return sleep(ctx, s.a.f.Pace)
}

func (s *sess) report(st step, status string) {
	p := wire.ReportParams{AdmissionID: s.admission, Tool: st.tool, Input: wire.DocOf(st.input), Status: status}
	if _, err := s.c.Report(context.Background(), p); err != nil {
		s.a.errorf("%s: report: %v", s.name, err)
	}
}

// withPurpose copies a declared manifest with another purpose.
func withPurpose(m map[string]any, purpose string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	intent := map[string]any{}
	if in, ok := m["intent"].(map[string]any); ok {
		for k, v := range in {
			intent[k] = v
		}
	}
	intent["purpose"] = purpose
	out["intent"] = intent
	return out
}
