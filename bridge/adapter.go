package bridge

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/leasedeck/leasedeck/redact"
	"github.com/leasedeck/leasedeck/schemas"
)

// Native events → lifecycle operations, per client. "gate" marks the events
// that expect a permission decision; only those fail closed.
//
//	op          Claude Code               Codex CLI            Gemini CLI            VS Code
//	----------  ------------------------  -------------------  --------------------  -----------------
//	begin       SessionStart (session)    SessionStart         SessionStart          SessionStart
//	begin       UserPromptSubmit (turn)   UserPromptSubmit     BeforeAgent           UserPromptSubmit
//	begin*      SubagentStart             SubagentStart        —                     SubagentStart
//	pre-tool    PreToolUse (gate)         PreToolUse (gate)    BeforeTool (gate)     PreToolUse (gate)
//	pre-tool    PermissionRequest (gate)  PermissionRequest    —                     —
//	post-tool   PostToolUse               PostToolUse          AfterTool             PostToolUse
//	post-tool   PostToolUseFailure        —                    —                     —
//	post-tool   PermissionDenied          —                    —                     —
//	telemetry   —                         —                    AfterModel (final     —
//	                                                           chunk with usage)
//	finalize*   SubagentStop              SubagentStop         —                     SubagentStop
//	finalize    Stop (turn)               Stop                 AfterAgent            Stop
//	finalize+   SessionEnd                SessionEnd           SessionEnd            —
//	abort       StopFailure               Interrupt            —                     —
//	(none)      Notification, PreCompact, PreCompact,          BeforeModel,          PreCompact
//	            PostCompact, Setup, …     PostCompact          BeforeToolSelection,
//	                                                           PreCompress, Notif.
//
//	* for the child session named by agent_id (Hook.Child): SubagentStart
//	  begins the child (a child lease), SubagentStop finalizes it. Every other
//	  event that carries agent_id belongs to the child session too.
//	+ Hook.SessionEnd: the client session is over, the session lease can close.
//	  A SessionEnd with a reason that says nothing about how the turn ended
//	  ("other") carries no stop_reason, so the registry cannot certify a turn
//	  that no Stop finalized.

// Subagent identifies the subagent an event belongs to.
type Subagent struct {
	ID   string
	Type string
}

// Resources are what a tool call touches as far as the adapter can tell
// without parsing shell: the registry derives the authoritative set itself
// (shell executables, redirections, symlinks). Writes matters most: for
// apply_patch it is the only complete list of the files a patch writes.
type Resources struct {
	Reads    []string `json:"reads,omitempty"`
	Writes   []string `json:"writes,omitempty"`
	URLs     []string `json:"urls,omitempty"`
	Commands []string `json:"commands,omitempty"`
}

// ToolCall is a tool call translated into the gate's vocabulary.
type ToolCall struct {
	// Native is the tool name the client sent.
	Native string
	// Name is the gate's tool name (Claude Code's vocabulary: Bash, Write,
	// Edit, MultiEdit, Read, NotebookEdit, Glob, Grep, WebFetch, WebSearch,
	// Agent, mcp__server__tool), or Native when there is no equivalent: an
	// opaque tool checked by name only.
	Name string
	// Input is the translated tool input, with the gate's member names
	// (command, file_path, path, pattern, url …). Two extensions: a call
	// that writes several files (apply_patch, VS Code multi-file edits)
	// lists all of them in `file_paths` (file_path is the first), and a
	// WebFetch naming several URLs lists them in `urls`.
	Input map[string]any
	// InputSHA256 is the SHA-256 of the canonical native tool input.
	InputSHA256 string
	UseID       string
	Resources   Resources
}

// ResultDigest is all that is kept of a tool result: its hash, size and a
// structural summary (never the output text, which may be file contents).
type ResultDigest struct {
	SHA256  string `json:"sha256"`
	Bytes   int    `json:"bytes"`
	Summary string `json:"summary,omitempty"`
}

// Telemetry is usage the client reported with the event.
type Telemetry struct {
	Model        string
	InputTokens  *int64
	OutputTokens *int64
	CacheTokens  *int64
	// Source is the contract's cost_source ("provider_reported" …).
	Source string
}

