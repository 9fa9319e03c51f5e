package bridge

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/leasedeck/leasedeck/redact"
	"github.com/leasedeck/leasedeck/schemas"
)

// Op is a lifecycle operation (lifecycle.schema.json, `op`).
type Op string

// The lifecycle operations. OpNone is not a contract value: an adapter uses
// it for a native event it observes but maps to no operation.
const (
	OpNone      Op = ""
	OpBegin     Op = "begin"
	OpPreTool   Op = "pre-tool"
	OpPostTool  Op = "post-tool"
	OpTelemetry Op = "telemetry"
	OpFinalize  Op = "finalize"
	OpAbort     Op = "abort"
)

// Decision is the bridge response's `decision`.
type Decision string

// The decisions the contract allows.
const (
	DecisionAllow        Decision = "allow"
	DecisionBlock        Decision = "block"
	DecisionDeny         Decision = "deny"
	DecisionRecorded     Decision = "recorded"
	DecisionCertified    Decision = "certified"
	DecisionNonCertified Decision = "non_certified"
	DecisionError        Decision = "error"
)

// SchemaVersion is the lifecycle contract version this package writes in a
// response's `schema_version`. The lifecycle schema names no version of its
// own, so this is leasedeck's: bump the minor for additive changes.
const SchemaVersion = "1.0"

// Contract client families (lifecycle.schema.json clientContext.client).
// The enum has no value for Gemini CLI: its requests say ClientUnknown and
// name the real client in Hook.Client.
const (
	ClientClaudeCode = "claude-code"
	ClientCodex      = "codex"
	ClientVSCode     = "vscode"
	ClientUnknown    = "unknown"
)

// Integration modes, strongest first (the registry may only downgrade).
const (
	ModeCasanOwned   = "casan_owned"
	ModeManagedHook  = "managed_hook"
	ModeProjectHook  = "project_hook"
	ModeObservedOnly = "observed_only"
)

// HookInfo is leasedeck's extension of a lifecycle request: what the hook
// adapter knew that the contract has no member for. It travels as the
// request's `hook` member, which the contract's open objects allow. The
// registry uses it to route a request to the right session, turn and child
// lease when the client cannot name an admission id (hook processes are
// stateless, so they never can).
type HookInfo struct {
	// Client is the adapter that produced the request ("claude-code",
	// "codex", "gemini", "vscode"); also names agents/<file>.json.
	Client string `json:"client,omitempty"`
	// Event is the client's native hook event name ("PreToolUse", "BeforeTool").
	Event string `json:"event,omitempty"`
	// AgentID and AgentType identify a subagent: a request that carries
	// them belongs to the child session (parent = Session), whose lease is
	// a child of the session's lease.
	AgentID   string `json:"agent_id,omitempty"`
	AgentType string `json:"agent_type,omitempty"`
	// Child marks the SubagentStart (begin) and SubagentStop (finalize) that
	// open and close the child session itself.
	Child bool `json:"child,omitempty"`
	// Source is SessionStart's source (startup, resume, clear, compact) or
	// SessionEnd's reason, as the client sent it.
	Source string `json:"source,omitempty"`
	// SessionEnd marks a finalize that ends the whole client session, not
	// just a turn: the session lease can be closed.
	SessionEnd bool `json:"session_end,omitempty"`
	// NativeTool is the tool name as the client sent it, before translation
	// into the gate's vocabulary (e.g. "apply_patch", "run_shell_command").
	NativeTool string `json:"native_tool,omitempty"`
	ToolUseID  string `json:"tool_use_id,omitempty"`
	// ToolInputSHA256 is the SHA-256 of the canonical native tool input: an
	// approval is bound to it.
	ToolInputSHA256 string `json:"tool_input_sha256,omitempty"`
	// Resources are what the adapter could tell statically about the call
	// (see Resources). For apply_patch they are the only place every
	// written file is named.
	Resources *Resources `json:"resources,omitempty"`
	// PermissionPhase marks a pre-tool from the client's permission prompt
	// (Claude Code / Codex PermissionRequest). The same call usually went
	// through PreToolUse first, so the registry should not charge a second
	// step for it.
	PermissionPhase bool `json:"permission_phase,omitempty"`
	// Interrupted marks a tool call the user interrupted.
	Interrupted bool   `json:"interrupted,omitempty"`
	Model       string `json:"model,omitempty"`
}

