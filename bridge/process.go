package bridge

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/leasedeck/leasedeck/registry/wire"
)

// Caller is what Process needs of the registry: the session ops of the
// socket protocol. *wire.Client implements it.
type Caller interface {
	Admit(ctx context.Context, p wire.AdmitParams) (wire.AdmitResult, error)
	Gate(ctx context.Context, p wire.GateParams) (wire.GateAnswer, error)
	Check(ctx context.Context, p wire.CheckParams) (wire.GateAnswer, error)
	Report(ctx context.Context, p wire.ReportParams) (wire.ReportResult, error)
	Telemetry(ctx context.Context, p wire.TelemetryParams) (wire.TelemetryResult, error)
	Finalize(ctx context.Context, p wire.FinalizeParams) (wire.FinalizeResult, error)
	EndSession(ctx context.Context, p wire.EndSessionParams) (wire.FinalizeResult, error)
	// SetCapability makes later calls present a session capability.
	SetCapability(capability string)
}

// ProcessOptions carries what the bridge knows beside the request.
type ProcessOptions struct {
	// Mode is the enforcement mode the registry answered with: "enforce"
	// or "observe" (never read from a file an agent can write).
	Mode string
	// Context bounds the whole exchange (the hook's deadline, below the
	// client's own hook timeout); nil: no bound but the connection's.
	Context context.Context
	// Manifest returns the declared manifest for a client's new session
	// lease (agents/<runtime_agent>.json).
	Manifest func(runtimeAgent string) (any, error)
	// MaxWait caps how long a call that needs a human may wait: below
	// the client's own hook timeout, so a held call ends in an explicit
	// deny rather than a client-side timeout that fails open.
	MaxWait time.Duration
	// Capabilities keeps client sessions' capabilities between hook
	// processes; nil keeps none (every session op of an existing session
	// is then refused).
	Capabilities Capabilities
}

// RuntimeAgent maps an adapter (or lifecycle client) name to the
// contract's runtime_agent, which names agents/<file>.json.
func RuntimeAgent(client string) string {
	switch client {
	case "claude-code":
		return "claude-code"
	case "codex", "codex-cli":
		return "codex-cli"
	case "gemini", "gemini-cli", "gemini-code-assist":
		return "gemini-code-assist"
	case "vscode", "copilot", "copilot-cli", "github-copilot":
		return "github-copilot"
	}
	return client
}

// session keys: a subagent is its own session under its parent's.
func sessionKeys(req Request) (session, parent, agentName string) {
	session = req.Session
	if req.Hook != nil && req.Hook.AgentID != "" {
		parent = req.Session
		session = req.Session + "/agent/" + req.Hook.AgentID
		agentName = "subagent " + nonEmpty(req.Hook.AgentType, req.Hook.AgentID)
	}
	return
}

func clientOf(req Request) string {
	if req.Hook != nil && req.Hook.Client != "" {
		return req.Hook.Client
	}
	return req.Client
}

// integrationMode is the strongest mode this request can claim: the
// declared one, downgraded (never upgraded) by observe mode.
func integrationMode(req Request, mode string) string {
	rank := map[string]int{"casan_owned": 4, "managed_hook": 3, "project_hook": 2, "observed_only": 1}
	m := req.IntegrationMode
	if rank[m] == 0 || rank[m] > rank["project_hook"] {
		m = "project_hook" // a hook the project installed is what we run as
	}
	if mode == "observe" {
		m = "observed_only"
	}
	return m
}