// Event is one native hook invocation, parsed and mapped.
type Event struct {
	// Client is the adapter that parsed the event ("claude-code", "codex",
	// "gemini", "vscode"). An adapter can hand a payload to another one
	// (VS Code runs Claude Code's hook files with its own payloads), so
	// render with AdapterFor(ev.Client), or through Render, which does.
	Client string
	// Native is the hook event name as the client sent it.
	Native string
	Op     Op
	// Gate is set for events that expect a permission decision.
	Gate bool
	// PermissionPhase: the client's permission prompt (PermissionRequest).
	PermissionPhase bool

	Session   string // raw client session id; the registry hashes it
	Turn      string // client turn/prompt id, when the client has one
	Cwd       string
	Model     string
	Source    string // SessionStart source / SessionEnd reason
	Timestamp string

	Subagent *Subagent
	// Child: this event opens (SubagentStart) or closes (SubagentStop) the
	// child session itself.
	Child bool
	// SessionEnd: the whole client session ends.
	SessionEnd bool

	Prompt string // UserPromptSubmit / BeforeAgent: raw, scanned then hashed by the registry
	Tool   *ToolCall
	Result *ResultDigest
	// Status is the post-tool status: success, error, denied, timeout.
	Status      string
	DurationMS  *int64
	Interrupted bool
	// StopReason is the finalize stop_reason (completed, user_interrupt,
	// error, max_turns, timeout), empty when unknown.
	StopReason string
	// AbortReason is the abort reason.
	AbortReason string
	// StopHookActive: the client is already continuing because a stop hook
	// blocked; nothing here ever blocks a stop, but it is evidence.
	StopHookActive bool
	Telemetry      *Telemetry
}

// Request builds the lifecycle request for the event. admissionID is the
// admission the registry resolved for the event's session (hooks never know
// it); it may be empty, in which case the registry routes by Session and
// Hook. An event with no op has no request.
func (e *Event) Request(admissionID string) (Request, error) {
	if e == nil || e.Op == OpNone {
		return Request{}, errors.New("event maps to no lifecycle operation")
	}
	r := Request{
		Op:          e.Op,
		Client:      contractClient(e.Client),
		Project:     e.Cwd,
		Session:     e.Session,
		AdmissionID: admissionID,
	}
	h := &HookInfo{
		Client:          e.Client,
		Event:           e.Native,
		Child:           e.Child,
		Source:          e.Source,
		SessionEnd:      e.SessionEnd,
		PermissionPhase: e.PermissionPhase,
		Interrupted:     e.Interrupted,
		Model:           e.Model,
	}
	if e.Subagent != nil {
		h.AgentID, h.AgentType = e.Subagent.ID, e.Subagent.Type
	}
	r.Hook = h
	switch e.Op {
	case OpBegin:
		r.Prompt = e.Prompt
		r.Turn = e.Turn
	case OpPreTool, OpPostTool:
		if e.Tool == nil {
			return Request{}, errors.New("tool event without a tool")
		}
		r.Tool = e.Tool.Name
		r.ToolInput = e.Tool.Input
		h.NativeTool = e.Tool.Native
		h.ToolUseID = e.Tool.UseID
		h.ToolInputSHA256 = e.Tool.InputSHA256
		res := e.Tool.Resources
		if len(res.Reads)+len(res.Writes)+len(res.URLs)+len(res.Commands) > 0 {
			h.Resources = &res
		}
		if e.Op == OpPostTool {
			r.Status = e.Status
			r.DurationMS = e.DurationMS
			if e.Result != nil {
				r.Result = map[string]any{"sha256": e.Result.SHA256, "bytes": e.Result.Bytes, "summary": e.Result.Summary}
			}
		}
	case OpTelemetry:
		if t := e.Telemetry; t != nil {
			r.Model = t.Model
			r.InputTokens, r.OutputTokens, r.CacheTokens = t.InputTokens, t.OutputTokens, t.CacheTokens
			r.CostSource = t.Source
		}
		if r.Model == "" {
			r.Model = e.Model
		}
	case OpFinalize:
		r.StopReason = e.StopReason
		if t := e.Telemetry; t != nil {
			// Usage read at the end of the turn (Claude Code's transcript):
			// Process records it before it finalizes.
			r.Model = t.Model
			r.InputTokens, r.OutputTokens, r.CacheTokens = t.InputTokens, t.OutputTokens, t.CacheTokens
			r.CostSource = t.Source
		}
	case OpAbort:
		r.Reason = e.AbortReason
	}
	return r, nil
}

