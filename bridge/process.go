package bridge

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/leasedeck/leasedeck/registry"
)

// Caller is what Process needs from the registry: one socket round trip.
// *registry.Client implements it.
type Caller interface {
	Call(req map[string]any, out any) error
}

// ProcessOptions carries what the bridge knows beside the request.
type ProcessOptions struct {
	// Mode is the workspace's enforcement mode: "enforce" or "observe".
	Mode string
	// Manifest returns the declared manifest for a client's new session
	// lease (agents/<runtime_agent>.json).
	Manifest func(runtimeAgent string) (any, error)
	// MaxWait caps how long a call that needs a human may wait: below
	// the client's own hook timeout, so a held call ends in an explicit
	// deny rather than a client-side timeout that fails open.
	MaxWait time.Duration
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
	case "vscode", "copilot", "github-copilot":
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
	fail := func(err error) Response {
		var re *registry.RemoteError
		msg := err.Error()
		if errors.As(err, &re) {
			msg = re.Message
		}
		if req.Op == OpPreTool {
			resp.Decision, resp.Reason = DecisionDeny, "leasedeck could not decide, so the call is refused: "+msg
			if re != nil && re.Code == registry.CodeClosed {
				resp.Decision, resp.Reason = DecisionBlock, msg // the session's lease cannot act any more
			}
			if opts.Mode == "observe" {
				resp.Decision, resp.Warnings = DecisionAllow, []string{"observe mode: " + msg}
			}
			return resp
		}
		e := ErrorResponse(string(req.Op), msg)
		e.IntegrationMode, e.CertificationStrength = resp.IntegrationMode, resp.CertificationStrength
		return e
	}

	switch req.Op {
	case OpBegin:
		// A session (or subagent) starting gets its lease and its scope,
		// but no turn: the turn begins with its prompt, so no admission
		// is left open that nothing will ever finalize.
		sessionOnly := req.Hook != nil && (req.Hook.Event == "SessionStart" || req.Hook.Child) && req.Prompt == ""
		res, err := admitWith(c, req, opts, false, sessionOnly)
		if err != nil {
			return fail(err)
		}
		resp.AdmissionID = res.AdmissionID
		if !res.Allowed {
			resp.Decision, resp.Reason = DecisionBlock, res.Reason
			return resp
		}
		resp.Decision, resp.Context = DecisionAllow, res.Context
		return resp

	case OpPreTool:
		input, _ := req.ToolInput.(map[string]any)
		if req.AdmissionID == "" && !(req.Hook != nil && req.Hook.PermissionPhase) {
			// One round trip: the registry resolves the session's turn.
			// Only a session it has no lease for needs the manifest sent.
			session, parent, name := sessionKeys(req)
			call := map[string]any{"op": "gate", "session": session, "client": clientOf(req), "tool": req.Tool,
				"input": input, "summary": Summary(req.Tool, input, 200), "max_wait_ms": opts.MaxWait.Milliseconds()}
			if parent != "" {
				call["parent_session"], call["agent_name"] = parent, name
			}
			var ans registry.GateAnswer
			err := c.Call(call, &ans)
			var re *registry.RemoteError
			if err == nil {
				return gateResponse(resp, ans, opts.Mode)
			}
			if !errors.As(err, &re) || (re.Code != registry.CodeNeedsManifest && !strings.Contains(re.Message, "parent session has no lease")) {
				return fail(err)
			}
		}
		aid, err := admissionFor(c, req, opts)
		if err != nil {
			return fail(err)
		}
		resp.AdmissionID = aid
		// The summary a human reads is the call itself, redacted (secret
		// detectors compile only when a text holds one of their hints).
		call := map[string]any{"op": "gate", "admission_id": aid, "tool": req.Tool, "input": input,
			"summary": Summary(req.Tool, input, 200), "max_wait_ms": opts.MaxWait.Milliseconds()}
		if req.Hook != nil && req.Hook.PermissionPhase {
			// The same call went through PreToolUse: decide again without
			// charging a second step, and hold for a human only if needed.
			call["op"] = "check"
			var dry registry.GateAnswer
			if err := c.Call(call, &dry); err != nil {
				return fail(err)
			}
			if dry.Verdict != registry.VerdictAsk {
				return gateResponse(resp, dry, opts.Mode)
			}
			call["op"] = "gate"
		}
		var ans registry.GateAnswer
		if err := c.Call(call, &ans); err != nil {
			return fail(err)
		}
		return gateResponse(resp, ans, opts.Mode)

	case OpPostTool:
		aid, err := admissionFor(c, req, opts)
		if err != nil {
			return fail(err)
		}
		resp.AdmissionID = aid
		input, _ := req.ToolInput.(map[string]any)
		call := map[string]any{"op": "report", "admission_id": aid, "tool": req.Tool, "input": input,
			"status": req.Status, "summary": Summary(req.Tool, input, 200)}
		if d, ok := req.Result.(*ResultDigest); ok && d != nil {
			call["result_hash"] = d.SHA256
		} else if m, ok := req.Result.(map[string]any); ok {
			if h, ok := m["sha256"].(string); ok {
				call["result_hash"] = h
			}
		}
		var rep registry.ReportResult
		if err := c.Call(call, &rep); err != nil {
			return fail(err)
		}
		resp.Decision = DecisionRecorded
		if rep.Violation {
			resp.Reason = rep.Reason + "; the lease is revoked"
			resp.Warnings = append(resp.Warnings, resp.Reason)
		}
		return resp

	case OpTelemetry:
		aid, err := admissionFor(c, req, opts)
		if err != nil {
			return fail(err)
		}
		resp.AdmissionID = aid
		call := map[string]any{"op": "telemetry", "admission_id": aid, "source": req.CostSource}
		if n := sumTokens(req); n != nil {
			call["tokens"] = *n
		}
		if req.CostAmount != nil && (req.CostCurrency == "" || strings.EqualFold(req.CostCurrency, "USD")) {
			call["cost_usd"] = *req.CostAmount
		}
		var out struct {
			Warnings []string `json:"warnings"`
		}
		if err := c.Call(call, &out); err != nil {
			return fail(err)
		}
		resp.Decision, resp.Warnings = DecisionRecorded, out.Warnings
		if req.CostAmount != nil && req.CostCurrency != "" && !strings.EqualFold(req.CostCurrency, "USD") {
			resp.Warnings = append(resp.Warnings, "cost in "+req.CostCurrency+" is not charged: budgets are in USD")
		}
		return resp

	case OpFinalize, OpAbort:
		if req.Op == OpFinalize && req.Hook != nil && (req.Hook.SessionEnd || req.Hook.Child) {
			// The session (or subagent) is over: finalize its open turn if
			// it has one, and complete its lease — without inventing an
			// empty turn to certify.
			session, _, _ := sessionKeys(req)
			if req.Hook.Child && sumTokens(req) != nil {
				// The subagent's usage (its own transcript) goes on its
				// turn; one that made no call gets a turn that carries it.
				if aid, err := admissionFor(c, req, opts); err == nil {
					resp.Warnings = append(resp.Warnings, turnTelemetry(c, req, aid)...)
				}
			}
			var fin registry.FinalizeResult
			if err := c.Call(map[string]any{"op": "end_session", "session": session, "stop_reason": req.StopReason}, &fin); err != nil {
				return fail(err)
			}
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
		aid, err := admissionFor(c, req, opts)
		if err != nil {
			return fail(err)
		}
		resp.AdmissionID = aid
		if req.Op == OpFinalize {
			resp.Warnings = append(resp.Warnings, turnTelemetry(c, req, aid)...)
		}
		end := req.Hook != nil && (req.Hook.SessionEnd || req.Hook.Child)
		stop := req.StopReason
		if req.Op == OpAbort {
			stop = req.Reason
		}
		var fin registry.FinalizeResult
		if err := c.Call(map[string]any{"op": "finalize", "admission_id": aid, "stop_reason": stop,
			"end_session": end, "aborted": req.Op == OpAbort}, &fin); err != nil {
			return fail(err)
		}
		resp.TelemetryQuality = fin.TelemetryQuality
		if req.Op == OpAbort {
			resp.Decision, resp.Reason = DecisionRecorded, "aborted: "+nonEmpty(req.Reason, "no reason given")
			return resp
		}
		if fin.Certified {
			resp.Decision = DecisionCertified
		} else {
			resp.Decision, resp.Reason = DecisionNonCertified, strings.Join(fin.Reasons, "; ")
		}
		if resp.IntegrationMode == "observed_only" && resp.Decision == DecisionCertified {
			resp.Decision, resp.Reason = DecisionNonCertified, "observe mode: nothing was enforced"
		}
		return resp
	}
	return fail(fmt.Errorf("unknown op %q", req.Op))
}

func gateResponse(resp Response, ans registry.GateAnswer, mode string) Response {
	resp.Reason = ans.Reason
	switch ans.Verdict {
	case registry.VerdictAllow:
		resp.Decision = DecisionAllow
	case registry.VerdictBlock:
		resp.Decision = DecisionBlock
	default:
		resp.Decision = DecisionDeny
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
func admit(c Caller, req Request, opts ProcessOptions, resume bool) (registry.AdmitResult, error) {
	return admitWith(c, req, opts, resume, false)
}

func admitWith(c Caller, req Request, opts ProcessOptions, resume, noTurn bool) (registry.AdmitResult, error) {
	session, parent, name := sessionKeys(req)
	if session == "" {
		return registry.AdmitResult{}, errors.New("the request names no client session")
	}
	client := clientOf(req)
	var manifest any
	if opts.Manifest != nil {
		m, err := opts.Manifest(RuntimeAgent(client))
		if err != nil {
			return registry.AdmitResult{}, err
		}
		manifest = m
	}
	call := map[string]any{"op": "admit", "client": client, "session": session, "manifest": manifest,
		"prompt": req.Prompt, "turn": req.Turn, "resume": resume, "no_turn": noTurn}
	if parent != "" {
		call["parent_session"], call["agent_name"] = parent, name
	}
	var res registry.AdmitResult
	err := c.Call(call, &res)
	if err == nil && !res.Allowed && parent != "" && strings.Contains(res.Reason, "parent session has no lease") {
		pcall := map[string]any{"op": "admit", "client": client, "session": parent, "manifest": manifest, "resume": true}
		var pres registry.AdmitResult
		if err := c.Call(pcall, &pres); err != nil {
			return res, err
		}
		if !pres.Allowed {
			return pres, nil
		}
		res = registry.AdmitResult{}
		err = c.Call(call, &res)
	}
	return res, err
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
		return "", &registry.RemoteError{Code: registry.CodeClosed, Message: res.Reason}
	}
	return res.AdmissionID, nil
}
