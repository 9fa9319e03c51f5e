package bridge

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// Gemini CLI hooks (clients.md §3.3 and "Testing against the real Gemini
// CLI"; pinned test client 0.61.0). What the real client honours decides
// the formats:
//
//	BeforeTool   allow  exit 0 {"decision":"allow"}
//	             deny   {"decision":"deny","reason":R} on stdout AND R on stderr, exit 2: stdout JSON
//	                    wins whatever the exit code, and exit 2 with text blocks on its own, so the
//	                    call is refused even if one of the two is lost
//	             block  as deny, plus "continue":false,"stopReason":R (stops the agent loop)
//	             ask    never written: {"decision":"ask"} hangs a headless run; no decision instead
//	                    (the client's own approval mode applies) with a systemMessage
//	AfterTool    block  exit 0 {"decision":"deny","reason":R} (the model gets R instead of the output)
//	BeforeAgent  deny   exit 0 {"decision":"deny","reason":R} (no model call is made)
//	             allow  {"hookSpecificOutput":{"hookEventName":"BeforeAgent","additionalContext":C}}
//	SessionStart allow  {"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":C}}
//	AfterAgent, SessionEnd, AfterModel: never a decision (an AfterAgent deny starts a new turn).
//
// Claude-style permissionDecision is ignored by Gemini CLI and never written.
// Exit 1 is a warning (the tool runs), so it is never used to refuse.
type geminiAdapter struct{}

func (geminiAdapter) Name() string { return "gemini" }

var geminiEvents = []EventSpec{
	{Native: "SessionStart", Op: OpBegin},
	{Native: "BeforeAgent", Op: OpBegin},
	{Native: "BeforeTool", Op: OpPreTool, Gate: true, Tools: true},
	{Native: "AfterTool", Op: OpPostTool, Tools: true},
	{Native: "AfterAgent", Op: OpFinalize},
	{Native: "SessionEnd", Op: OpFinalize},
	// AfterModel fires once per streamed chunk: a process per chunk is a
	// real cost, so it is installed only on request.
	{Native: "AfterModel", Op: OpTelemetry, Optional: true},
}

var geminiObserved = map[string]bool{
	"BeforeModel": true, "BeforeToolSelection": true, "PreCompress": true, "Notification": true,
}

func (geminiAdapter) Events() []EventSpec { return geminiEvents }

// Timeout: 60 s (60000 ms) by default; no maximum is documented. On expiry
// the runner fails open.
func (geminiAdapter) Timeout(string) Timeout { return Timeout{Default: 60 * time.Second} }

func (a geminiAdapter) Parse(stdin []byte) (*Event, error) {
	p, err := decodePayload(a.Name(), stdin)
	if err != nil {
		return sniffEvent(a.Name(), geminiEvents, stdin), err
	}
	ev, _, known, err := eventHead(p, a.Name(), geminiEvents, geminiObserved, "hook_event_name")
	if !known {
		return ev, err
	}
	if ev.Session, err = p.need("session_id"); err != nil {
		return ev, err
	}
	if ev.Cwd, err = p.str("cwd"); err != nil {
		return ev, err
	}
	if ev.Timestamp, err = p.str("timestamp"); err != nil {
		return ev, err
	}
	ev.StopHookActive = p.boolean("stop_hook_active")
	switch ev.Native {
	case "SessionStart":
		ev.Source, err = p.str("source")
	case "BeforeAgent":
		if _, ok := p.m["prompt"]; !ok {
			return ev, &InputError{Client: a.Name(), Pointer: "/prompt", Msg: "missing (required)"}
		}
		ev.Prompt, err = p.str("prompt")
	case "BeforeTool", "AfterTool":
		err = parseGeminiTool(p, ev)
	case "AfterAgent":
		ev.StopReason = "completed"
	case "SessionEnd":
		if ev.Source, err = p.str("reason"); err == nil {
			ev.SessionEnd = true
			ev.StopReason = sessionEndStop(ev.Source)
		}
	case "AfterModel":
		err = parseGeminiUsage(p, ev)
	}
	return ev, err
}

func parseGeminiTool(p *payload, ev *Event) error {
	native, err := p.need("tool_name")
	if err != nil {
		return err
	}
	in, err := p.toolInput("tool_input")
	if err != nil {
		return err
	}
	tc, err := translateGemini(native, in)
	tc, err = vetted("gemini", tc, err)
	if err != nil {
		if ev.Gate {
			return err
		}
		tc = newCall(native, native, copyMap(in), in)
	}
	ev.Tool = tc
	if ev.Native == "AfterTool" {
		resp := p.m["tool_response"]
		ev.Status = geminiStatus(resp)
		ev.Result = digestResult(tc.Name, resp, ev.Status)
	}
	return nil
}

var geminiExitRe = lazyRegexp(`(?m)^Exit Code: (-?\d+)`)