// Process carries one lifecycle request to the registry and answers it.
// It never returns a schema-invalid response: failures become `error`
// (or, for a gate in enforce mode, `deny`) with a reason.
func Process(c Caller, req Request, opts ProcessOptions) Response {
	resp := Response{Op: string(req.Op), SchemaVersion: SchemaVersion, IntegrationMode: integrationMode(req, opts.Mode)}
	resp.CertificationStrength = resp.IntegrationMode
	p := &process{ctx: opts.ctx(), c: c, req: req, opts: opts, resp: resp}
	if opts.Capabilities != nil && req.Session != "" {
		// Subagents act with their client session's capability.
		c.SetCapability(opts.Capabilities.Load(req.Session))
	}
	switch req.Op {
	case OpBegin:
		return p.begin()
	case OpPreTool:
		return p.preTool()
	case OpPostTool:
		return p.postTool()
	case OpTelemetry:
		return p.telemetry()
	case OpFinalize, OpAbort:
		if req.Op == OpFinalize && req.Hook != nil && (req.Hook.SessionEnd || req.Hook.Child) {
			return p.endSession()
		}
		return p.finalize()
	}
	return p.fail(fmt.Errorf("unknown op %q", req.Op))
}

func (o ProcessOptions) ctx() context.Context {
	if o.Context != nil {
		return o.Context
	}
	return context.Background()
}

// process is one lifecycle request on its way through the registry.
type process struct {
	ctx  context.Context
	c    Caller
	req  Request
	opts ProcessOptions
	resp Response
}

// fail answers a request the registry could not serve: a pre-tool is
// denied (blocked when the session's lease is closed), anything else is
// an error response.
func (p *process) fail(err error) Response {
	resp := p.resp
	var re *wire.Error
	msg := err.Error()
	if errors.As(err, &re) {
		msg = re.Message
	}
	if p.req.Op == OpPreTool {
		resp.Decision, resp.Reason = DecisionDeny, "leasedeck could not decide, so the call is refused: "+msg
		if re != nil && re.Code == wire.Closed {
			resp.Decision, resp.Reason = DecisionBlock, msg // the session's lease cannot act any more
		}
		// Observe mode lets a call run when the registry answered with an
		// error; no answer at all is a deny in every mode.
		if p.opts.Mode == "observe" && re != nil {
			resp.Decision, resp.Warnings = DecisionAllow, []string{"observe mode: " + msg}
		}
		return resp
	}
	e := ErrorResponse(string(p.req.Op), msg)
	e.IntegrationMode, e.CertificationStrength = resp.IntegrationMode, resp.CertificationStrength
	return e
}

func (p *process) begin() Response {
	req, resp := p.req, p.resp
	// A session (or subagent) starting gets its lease and its scope, but
	// no turn: the turn begins with its prompt, so no admission is left
	// open that nothing will ever finalize.
	sessionOnly := req.Hook != nil && (req.Hook.Event == "SessionStart" || req.Hook.Child) && req.Prompt == ""
	res, err := admitWith(p.c, req, p.opts, false, sessionOnly)
	if err != nil {
		return p.fail(err)
	}
	resp.AdmissionID = res.AdmissionID
	if !res.Allowed {
		resp.Decision, resp.Reason = DecisionBlock, res.Reason
		return resp
	}
	resp.Decision, resp.Context = DecisionAllow, res.Context
	return resp
}