func contractClient(adapter string) string {
	switch adapter {
	case ClientClaudeCode, ClientCodex, ClientVSCode:
		return adapter
	}
	return ClientUnknown
}

// VerdictKind is what an adapter renders.
type VerdictKind int

// Verdict kinds. NoOpinion leaves the client's own flow in charge (its
// normal permission prompt on a gate event). Ask asks the human in the
// client's own prompt; it has no contract decision and is chosen by the
// caller (e.g. observe mode on a call that needs approval). Fail is a
// leasedeck error: on a gate event it renders as a deny (fail closed), on
// any other event as a warning that changes nothing.
const (
	NoOpinion VerdictKind = iota
	Allow
	Deny
	Block
	Ask
	Fail
)

func (k VerdictKind) String() string {
	return [...]string{"no-opinion", "allow", "deny", "block", "ask", "fail"}[k]
}

// Verdict is what to tell the client.
type Verdict struct {
	Kind     VerdictKind
	Reason   string   // shown to the agent on deny/block, to the user on allow/ask
	Context  string   // added to the agent's context where the client accepts it
	Warnings []string // shown to the user where the client can show them
}

// Output is a rendered answer: what the hook process writes and its exit code.
type Output struct {
	Stdout   []byte
	Stderr   []byte
	ExitCode int
}

// Timeout is a client's hook timeout for one event: the default when the
// hook entry names none, and the most the client allows (0 = no limit
// documented).
type Timeout struct {
	Default time.Duration
	Max     time.Duration
}

// Adapter translates one client's hooks.
type Adapter interface {
	// Name is the adapter's name: `leasedeck hook <name>`, Hook.Client.
	Name() string
	// Parse reads the client's hook stdin. Unknown members are ignored; a
	// missing required member is an error that names it. On error the
	// returned event, when not nil, carries what could be read (at least
	// Native when the event name was readable), so that the error can be
	// rendered in the right form (a gate event fails closed).
	Parse(stdin []byte) (*Event, error)
	// Render writes v in the client's native form for ev (nil ev = an
	// unreadable payload).
	Render(ev *Event, v Verdict) Output
	// Events lists the native events the adapter maps to an op, in the
	// order the installer writes them.
	Events() []EventSpec
	// Timeout is the client's hook timeout for a native event.
	Timeout(native string) Timeout
}

// EventSpec describes one native event an adapter handles.
type EventSpec struct {
	Native string
	Op     Op
	Gate   bool
	// Tools: the event's matcher filters tool names.
	Tools bool
	// Optional events are not installed by default (Gemini's AfterModel
	// fires once per streamed chunk).
	Optional bool
}

// The adapters, by name and alias.
var adapters = map[string]Adapter{}

func register(a Adapter, aliases ...string) {
	adapters[a.Name()] = a
	for _, al := range aliases {
		adapters[al] = a
	}
}

func init() {
	register(claudeAdapter{}, "claude", "claude_code", "claudecode")
	register(codexAdapter{}, "codex-cli", "openai-codex")
	register(geminiAdapter{}, "gemini-cli")
	register(vscodeAdapter{}, "vs-code", "code", "copilot-vscode")
}

// AdapterFor returns the adapter for a client name ("claude-code", "codex",
// "gemini", "vscode", or an alias such as "claude", "codex-cli",
// "gemini-cli").
func AdapterFor(name string) (Adapter, error) {
	if a, ok := adapters[strings.ToLower(name)]; ok {
		return a, nil
	}
	return nil, fmt.Errorf("unknown client %q (known: %s)", name, strings.Join(Clients(), ", "))
}

