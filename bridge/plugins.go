package bridge

import (
	"path/filepath"
	"strings"
	"time"
)

// Plugin clients (OpenCode, pi) have no command hooks: their hooks are
// in-process JavaScript/TypeScript plugins. leasedeck installs a small
// plugin of its own (bridge/setup/plugins/<client>/) that spawns `leasedeck hook
// <client>` for each relevant event, with a payload it builds from the
// client's event:
//
//	{"hook_event_name": <the client's own event name>, "session_id", "cwd",
//	 "tool_name", "tool_use_id", "tool_input", "prompt",
//	 "tool_output", "is_error", "reason"}
//
// and reads back one JSON object, exit 0:
//
//	{"decision": "allow" | "deny" | "block" | "none", "reason": R, "warnings": [W…]}
//
// (no decision on an event that decides nothing: finalize, abort, a
// recorded post-tool).
// The plugin runs a tool call only on exit 0 with "allow" or "none"; any
// other answer, a non-zero exit, unparsable output, a hook that cannot
// start or one that outlives the plugin's own timer (which install writes
// in, equal to --timeout) blocks the call with the reason: these clients
// give a handler no timeout and run the tool when a plugin fails to load,
// so the plugin itself is what fails closed.

// pluginClients are the adapters whose hooks are a plugin file.
var pluginClients = map[string]bool{"opencode": true, "pi": true}

// IsPluginClient reports whether client's hooks are a plugin file that
// `leasedeck install` writes (InstallPlugin), not entries merged into a
// settings file (Install).
func IsPluginClient(client string) bool {
	a, err := AdapterFor(client)
	return err == nil && pluginClients[a.Name()]
}

// pluginTimeout is the plugin's wait when no --timeout reached the hook;
// install always writes one.
const pluginTimeout = 60 * time.Second

// pluginTranslate maps one client tool call onto the gate's vocabulary;
// cwd is the directory relative paths are resolved against.
type pluginTranslate func(native string, in map[string]any, cwd string) (*ToolCall, error)

// parsePlugin reads the payload a leasedeck plugin built.
func parsePlugin(client string, specs []EventSpec, observed map[string]bool, translate pluginTranslate, stdin []byte) (*Event, error) {
	p, err := decodePayload(client, stdin)
	if err != nil {
		return sniffEvent(client, specs, stdin), err
	}
	ev, spec, known, err := eventHead(p, client, specs, observed, "hook_event_name")
	if !known {
		return ev, err
	}
	if ev.Session, err = p.need("session_id"); err != nil {
		return ev, err
	}
	if ev.Cwd, err = p.str("cwd"); err != nil {
		return ev, err
	}
	if ev.Cwd != "" && !filepath.IsAbs(ev.Cwd) {
		return ev, &InputError{Client: client, Pointer: "/cwd", Msg: "not an absolute path"}
	}
	if ev.Source, err = p.str("reason"); err != nil {
		return ev, err
	}
	if err := parsePluginAgent(p, ev); err != nil {
		return ev, err
	}
	switch spec.Op {
	case OpBegin:
		if _, ok := p.m["prompt"]; !ok {
			return ev, &InputError{Client: client, Pointer: "/prompt", Msg: "missing (required)"}
		}
		ev.Prompt, err = p.str("prompt")
	case OpPreTool, OpPostTool:
		err = parsePluginTool(p, ev, translate)
	case OpFinalize:
		ev.StopReason = "completed"
		ev.SessionEnd = spec.Native == "session_shutdown" || spec.Native == "session.deleted"
		if ev.SessionEnd && ev.Source != "" && ev.Source != "quit" {
			// A session replaced by another (reload, new, resume, fork)
			// ends this one, but says nothing about how its turn went.
			ev.StopReason = ""
		}
	case OpAbort:
		ev.StopReason = "error"
		ev.AbortReason = "session_error: " + nonEmpty(ev.Source, "unknown")
	}
	return ev, err
}

// parsePluginAgent reads the subagent a child session is (OpenCode's task
// tool runs one in a session of its own, whose parent the plugin learns
// from session.created): its calls belong to a child lease of the parent
// session's, and its session going idle ends it.
func parsePluginAgent(p *payload, ev *Event) error {
	id, err := p.str("agent_id")
	if err != nil || id == "" {
		return err
	}
	typ, err := p.str("agent_type")
	if err != nil {
		return err
	}
	ev.Subagent = &Subagent{ID: id, Type: typ}
	ev.Child = ev.Op == OpFinalize
	return nil
}

