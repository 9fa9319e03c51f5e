package bridge

import (
	"errors"
	"fmt"
	"strings"
	"time"
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
	// opaque: no translation, the call is checked by its name alone.
	opaque bool
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
	register(qwenAdapter{}, "qwen", "qwen_code", "qwencode")
	register(opencodeAdapter{}, "opencode-ai")
	register(piAdapter{}, "pi-coding-agent")
	register(copilotAdapter{}, "copilot-cli", "github-copilot-cli")
}

// ClientAsker is an adapter whose client has a permission prompt of its
// own that a hook can hand a held call to, when the policy says so
// (policy.json approvals.where "client"): ClientPrompt reports whether the
// native event can. The registry then answers ask (AskedIn "client") and
// the adapter renders Kind Ask in the client's form. An adapter that does
// not implement it keeps every held call in the cockpit. To add a client
// (Copilot CLI's preToolUse permissionDecision "ask", say): implement
// ClientPrompt for its gate events, render Ask for them, and give its
// post-tool events the call's id (Tool.UseID) so the outcome is matched.
type ClientAsker interface {
	ClientPrompt(native string) bool
}

// clientPrompt reports whether the adapter named client can put a held
// call to its client's own prompt on event native.
func clientPrompt(client, native string) bool {
	a, err := AdapterFor(client)
	if err != nil {
		return false
	}
	ca, ok := a.(ClientAsker)
	return ok && ca.ClientPrompt(native)
}

// ErrUnknownClient is what AdapterFor wraps for a name no adapter speaks for.
var ErrUnknownClient = errors.New("unknown client")

// AdapterFor returns the adapter for a client name ("claude-code", "codex",
// "gemini", "vscode", or an alias such as "claude", "codex-cli",
// "gemini-cli").
func AdapterFor(name string) (Adapter, error) {
	if a, ok := adapters[strings.ToLower(name)]; ok {
		return a, nil
	}
	return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknownClient, name, strings.Join(Clients(), ", "))
}

// Clients lists the adapter names.
func Clients() []string {
	return []string{"claude-code", "codex", "gemini", "vscode", "qwen-code", "opencode", "pi", "copilot"}
}

// Render renders v for ev with the adapter that parsed ev (which may differ
// from a: VS Code runs Claude Code's hook files with its own payloads).
//
// A gate whose event the adapter has no form for (a tool call whose event
// leasedeck could not tell) is refused with the blocking exit: 2, the
// reason on stderr. Every client blocks the call on it (Copilot CLI and the
// plugins block on any non-zero exit), where an unknown event's usual
// answer, a non-blocking error, lets Claude Code, Codex, Gemini CLI and Qwen
// Code run the call.
func Render(a Adapter, ev *Event, v Verdict) Output {
	if ev != nil && ev.Client != "" && ev.Client != a.Name() {
		if b, err := AdapterFor(ev.Client); err == nil {
			a = b
		}
	}
	if ev != nil && ev.Gate && v.Kind != Allow && v.Kind != Ask {
		if _, known := specOf(a.Events(), ev.Native); !known {
			return blockingRefusal(v)
		}
	}
	return a.Render(ev, v)
}

// blockingRefusal is exit 2 with the reason on stderr.
func blockingRefusal(v Verdict) Output {
	return Output{Stderr: textOut(systemMessage(reasonOf(v, nonEmpty(warningsOf(v), "refused by leasedeck")))), ExitCode: 2}
}