func (p *process) preTool() Response {
	req, resp, opts := p.req, p.resp, p.opts
	input, _ := req.ToolInput.(map[string]any)
	// The summary a human reads is derived by the registry from the call
	// itself (redacted), never taken from the caller: none is sent, and
	// the hook process never loads the secret detectors.
	call := wire.GateParams{Tool: req.Tool, Input: wire.DocOf(input), MaxWaitMs: opts.MaxWait.Milliseconds()}
	if h := req.Hook; h != nil {
		call.ClientPrompt, call.ToolUseID = clientPrompt(h.Client, h.Event), h.ToolUseID
	}
	if req.AdmissionID == "" && !(req.Hook != nil && req.Hook.PermissionPhase) {
		// One round trip: the registry resolves the session's turn.
		bySession := call
		bySession.Session, bySession.ParentSession, bySession.AgentName = sessionKeys(req)
		bySession.Client = clientOf(req)
		ans, err := p.c.Gate(p.ctx, bySession)
		if err == nil {
			return gateResponse(resp, ans, opts.Mode)
		}
		// Only a session the registry has no lease for (or a subagent
		// whose parent it has none for, or one another hook process began
		// a moment ago) goes the long way round.
		if code := wire.CodeOf(err); code != wire.NeedsManifest && code != wire.UnknownParent && code != wire.WrongSession {
			return p.fail(err)
		}
	}
	aid, err := admissionFor(p.c, req, opts)
	if err != nil {
		return p.fail(err)
	}
	resp.AdmissionID = aid
	call.AdmissionID = aid
	if req.Hook != nil && req.Hook.PermissionPhase {
		// The same call went through PreToolUse: decide again without
		// charging a second step, and hold for a human only if needed.
		dry, err := p.c.Check(p.ctx, wire.CheckParams(call))
		if err != nil {
			return p.fail(err)
		}
		if dry.Verdict != wire.VerdictAsk || dry.AskedIn == "client" {
			// Asked in the client: its PreToolUse already recorded and
			// charged the call; its own prompt decides it now.
			return gateResponse(resp, dry, opts.Mode)
		}
	}
	ans, err := p.c.Gate(p.ctx, call)
	if err != nil {
		return p.fail(err)
	}
	return gateResponse(resp, ans, opts.Mode)
}

func (p *process) postTool() Response {
	req, resp := p.req, p.resp
	input, _ := req.ToolInput.(map[string]any)
	rp := wire.ReportParams{Tool: req.Tool, Input: wire.DocOf(input), Status: req.Status}
	if req.Hook != nil {
		rp.ToolUseID = req.Hook.ToolUseID
	}
	if d, ok := req.Result.(*ResultDigest); ok && d != nil {
		rp.ResultHash = d.SHA256
	} else if m, ok := req.Result.(map[string]any); ok {
		if h, ok := m["sha256"].(string); ok {
			rp.ResultHash = h
		}
	}
	rep, err := p.reportBySession(rp)
	if err != nil || rep == nil {
		if err != nil {
			return p.fail(err)
		}
		aid, err := admissionFor(p.c, req, p.opts)
		if err != nil {
			return p.fail(err)
		}
		resp.AdmissionID, rp.AdmissionID = aid, aid
		r, err := p.c.Report(p.ctx, rp)
		if err != nil {
			return p.fail(err)
		}
		rep = &r
	}
	resp.Decision = DecisionRecorded
	if rep.Violation {
		resp.Reason = rep.Reason + "; the lease is revoked"
		resp.Warnings = append(resp.Warnings, resp.Reason)
	}
	return resp
}

// reportBySession reports under the session's current turn in one round
// trip, as the gate does. It answers nil, nil when the request names an
// admission, or the registry has no lease for the session (or its parent)
// yet, or another hook process began it a moment ago: those go the long
// way round, through admit.
func (p *process) reportBySession(rp wire.ReportParams) (*wire.ReportResult, error) {
	if p.req.AdmissionID != "" {
		return nil, nil
	}
	rp.Session, rp.ParentSession, rp.AgentName = sessionKeys(p.req)
	rp.Client = clientOf(p.req)
	rep, err := p.c.Report(p.ctx, rp)
	if err == nil {
		return &rep, nil
	}
	if code := wire.CodeOf(err); code == wire.NeedsManifest || code == wire.UnknownParent || code == wire.WrongSession {
		return nil, nil
	}
	return nil, err
}

func (p *process) telemetry() Response {
	req, resp := p.req, p.resp
	aid, err := admissionFor(p.c, req, p.opts)
	if err != nil {
		return p.fail(err)
	}
	resp.AdmissionID = aid
	tp := wire.TelemetryParams{AdmissionID: aid, Source: req.CostSource, Tokens: sumTokens(req)}
	if req.CostAmount != nil && (req.CostCurrency == "" || strings.EqualFold(req.CostCurrency, "USD")) {
		tp.CostUSD = req.CostAmount
	}
	out, err := p.c.Telemetry(p.ctx, tp)
	if err != nil {
		return p.fail(err)
	}
	resp.Decision, resp.Warnings = DecisionRecorded, out.Warnings
	if req.CostAmount != nil && req.CostCurrency != "" && !strings.EqualFold(req.CostCurrency, "USD") {
		resp.Warnings = append(resp.Warnings, "cost in "+req.CostCurrency+" is not charged: budgets are in USD")
	}
	return resp
}