// Request is one lifecycle request. Only the members of its Op are
// written; see lifecycle.schema.json for their meaning. Nullable members
// are plain Go zero values here: zero means absent.
type Request struct {
	Op Op `json:"op"`

	// clientContext (validated on begin; carried on every op so that the
	// registry can find the session without an admission id).
	Client          string `json:"client,omitempty"`
	ClientVersion   string `json:"client_version,omitempty"`
	AdapterVersion  string `json:"adapter_version,omitempty"`
	Project         string `json:"project,omitempty"`
	Session         string `json:"session,omitempty"`
	IntegrationMode string `json:"integration_mode,omitempty"`

	// begin
	Prompt string `json:"prompt"`
	Turn   string `json:"turn,omitempty"`

	// pre-tool, post-tool, telemetry, finalize, abort
	AdmissionID string `json:"admission_id"`

	// pre-tool, post-tool
	Tool      string `json:"tool"`
	ToolInput any    `json:"tool_input,omitempty"`

	// post-tool
	Status     string `json:"status,omitempty"`
	DurationMS *int64 `json:"duration_ms,omitempty"`
	// Result is never the raw tool result when an adapter builds the
	// request: it is a ResultDigest (sha256, bytes, summary).
	Result any `json:"result,omitempty"`

	// telemetry
	Model        string   `json:"model,omitempty"`
	RuntimeMS    *int64   `json:"runtime_ms,omitempty"`
	InputTokens  *int64   `json:"input_tokens,omitempty"`
	OutputTokens *int64   `json:"output_tokens,omitempty"`
	CacheTokens  *int64   `json:"cache_tokens,omitempty"`
	CostAmount   *float64 `json:"cost_amount,omitempty"`
	CostCurrency string   `json:"cost_currency,omitempty"`
	CostSource   string   `json:"cost_source,omitempty"`

	// finalize
	StopReason       string   `json:"stop_reason,omitempty"`
	AssistantSummary string   `json:"assistant_summary,omitempty"`
	ChangedFiles     []string `json:"changed_files,omitempty"`

	// abort
	Reason string `json:"reason,omitempty"`

	// Hook is leasedeck's extension member `hook`.
	Hook *HookInfo `json:"hook,omitempty"`

	// Extra keeps members this package does not know (from a newer
	// bridge), so that a request read and re-sent loses nothing.
	Extra map[string]any `json:"-"`
}

// MarshalJSON writes only the members that belong to r.Op, so that a
// request never carries, say, an empty `tool` on a begin.
func (r Request) MarshalJSON() ([]byte, error) {
	m := map[string]any{}
	for k, v := range r.Extra {
		m[k] = v
	}
	m["op"] = string(r.Op)
	put := func(k, v string) {
		if v != "" {
			m[k] = v
		}
	}
	putInt := func(k string, v *int64) {
		if v != nil {
			m[k] = *v
		}
	}
	put("client", r.Client)
	put("client_version", r.ClientVersion)
	put("adapter_version", r.AdapterVersion)
	put("project", r.Project)
	put("session", r.Session)
	put("integration_mode", r.IntegrationMode)
	if r.Hook != nil {
		m["hook"] = r.Hook
	}
	switch r.Op {
	case OpBegin:
		m["prompt"] = r.Prompt
		put("turn", r.Turn)
	case OpPreTool:
		m["admission_id"] = r.AdmissionID
		m["tool"] = r.Tool
		if r.ToolInput != nil {
			m["tool_input"] = r.ToolInput
		}
	case OpPostTool:
		m["admission_id"] = r.AdmissionID
		m["tool"] = r.Tool
		if r.ToolInput != nil {
			m["tool_input"] = r.ToolInput
		}
		put("status", r.Status)
		putInt("duration_ms", r.DurationMS)
		if r.Result != nil {
			m["result"] = r.Result
		}
	case OpTelemetry:
		m["admission_id"] = r.AdmissionID
		put("model", r.Model)
		putInt("runtime_ms", r.RuntimeMS)
		putInt("input_tokens", r.InputTokens)
		putInt("output_tokens", r.OutputTokens)
		putInt("cache_tokens", r.CacheTokens)
		if r.CostAmount != nil {
			m["cost_amount"] = *r.CostAmount
		}
		put("cost_currency", r.CostCurrency)
		put("cost_source", r.CostSource)
	case OpFinalize:
		m["admission_id"] = r.AdmissionID
		put("stop_reason", r.StopReason)
		put("assistant_summary", r.AssistantSummary)
		if r.ChangedFiles != nil {
			m["changed_files"] = r.ChangedFiles
		}
	case OpAbort:
		put("admission_id", r.AdmissionID)
		put("reason", r.Reason)
	}
	return json.Marshal(m)
}

// ValidationError is a document that parsed as JSON but broke the
// lifecycle schema; each entry names the JSON pointer of the fault.
type ValidationError struct {
	What   string
	Errors []schemas.Error
}

func (e *ValidationError) Error() string {
	parts := make([]string, 0, len(e.Errors))
	for _, se := range e.Errors {
		parts = append(parts, se.String())
	}
	return fmt.Sprintf("invalid %s: %s", e.What, strings.Join(parts, "; "))
}

// ErrEmptyInput is returned for empty (or all-whitespace) input.
var ErrEmptyInput = errors.New("empty input")