// geminiStatus: an `error` member means failure; a shell's non-zero exit
// shows only as "Exit Code: N" inside llmContent.
func geminiStatus(resp any) string {
	m, ok := resp.(map[string]any)
	if !ok {
		return "success"
	}
	if e, ok := m["error"]; ok && e != nil && e != "" {
		return "error"
	}
	if s, ok := m["llmContent"].(string); ok {
		if mm := geminiExitRe().FindStringSubmatch(s); mm != nil {
			if n, err := strconv.Atoi(mm[1]); err == nil && n != 0 {
				return "error"
			}
		}
	}
	return "success"
}

// parseGeminiUsage reads AfterModel's usageMetadata. Only the chunk that
// carries a finishReason is a telemetry op: earlier chunks of the same
// response would count the same tokens again.
func parseGeminiUsage(p *payload, ev *Event) error {
	resp, err := p.object("llm_response")
	if err != nil {
		return err
	}
	req, err := p.object("llm_request")
	if err != nil {
		return err
	}
	final := false
	if cs, ok := resp["candidates"].([]any); ok {
		for _, c := range cs {
			if cm, ok := c.(map[string]any); ok {
				if fr, _ := cm["finishReason"].(string); fr != "" {
					final = true
				}
			}
		}
	}
	usage, _ := resp["usageMetadata"].(map[string]any)
	if !final || usage == nil {
		ev.Op = OpNone
		return nil
	}
	num := func(k string) *int64 {
		n, ok := usage[k].(json.Number)
		if !ok {
			return nil
		}
		i, err := n.Int64()
		if err != nil || i < 0 {
			return nil
		}
		return &i
	}
	t := &Telemetry{Source: "provider_reported"}
	t.Model, _ = req["model"].(string)
	t.InputTokens = num("promptTokenCount")
	t.OutputTokens = num("candidatesTokenCount")
	t.CacheTokens = num("cachedContentTokenCount")
	ev.Telemetry = t
	ev.Model = t.Model
	return nil
}

// translateGemini maps Gemini CLI's built-in tools onto the gate's
// vocabulary (see geminiTools).
func translateGemini(native string, in map[string]any) (*ToolCall, error) {
	if translate := geminiTools[native]; translate != nil {
		return translate(geminiInput{native: native, in: in})
	}
	// read_many_files takes glob patterns, which the gate cannot check
	// against deny paths one file at a time: it stays opaque, so a lease
	// must name it to allow it. So do write_todos, save_memory (which
	// writes under ~/.gemini), MCP tools and anything newer.
	return opaqueCall(native, in), nil
}

func (a geminiAdapter) Render(ev *Event, v Verdict) Output {
	if ev == nil || ev.Native == "" {
		return unreadableOutput(v)
	}
	if _, known := specOf(geminiEvents, ev.Native); !known && !geminiObserved[ev.Native] {
		return unknownEventOutput(v)
	}
	warn := systemMessage(warningsOf(v))
	out := func(o obj) Output {
		o = o.with("systemMessage", warn)
		if len(o) == 0 {
			return Output{}
		}
		return Output{Stdout: jsonOut(o)}
	}
	hso := func(c string) kv {
		return kv{"hookSpecificOutput", obj{{"hookEventName", ev.Native}, {"additionalContext", c}}}
	}
	switch ev.Native {
	case "BeforeTool":
		switch v.Kind {
		case Allow:
			return out(obj{{"decision", "allow"}})
		case Deny, Fail:
			r := reasonOf(v, "denied by leasedeck")
			o := out(obj{{"decision", "deny"}, {"reason", r}})
			o.Stderr, o.ExitCode = textOut(r), 2
			return o
		case Block:
			r := reasonOf(v, "blocked by leasedeck")
			o := out(obj{{"decision", "deny"}, {"reason", r}, {"continue", false}, {"stopReason", r}})
			o.Stderr, o.ExitCode = textOut(r), 2
			return o
		case Ask:
			warn = systemMessage(strings.TrimSpace(reasonOf(v, "leasedeck asks you to confirm this call") + " " + warn))
		}
		return out(nil)
	case "AfterTool":
		o := obj{}
		if v.Kind == Block || v.Kind == Deny {
			o = append(o, kv{"decision", "deny"}, kv{"reason", reasonOf(v, "leasedeck revoked this session's lease")})
		}
		if c := contextOf(v); c != "" {
			o = append(o, hso(c))
		}
		return out(o)
	case "BeforeAgent":
		switch v.Kind {
		case Deny, Block:
			return out(obj{{"decision", "deny"}, {"reason", reasonOf(v, "refused by leasedeck")}})
		case Allow:
			if c := contextOf(v); c != "" {
				return out(obj{hso(c)})
			}
		}
		return out(nil)
	case "SessionStart":
		c := contextOf(v)
		if v.Kind == Deny || v.Kind == Block {
			r := "leasedeck refused a lease for this session: " + reasonOf(v, "refused") + ". Its tool calls will be refused."
			c = strings.TrimSpace(r + "\n" + c)
			warn = systemMessage(strings.TrimSpace(r + " " + warn))
		}
		if c != "" {
			return out(obj{hso(c)})
		}
		return out(nil)
	}
	return out(nil)
}