// endSession: the session (or subagent) is over. Its open turn, if it
// has one, is finalized and its lease completed, without inventing an
// empty turn to certify.
func (p *process) endSession() Response {
	req, resp := p.req, p.resp
	session, _, _ := sessionKeys(req)
	if req.Hook.Child && sumTokens(req) != nil {
		// The subagent's usage (its own transcript) goes on its turn; one
		// that made no call gets a turn that carries it.
		if aid, err := admissionFor(p.c, req, p.opts); err == nil {
			resp.Warnings = append(resp.Warnings, turnTelemetry(p.c, req, aid)...)
		}
	}
	fin, err := p.c.EndSession(p.ctx, wire.EndSessionParams{Session: session, StopReason: req.StopReason})
	if err != nil {
		return p.fail(err)
	}
	if req.Hook.SessionEnd && !req.Hook.Child && p.opts.Capabilities != nil {
		p.opts.Capabilities.Forget(req.Session)
	}
	return certification(resp, fin)
}

func (p *process) finalize() Response {
	req, resp := p.req, p.resp
	aid, err := admissionFor(p.c, req, p.opts)
	if err != nil {
		return p.fail(err)
	}
	resp.AdmissionID = aid
	if req.Op == OpFinalize {
		resp.Warnings = append(resp.Warnings, turnTelemetry(p.c, req, aid)...)
	}
	end := req.Hook != nil && (req.Hook.SessionEnd || req.Hook.Child)
	stop := req.StopReason
	if req.Op == OpAbort {
		stop = req.Reason
	}
	fin, err := p.c.Finalize(p.ctx, wire.FinalizeParams{AdmissionID: aid, StopReason: stop,
		EndSession: end, Aborted: req.Op == OpAbort})
	if err != nil {
		return p.fail(err)
	}
	if req.Op == OpAbort {
		resp.TelemetryQuality = fin.TelemetryQuality
		resp.Decision, resp.Reason = DecisionRecorded, "aborted: "+nonEmpty(req.Reason, "no reason given")
		return resp
	}
	return certification(resp, fin)
}

// certification answers a finalized turn: certified, or non_certified
// with the reasons; never certified in observe mode.
func certification(resp Response, fin wire.FinalizeResult) Response {
	resp.TelemetryQuality = fin.TelemetryQuality
	resp.Decision = DecisionCertified
	if !fin.Certified {
		resp.Decision, resp.Reason = DecisionNonCertified, strings.Join(fin.Reasons, "; ")
	}
	if resp.IntegrationMode == "observed_only" && resp.Decision == DecisionCertified {
		resp.Decision, resp.Reason = DecisionNonCertified, "observe mode: nothing was enforced"
	}
	return resp
}

func gateResponse(resp Response, ans wire.GateAnswer, mode string) Response {
	resp.Reason = ans.Reason
	switch ans.Verdict {
	case wire.VerdictAllow:
		resp.Decision = DecisionAllow
	case wire.VerdictBlock:
		resp.Decision = DecisionBlock
	default:
		resp.Decision = DecisionDeny
	}
	if ans.Verdict == wire.VerdictAsk && ans.AskedIn == "client" {
		// The client's own prompt decides: in observe mode too, since
		// that is what the client would have done without leasedeck.
		resp.AskInClient = true
		return resp
	}
	if mode == "observe" && resp.Decision != DecisionAllow {
		resp.Warnings = append(resp.Warnings, "observe mode: leasedeck would have answered "+string(resp.Decision)+": "+ans.Reason)
		resp.Decision = DecisionAllow
	}
	return resp
}