func parsePluginTool(p *payload, ev *Event, translate pluginTranslate) error {
	native, err := p.need("tool_name")
	if err != nil {
		return err
	}
	in, err := p.toolInput("tool_input")
	if err != nil {
		return err
	}
	useID, err := p.str("tool_use_id")
	if err != nil {
		return err
	}
	tc, err := translate(native, in, ev.Cwd)
	tc, err = vetted(ev.Client, tc, err)
	if err != nil {
		if ev.Gate {
			return err
		}
		// Evidence of a call that already ran is kept even when its input
		// is odd: an opaque tool.
		tc = newCall(native, native, copyMap(in), in)
	}
	tc.UseID = useID
	if tc.Name == ToolBash && ev.Cwd != "" {
		if _, ok := tc.Input["cwd"]; !ok {
			tc.Input["cwd"] = ev.Cwd
		}
	}
	ev.Tool = tc
	if ev.Op == OpPostTool {
		ev.Status = "success"
		if p.boolean("is_error") {
			ev.Status = "error"
		}
		ev.Result = digestResult(tc.Name, p.m["tool_output"], ev.Status)
	}
	return nil
}

// pluginPath resolves a tool's path the way the client does: relative to
// the directory the client runs in. An empty cwd leaves it relative (the
// registry resolves it against the workspace).
func pluginPath(p, cwd string) string {
	if p == "" || filepath.IsAbs(p) || p == "~" || strings.HasPrefix(p, "~/") || cwd == "" {
		return p
	}
	return joinSpelled(cwd, p)
}

// renderPlugin writes the answer a leasedeck plugin reads (see the
// package comment above).
func renderPlugin(specs []EventSpec, observed map[string]bool, ev *Event, v Verdict) Output {
	if ev == nil || ev.Native == "" {
		return unreadableOutput(v)
	}
	if _, known := specOf(specs, ev.Native); !known && !observed[ev.Native] {
		return unknownEventOutput(v)
	}
	o := obj{}
	// Only a gate and a new turn need a decision: "none" runs them. Other
	// events decide nothing but "block" (a post-tool lease revocation).
	decision := ""
	if ev.Gate || ev.Op == OpBegin {
		decision = "none"
	}
	switch {
	case ev.Gate:
		switch v.Kind {
		case Allow:
			decision = "allow"
		case Deny, Fail:
			decision = "deny"
			o = o.with("reason", reasonOf(v, "denied by leasedeck"))
		case Block:
			decision = "block"
			o = o.with("reason", reasonOf(v, "blocked by leasedeck"))
		case Ask:
			// Neither client can put a question to a human from a plugin
			// in a headless run: a call that needs one is refused.
			decision = "deny"
			o = o.with("reason", reasonOf(v, "leasedeck asks a human to confirm this call")+
				" (this client cannot ask from a hook, so the call is refused)")
		}
	case ev.Op == OpBegin:
		switch v.Kind {
		case Allow:
			decision = "allow"
		case Deny, Block:
			decision = "block"
			o = o.with("reason", reasonOf(v, "refused by leasedeck"))
		}
	case ev.Op == OpPostTool && (v.Kind == Block || v.Kind == Deny):
		decision = "block"
		o = o.with("reason", reasonOf(v, "leasedeck revoked this session's lease"))
	}
	if decision != "" {
		o = append(obj{{"decision", decision}}, o...)
	}
	if w := warningsOf(v); w != "" {
		o = append(o, kv{"warnings", []string{systemMessage(w)}})
	}
	return Output{Stdout: jsonOut(o)}
}

// pluginStrings reads optional string members of a tool input; a member
// of another type is an error naming it.
func pluginString(client, tool string, in map[string]any, member string) (string, error) {
	v, ok := in[member]
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", toolError(client, tool, member, "expected a string, got "+typeName(v))
	}
	return s, nil
}

// pluginNeed is pluginString for a member the gate needs.
func pluginNeed(client, tool string, in map[string]any, member string) (string, error) {
	if err := requireString(client, tool, in, member); err != nil {
		return "", err
	}
	return in[member].(string), nil
}