// Clients lists the adapter names.
func Clients() []string {
	return []string{"claude-code", "codex", "gemini", "vscode"}
}

// Render renders v for ev with the adapter that parsed ev (which may differ
// from a: VS Code runs Claude Code's hook files with its own payloads).
func Render(a Adapter, ev *Event, v Verdict) Output {
	if ev != nil && ev.Client != "" && ev.Client != a.Name() {
		if b, err := AdapterFor(ev.Client); err == nil {
			a = b
		}
	}
	return a.Render(ev, v)
}

// VerdictFor turns a registry response into what to tell the client.
//
// On a gate event anything but allow is a refusal: block stays block (the
// admission cannot go on), error and any unexpected decision become deny
// (fail closed). An allow under `observed_only` becomes NoOpinion: a
// leasedeck that only observes must not approve calls the client would
// otherwise have asked the user about.
func VerdictFor(ev *Event, r Response) Verdict {
	v := Verdict{Reason: r.Reason, Context: r.Context, Warnings: r.Warnings}
	gate := ev != nil && ev.Gate
	op := OpNone
	if ev != nil {
		op = ev.Op
	}
	switch {
	case gate:
		switch r.Decision {
		case DecisionAllow:
			v.Kind = Allow
			if r.IntegrationMode == ModeObservedOnly {
				v.Kind = NoOpinion
			}
		case DecisionBlock:
			v.Kind = Block
		default:
			v.Kind = Deny
			if r.Decision == DecisionError {
				v.Reason = "leasedeck could not check this call: " + nonEmpty(r.Reason, "registry error")
			}
		}
	case op == OpBegin:
		switch r.Decision {
		case DecisionAllow:
			v.Kind = Allow
		case DecisionDeny:
			v.Kind = Deny
		case DecisionBlock:
			v.Kind = Block
		case DecisionError:
			v.Kind = Fail
		}
	case op == OpPostTool:
		switch r.Decision {
		case DecisionBlock, DecisionDeny:
			// A post-tool refusal (scope violation) cannot undo the call; it
			// tells the agent, through the client's feedback channel, that
			// its lease is gone.
			v.Kind = Block
		case DecisionError:
			v.Kind = Fail
		}
	default:
		if r.Decision == DecisionError {
			v.Kind = Fail
		}
	}
	if v.Kind == Fail && len(v.Warnings) == 0 {
		v.Warnings = []string{"leasedeck: " + nonEmpty(r.Reason, "registry error")}
	}
	return v
}

// FailVerdict is the verdict for a failure before any registry answer (an
// unreadable payload, a request the registry refused to read): on a gate
// event enforce denies and observe leaves the client's flow alone with a
// warning; on other events it is a warning.
func FailVerdict(mode string, ev *Event, msg string) Verdict {
	msg = "leasedeck: " + nonEmpty(msg, "error")
	if ev != nil && ev.Gate {
		if mode == "observe" {
			return Verdict{Kind: NoOpinion, Warnings: []string{msg + " (observe mode: not enforced)"}}
		}
		return Verdict{Kind: Deny, Reason: msg}
	}
	return Verdict{Kind: Fail, Reason: msg, Warnings: []string{msg}}
}

// StartHint is how to start a registry, quoted in every unreachable reason.
const StartHint = "run 'leasedeck' (or 'leasedeck serve') in the workspace"

// Unreachable is the response when no registry answers. mode is the
// workspace's enforcement mode, "enforce" or "observe" (anything else is
// treated as enforce: fail closed). Enforce denies gate events and refuses
// a new turn; observe allows, with integration mode observed_only and a
// warning. Events that decide nothing get an error response that renders
// as a warning.
func Unreachable(mode string, ev *Event) Response {
	op := "unknown"
	gate, begin := false, false
	if ev != nil {
		if ev.Op != OpNone {
			op = string(ev.Op)
		}
		gate, begin = ev.Gate, ev.Op == OpBegin
	}
	const what = "the leasedeck registry is not reachable"
	r := Response{Op: op, SchemaVersion: SchemaVersion}
	switch {
	case mode == "observe" && (gate || begin):
		r.Decision = DecisionAllow
		r.IntegrationMode = ModeObservedOnly
		r.Warnings = []string{what + " (observe mode: allowed, not recorded); " + StartHint}
	case gate || begin:
		r.Decision = DecisionDeny
		r.Reason = what + " and this workspace enforces leases, so the call is refused; " + StartHint
	default:
		r.Decision = DecisionError
		r.Reason = what + "; nothing was recorded; " + StartHint
		r.Warnings = []string{r.Reason}
	}
	return r
}