// ParseRequest reads one lifecycle request: strict JSON (duplicate members
// and trailing data are errors), validated against the lifecycle schema.
// A schema violation is a *ValidationError naming each JSON pointer.
func ParseRequest(data []byte) (Request, error) {
	if len(strings.TrimSpace(string(data))) == 0 {
		return Request{}, ErrEmptyInput
	}
	v, err := schemas.ParseJSON(data)
	if err != nil {
		return Request{}, err
	}
	errs, err := schemas.Validate(schemas.LifecycleRequest, v)
	if err != nil {
		return Request{}, err
	}
	if len(errs) > 0 {
		return Request{}, &ValidationError{What: "lifecycle request", Errors: errs}
	}
	m := v.(map[string]any) // the schema requires an object
	var r Request
	known := map[string]bool{}
	s := func(k string) string {
		known[k] = true
		x, _ := m[k].(string)
		return x
	}
	i := func(k string) *int64 {
		known[k] = true
		n, ok := m[k].(json.Number)
		if !ok {
			return nil
		}
		x, err := n.Int64()
		if err != nil {
			return nil
		}
		return &x
	}
	r.Op = Op(s("op"))
	r.Client, r.ClientVersion, r.AdapterVersion = s("client"), s("client_version"), s("adapter_version")
	r.Project, r.Session, r.IntegrationMode = s("project"), s("session"), s("integration_mode")
	r.Prompt, r.Turn, r.AdmissionID = s("prompt"), s("turn"), s("admission_id")
	r.Tool, r.Status = s("tool"), s("status")
	known["tool_input"], known["result"] = true, true
	r.ToolInput, r.Result = m["tool_input"], m["result"]
	r.DurationMS = i("duration_ms")
	r.Model, r.CostCurrency, r.CostSource = s("model"), s("cost_currency"), s("cost_source")
	r.RuntimeMS, r.InputTokens, r.OutputTokens, r.CacheTokens = i("runtime_ms"), i("input_tokens"), i("output_tokens"), i("cache_tokens")
	known["cost_amount"] = true
	if n, ok := m["cost_amount"].(json.Number); ok {
		if f, err := n.Float64(); err == nil {
			r.CostAmount = &f
		}
	}
	r.StopReason, r.AssistantSummary, r.Reason = s("stop_reason"), s("assistant_summary"), s("reason")
	known["changed_files"] = true
	if cf, ok := m["changed_files"].([]any); ok {
		r.ChangedFiles = make([]string, 0, len(cf))
		for _, f := range cf {
			if fs, ok := f.(string); ok {
				r.ChangedFiles = append(r.ChangedFiles, fs)
			}
		}
	}
	known["hook"] = true
	if h, ok := m["hook"].(map[string]any); ok {
		b, _ := json.Marshal(h)
		var hi HookInfo
		if err := json.Unmarshal(b, &hi); err != nil {
			return Request{}, fmt.Errorf("invalid lifecycle request: /hook: %v", err)
		}
		r.Hook = &hi
	}
	for k, val := range m {
		if !known[k] {
			if r.Extra == nil {
				r.Extra = map[string]any{}
			}
			r.Extra[k] = val
		}
	}
	return r, nil
}

// Validate checks r against the lifecycle request schema.
func (r Request) Validate() error {
	return validateShape(schemas.LifecycleRequest, "lifecycle request", r)
}

// Response is the bridge response (lifecycle.schema.json
// #/definitions/bridgeResponse). Empty strings are absent members.
type Response struct {
	Op                    string   `json:"op"`
	SchemaVersion         string   `json:"schema_version"`
	Decision              Decision `json:"decision"`
	AdmissionID           string   `json:"admission_id,omitempty"`
	TraceID               string   `json:"trace_id,omitempty"`
	IntegrationMode       string   `json:"integration_mode,omitempty"`
	CertificationStrength string   `json:"certification_strength,omitempty"`
	TelemetryQuality      string   `json:"telemetry_quality,omitempty"`
	Reason                string   `json:"reason,omitempty"`
	Warnings              []string `json:"warnings,omitempty"`
	// Context is text the adapter injects into the agent's turn where the
	// client accepts added context (the lease's scope on begin).
	Context string `json:"context,omitempty"`
	// AskInClient is leasedeck's extension of a pre-tool answer: the
	// decision is the client's own permission prompt's (policy
	// approvals.where "client"). Decision is then "deny", so a reader that
	// does not know the member fails closed.
	AskInClient bool `json:"ask_in_client,omitempty"`
}

// Validate checks r against the bridge response schema.
func (r Response) Validate() error {
	return validateShape(schemas.LifecycleResponse, "lifecycle response", r)
}

func validateShape(shape schemas.Shape, what string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	tree, err := schemas.ParseJSON(b)
	if err != nil {
		return err
	}
	errs, err := schemas.Validate(shape, tree)
	if err != nil {
		return err
	}
	if len(errs) > 0 {
		return &ValidationError{What: what, Errors: errs}
	}
	return nil
}

// ErrorResponse is a schema-valid `error` response for op (which may be
// unknown or empty when the request could not be read at all). msg becomes
// the reason, made one line and redacted: an error message may quote the
// input that caused it.
func ErrorResponse(op, msg string) Response {
	if op == "" {
		op = "unknown"
	}
	if msg == "" {
		msg = "error"
	}
	return Response{Op: redact.OneLine(op, 64), SchemaVersion: SchemaVersion, Decision: DecisionError, Reason: redact.OneLine(msg, 2000)}
}