func sumTokens(req Request) *float64 {
	var n float64
	any := false
	for _, p := range []*int64{req.InputTokens, req.OutputTokens, req.CacheTokens} {
		if p != nil {
			n += float64(*p)
			any = true
		}
	}
	if !any {
		return nil
	}
	return &n
}

// admit starts (or, with resume, continues) the turn of the request's
// session, issuing the session's lease on its first turn. A subagent
// whose parent session is not known yet gets the parent admitted first
// (hooks installed mid-session).
func admit(c Caller, req Request, opts ProcessOptions, resume bool) (wire.AdmitResult, error) {
	return admitWith(c, req, opts, resume, false)
}

func admitWith(c Caller, req Request, opts ProcessOptions, resume, noTurn bool) (wire.AdmitResult, error) {
	ctx := opts.ctx()
	session, parent, name := sessionKeys(req)
	if session == "" {
		return wire.AdmitResult{}, errors.New("the request names no client session")
	}
	client := clientOf(req)
	var manifest any
	if opts.Manifest != nil {
		m, err := opts.Manifest(RuntimeAgent(client))
		if err != nil {
			return wire.AdmitResult{}, err
		}
		manifest = m
	}
	p := wire.AdmitParams{Client: client, Session: session, Manifest: wire.DocOf(manifest),
		Prompt: req.Prompt, Turn: req.Turn, Resume: resume, NoTurn: noTurn}
	if parent != "" {
		p.ParentSession, p.AgentName = parent, name
	}
	res, err := c.Admit(ctx, p)
	if wire.CodeOf(err) == wire.WrongSession && opts.Capabilities != nil {
		// Another hook process of the same client may have begun the
		// session a moment ago: its capability is stored by now. One more
		// try with it; a session that is not ours is refused again.
		if capability := opts.Capabilities.Load(nonEmpty(parent, session)); capability != "" {
			c.SetCapability(capability)
			res, err = c.Admit(ctx, p)
		}
	}
	if parent != "" && wire.CodeOf(err) == wire.UnknownParent {
		// Hooks installed mid-session: the parent's turn began before
		// leasedeck saw it. Admit the parent, then the subagent again.
		pres, perr := c.Admit(ctx, wire.AdmitParams{Client: client, Session: parent, Manifest: wire.DocOf(manifest), Resume: true})
		if perr != nil {
			return pres, perr
		}
		if perr := keepCapability(c, opts, parent, pres.Capability); perr != nil {
			return pres, perr
		}
		if !pres.Allowed {
			return pres, nil
		}
		res, err = c.Admit(ctx, p)
	}
	if err == nil && parent == "" {
		err = keepCapability(c, opts, session, res.Capability)
	}
	return res, err
}

// keepCapability stores the capability a new client session was handed
// and presents it from now on. Without it the session could do nothing
// more, so a failure to store it is the request's failure.
func keepCapability(c Caller, opts ProcessOptions, session, capability string) error {
	if capability == "" {
		return nil
	}
	c.SetCapability(capability)
	if opts.Capabilities == nil {
		return nil
	}
	if err := opts.Capabilities.Save(session, capability); err != nil {
		return fmt.Errorf("the session's capability could not be kept: %w", err)
	}
	return nil
}

// admissionFor resolves the admission a tool call or report belongs to:
// the request's own, or the session's current turn (admitting one when
// the client's turn began before leasedeck saw it).
func admissionFor(c Caller, req Request, opts ProcessOptions) (string, error) {
	if req.AdmissionID != "" {
		return req.AdmissionID, nil
	}
	res, err := admit(c, req, opts, true)
	if err != nil {
		return "", err
	}
	if !res.Allowed {
		return "", &wire.Error{Code: wire.Closed, Message: res.Reason}
	}
	return res.AdmissionID, nil
}