// DefaultMargin is how long before the client's hook timeout an approval
// wait ends, so the hook answers "deny" itself instead of being killed
// (which most clients treat as "no decision", i.e. fail open).
const DefaultMargin = 5 * time.Second

// ApprovalWait is how long a hook may wait for a human: the smaller of the
// policy's approval timeout and the hook's timeout minus a margin.
// configured is the timeout written in the hook entry (0 = none written:
// the client's default applies); it is clamped to the client's maximum.
func ApprovalWait(a Adapter, native string, configured, policy time.Duration) time.Duration {
	t := a.Timeout(native)
	hook := configured
	if hook <= 0 {
		hook = t.Default
	}
	if t.Max > 0 && hook > t.Max {
		hook = t.Max
	}
	margin := DefaultMargin
	if hook/10 > margin {
		margin = hook / 10
	}
	w := hook - margin
	if policy > 0 && policy < w {
		w = policy
	}
	if w < 0 {
		w = 0
	}
	return w
}

func nonEmpty(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}

// ---- reading native payloads ----

// InputError is a native payload that is not what the client documents.
type InputError struct {
	Client string
	// Pointer is the JSON pointer of the offending member ("" = the document).
	Pointer string
	Msg     string
}

func (e *InputError) Error() string {
	p := e.Pointer
	if p == "" {
		p = "/"
	}
	return fmt.Sprintf("%s hook input: %s: %s", e.Client, p, e.Msg)
}

// ErrUnknownEvent is wrapped by the error for an event name an adapter does
// not know (a newer client, or a hook installed on the wrong event).
var ErrUnknownEvent = errors.New("unknown hook event")

// payload is a decoded native hook input with typed accessors that record
// the first type error.
type payload struct {
	client string
	m      map[string]any
}

func decodePayload(client string, stdin []byte) (*payload, error) {
	if len(strings.TrimSpace(string(stdin))) == 0 {
		return nil, &InputError{Client: client, Msg: "empty input (expected one JSON object on stdin)"}
	}
	v, err := schemas.ParseJSON(stdin)
	if err != nil {
		return nil, &InputError{Client: client, Msg: "not JSON: " + err.Error()}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, &InputError{Client: client, Msg: "expected a JSON object, got " + typeName(v)}
	}
	return &payload{client: client, m: m}, nil
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// str returns the first of keys that holds a string; a key holding another
// type is an error, null counts as absent.
func (p *payload) str(keys ...string) (string, error) {
	for _, k := range keys {
		v, ok := p.m[k]
		if !ok || v == nil {
			continue
		}
		s, ok := v.(string)
		if !ok {
			return "", &InputError{Client: p.client, Pointer: "/" + redact.EscapePointer(k), Msg: "expected a string, got " + typeName(v)}
		}
		return s, nil
	}
	return "", nil
}

func (p *payload) need(keys ...string) (string, error) {
	s, err := p.str(keys...)
	if err != nil {
		return "", err
	}
	if s == "" {
		return "", &InputError{Client: p.client, Pointer: "/" + redact.EscapePointer(keys[0]), Msg: "missing (required)"}
	}
	return s, nil
}

func (p *payload) boolean(k string) bool {
	b, _ := p.m[k].(bool)
	return b
}

func (p *payload) int64(k string) *int64 {
	n, ok := p.m[k].(json.Number)
	if !ok {
		return nil
	}
	if i, err := n.Int64(); err == nil && i >= 0 {
		return &i
	}
	if f, err := n.Float64(); err == nil && f >= 0 && f < 1<<53 {
		i := int64(f)
		return &i
	}
	return nil
}

func (p *payload) object(k string) (map[string]any, error) {
	v, ok := p.m[k]
	if !ok || v == nil {
		return nil, nil
	}
	o, ok := v.(map[string]any)
	if !ok {
		return nil, &InputError{Client: p.client, Pointer: "/" + redact.EscapePointer(k), Msg: "expected an object, got " + typeName(v)}
	}
	return o, nil
}

// toolInput reads tool_input, which must be an object when present.
func (p *payload) toolInput(key string) (map[string]any, error) {
	o, err := p.object(key)
	if err != nil {
		return nil, err
	}
	if o == nil {
		o = map[string]any{}
	}
	return o, nil
}

// hashValue is the SHA-256 of a JSON value: of the string's bytes for a
// string, else of its canonical bytes (falling back to encoding/json for
// values RFC 8785 cannot express, such as integers beyond 2^53).
func hashValue(v any) (string, int) {
	if s, ok := v.(string); ok {
		return schemas.SHA256Hex([]byte(s)), len(s)
	}
	b, err := schemas.Canonical(v)
	if err != nil {
		b, _ = json.Marshal(v)
	}
	return schemas.SHA256Hex(b), len(b)
}

// digestResult reduces a tool result to a ResultDigest. summary describes
// the shape, never the text: a Read's output is file contents.
func digestResult(tool string, v any, status string) *ResultDigest {
	sum, n := hashValue(v)
	d := &ResultDigest{SHA256: sum, Bytes: n}
	var parts []string
	if status != "" {
		parts = append(parts, status)
	}
	switch x := v.(type) {
	case string:
		parts = append(parts, redact.HumanBytes(len(x)))
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			switch y := x[k].(type) {
			case string:
				if k == "error" || k == "exitCode" || k == "exit_code" {
					parts = append(parts, k+" "+redact.OneLine(firstLine(y), 80))
				} else {
					parts = append(parts, k+" "+redact.HumanBytes(len(y)))
				}
			case bool:
				if y {
					parts = append(parts, k)
				}
			case json.Number:
				parts = append(parts, k+" "+y.String())
			}
		}
	case nil:
		parts = append(parts, "no output")
	default:
		parts = append(parts, redact.HumanBytes(n))
	}
	d.Summary = redact.OneLine(tool+": "+strings.Join(parts, ", "), 200)
	return d
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// copyMap is a shallow copy, so that translation never aliases the
// client's payload tree.
func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// ---- rendering helpers shared by the adapters ----

// Limits on what is echoed back: Claude Code spills output strings beyond
// 10,000 characters to a file; Codex caps model-visible hook output near
// 2,500 tokens.
const (
	maxReason  = 2000
	maxContext = 8000
)

func reasonOf(v Verdict, def string) string {
	return redact.Clip(strings.TrimSpace(nonEmpty(v.Reason, def)), maxReason)
}

func contextOf(v Verdict) string {
	return redact.Clip(strings.TrimSpace(v.Context), maxContext)
}

func warningsOf(v Verdict) string {
	if len(v.Warnings) == 0 {
		return ""
	}
	return redact.Clip(strings.Join(v.Warnings, "; "), maxReason)
}

// jsonOut marshals an output object without HTML escaping (reasons often
// contain '<', '>' and '&', and clients show them verbatim).
func jsonOut(v any) []byte {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return []byte("{}\n")
	}
	return []byte(b.String())
}

func textOut(s string) []byte {
	if s == "" {
		return nil
	}
	return []byte(s + "\n")
}

// obj is an ordered JSON object for outputs, so golden files are stable
// and read in a natural order.
type obj []kv

type kv struct {
	k string
	v any
}

func (o obj) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, e := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(e.k)
		b.Write(kb)
		b.WriteByte(':')
		var vb strings.Builder
		enc := json.NewEncoder(&vb)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(e.v); err != nil {
			return nil, err
		}
		b.WriteString(strings.TrimSuffix(vb.String(), "\n"))
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

func (o obj) with(k string, v any) obj {
	if s, ok := v.(string); ok && s == "" {
		return o
	}
	return append(o, kv{k, v})
}
