package setup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/leasedeck/leasedeck/bridge"
)

// Scope says whose settings file gets the hooks.
type Scope string

// The install scopes.
const (
	ScopeProject Scope = "project"
	ScopeUser    Scope = "user"
)

// Locations are the directories settings paths are built from. Empty
// Workspace gives paths relative to the workspace root.
type Locations struct {
	Workspace string
	Home      string
	// CodexHome is $CODEX_HOME (default Home/.codex).
	CodexHome string
	// GeminiHome is $GEMINI_CLI_HOME, which replaces Home for Gemini CLI.
	GeminiHome string
	// ConfigHome is $XDG_CONFIG_HOME (default Home/.config), where OpenCode
	// keeps its user configuration.
	ConfigHome string
	// PiAgentDir is $PI_CODING_AGENT_DIR (default Home/.pi/agent).
	PiAgentDir string
	// CopilotHome is $COPILOT_HOME (default Home/.copilot).
	CopilotHome string
}

// SettingsPath is the file `leasedeck install <client> --scope S` edits:
//
//	claude-code  project .claude/settings.json       user ~/.claude/settings.json
//	codex        project .codex/hooks.json           user $CODEX_HOME/hooks.json (~/.codex)
//	gemini       project .gemini/settings.json       user ~/.gemini/settings.json
//	vscode       project .github/hooks/leasedeck.json user ~/.copilot/hooks/leasedeck.json
//	qwen-code    project .qwen/settings.json         user ~/.qwen/settings.json
//	copilot      project .github/hooks/leasedeck-copilot.json  user $COPILOT_HOME/hooks/leasedeck-copilot.json (~/.copilot)
//	opencode, pi: the plugin file (PluginPath)
//
// Codex reads hooks.json beside config.toml, so no TOML is written for the
// hooks themselves. VS Code loads every *.json under .github/hooks, so
// leasedeck keeps a file of its own there instead of editing the user's;
// so does Copilot CLI's (which loads project hooks only in a trusted folder).
func SettingsPath(client string, scope Scope, loc Locations) (string, error) {
	a, err := bridge.AdapterFor(client)
	if err != nil {
		return "", err
	}
	if bridge.IsPluginClient(a.Name()) {
		return PluginPath(a.Name(), scope, loc)
	}
	if scope != ScopeProject && scope != ScopeUser {
		return "", fmt.Errorf("unknown scope %q (project or user)", scope)
	}
	if scope == ScopeUser && loc.Home == "" && !(a.Name() == "codex" && loc.CodexHome != "") &&
		!(a.Name() == "gemini" && loc.GeminiHome != "") && !(a.Name() == "copilot" && loc.CopilotHome != "") {
		return "", errors.New("user scope needs a home directory")
	}
	join := filepath.Join
	switch a.Name() {
	case "claude-code":
		if scope == ScopeProject {
			return join(loc.Workspace, ".claude", "settings.json"), nil
		}
		return join(loc.Home, ".claude", "settings.json"), nil
	case "codex":
		if scope == ScopeProject {
			return join(loc.Workspace, ".codex", "hooks.json"), nil
		}
		if loc.CodexHome != "" {
			return join(loc.CodexHome, "hooks.json"), nil
		}
		return join(loc.Home, ".codex", "hooks.json"), nil
	case "gemini":
		if scope == ScopeProject {
			return join(loc.Workspace, ".gemini", "settings.json"), nil
		}
		if loc.GeminiHome != "" {
			return join(loc.GeminiHome, ".gemini", "settings.json"), nil
		}
		return join(loc.Home, ".gemini", "settings.json"), nil
	case "vscode":
		if scope == ScopeProject {
			return join(loc.Workspace, ".github", "hooks", "leasedeck.json"), nil
		}
		return join(loc.Home, ".copilot", "hooks", "leasedeck.json"), nil
	case "qwen-code":
		if scope == ScopeProject {
			return join(loc.Workspace, ".qwen", "settings.json"), nil
		}
		return join(loc.Home, ".qwen", "settings.json"), nil
	case "copilot":
		if scope == ScopeProject {
			return join(loc.Workspace, ".github", "hooks", "leasedeck-copilot.json"), nil
		}
		if loc.CopilotHome != "" {
			return join(loc.CopilotHome, "hooks", "leasedeck-copilot.json"), nil
		}
		return join(loc.Home, ".copilot", "hooks", "leasedeck-copilot.json"), nil
	}
	return "", fmt.Errorf("no settings path for %q", client)
}

// InstallOptions are what `leasedeck install` decides.
type InstallOptions struct {
	// Command is the hook command line, e.g. "leasedeck hook claude-code
	// --workspace /src/shop --timeout 150".
	Command string
	// Replaces are earlier forms of Command (an install from before hooks
	// were pinned to their workspace): an entry with one of them is ours,
	// and its command is brought up to date rather than left beside the
	// new entry.
	Replaces []string
	// Workspace is the workspace Command is pinned to: an entry pinned to
	// it is ours whatever its executable or timeout (see Owner), so a moved
	// binary or a new approval timeout updates the entry in place.
	Workspace string
	// ApprovalTimeout is the policy's approval timeout; the hook timeout is
	// bridge.HookTimeoutFor(ApprovalTimeout) unless Timeout is set.
	ApprovalTimeout time.Duration
	// Timeout, when set, is the explicit hook timeout. It must exceed
	// ApprovalTimeout, or a held call would be killed by the client (which
	// fails open) before the bridge could answer "deny".
	Timeout time.Duration
	// FailClosed adds `"onFailure": "block"` to Claude Code's gate hooks, so
	// a hook that crashes or times out blocks the call. Claude Code
	// v2.1.295+ only: an older one may reject the unknown key.
	FailClosed bool
	// Optional also installs optional events (Gemini's AfterModel telemetry,
	// one process per streamed chunk).
	Optional bool
	// NoToolOutcomes leaves out Claude Code's PostToolUse hook, the one
	// hook besides the gate that fires on every call, and takes ours out of
	// the file when an earlier install wrote it. The gate is untouched; what
	// goes is the outcome of each call that ran (see ToolOutcomeEvent).
	NoToolOutcomes bool
	// HTTP, when set, makes Claude Code's hooks HTTP hooks POSTed to the
	// registry, for every event but SessionStart (which Claude Code does
	// not send over HTTP: it stays a command hook running Command).
	HTTP *HTTPHooks
}

// InstallResult is a merged settings file.
type InstallResult struct {
	Bytes []byte
	// Changed is false when the file already had every entry (Bytes then
	// equals the input, byte for byte).
	Changed bool
	Added   []string // events that got a leasedeck entry
	Updated []string // events whose existing leasedeck entry was brought up to date
	// Notes are things the user must know or do for the hooks to run
	// (trust, disabled hooks, a narrow matcher on our entry).
	Notes []string
	// Env are the proxy exceptions added to the settings' env beside
	// Claude Code's HTTP hooks, EnvCreated that env was created for them
	// (for the InstallRecord uninstall takes them back with).
	Env        []EnvAddition
	EnvCreated bool
}

// Install merges leasedeck's hook entries for every event the client's
// adapter handles into existing (the settings file's bytes; nil or empty
// for a missing file). It never removes or changes anything but an entry
// whose command is exactly opts.Command, keeps unknown members and their
// order, and is idempotent: installing into its own output changes nothing.
func Install(client string, existing []byte, opts InstallOptions) (InstallResult, error) {
	a, err := bridge.AdapterFor(client)
	if err != nil {
		return InstallResult{}, err
	}
	if bridge.IsPluginClient(a.Name()) {
		return InstallResult{}, fmt.Errorf("install: %s's hooks are a plugin file (InstallPlugin), not settings entries", a.Name())
	}
	opts, err = checkedInstallOptions(opts)
	if err != nil {
		return InstallResult{}, err
	}
	root, hooks, err := settingsHooks(a.Name(), existing)
	if err != nil {
		return InstallResult{}, err
	}
	res := InstallResult{}
	for _, spec := range a.Events() {
		if spec.Optional && !opts.Optional {
			continue
		}
		if opts.NoToolOutcomes && ToolOutcomeEvent(a.Name(), spec.Native) {
			dropOurHandler(a, spec, hooks, opts, &res)
			continue
		}
		if err := mergeEvent(a, spec, hooks, opts, &res); err != nil {
			return InstallResult{}, err
		}
	}
	if opts.HTTP != nil && a.Name() == "claude-code" {
		res.Notes = append(res.Notes, ensureNoProxy(root, opts.HTTP.NoProxy, &res)...)
	}
	res.Notes = append(res.Notes, clientNotes(a.Name(), root, opts.HTTP != nil)...)
	if len(res.Added) == 0 && len(res.Updated) == 0 && len(bytes.TrimSpace(existing)) > 0 {
		res.Bytes = existing
		return res, nil
	}
	res.Changed = true
	res.Bytes = encodeOrdered(root, detectIndent(existing))
	return res, nil
}

// checkedInstallOptions trims the hook command and settles the hook
// timeout, which must outlast the approval timeout (or a waiting call
// would be cut off by the client before a human could answer).
func checkedInstallOptions(opts InstallOptions) (InstallOptions, error) {
	opts.Command = strings.TrimSpace(opts.Command)
	if opts.Command == "" {
		return opts, errors.New("install: empty hook command")
	}
	if opts.Timeout <= 0 {
		if opts.ApprovalTimeout <= 0 {
			return opts, errors.New("install: an approval timeout (or an explicit hook timeout) is required")
		}
		opts.Timeout = bridge.HookTimeoutFor(opts.ApprovalTimeout)
	}
	if opts.Timeout <= opts.ApprovalTimeout {
		return opts, fmt.Errorf("install: hook timeout %s must be longer than the approval timeout %s",
			opts.Timeout, opts.ApprovalTimeout)
	}
	return opts, nil
}

// settingsHooks reads the settings file's bytes (empty: a new file) and
// returns its root object and its "hooks" object, creating the latter.
func settingsHooks(client string, existing []byte) (*jsonObject, *jsonObject, error) {
	root := &jsonObject{}
	if len(bytes.TrimSpace(existing)) > 0 {
		v, err := decodeOrdered(existing)
		if err != nil {
			return nil, nil, fmt.Errorf("install: cannot read the existing settings: %w", err)
		}
		o, ok := v.(*jsonObject)
		if !ok {
			return nil, nil, errors.New("install: the existing settings are not a JSON object")
		}
		root = o
	}
	if client == "copilot" {
		if _, ok := root.get("version"); !ok {
			root.set("version", json.Number("1"))
		}
	}
	hv, ok := root.get("hooks")
	if !ok || hv == nil {
		hv = &jsonObject{}
		root.set("hooks", hv)
	}
	hooks, ok := hv.(*jsonObject)
	if !ok {
		return nil, nil, errors.New(`install: "hooks" in the existing settings is not an object`)
	}
	return root, hooks, nil
}

// mergeEvent puts leasedeck's handler for one event into hooks: updated
// in place when an entry of ours is there, added otherwise.
func mergeEvent(a bridge.Adapter, spec bridge.EventSpec, hooks *jsonObject, opts InstallOptions, res *InstallResult) error {
	want := handlerFor(a, spec, opts)
	ev, present := hooks.get(spec.Native)
	var list []any
	if present && ev != nil {
		l, ok := ev.([]any)
		if !ok {
			return fmt.Errorf("install: hooks.%s in the existing settings is not an array", spec.Native)
		}
		list = l
	}
	owner := Owner{Client: a.Name(), Workspace: opts.Workspace, Commands: append([]string{opts.Command}, opts.Replaces...)}
	found, changed, notes := ensureHandler(a.Name(), list, want, owner, spec)
	res.Notes = append(res.Notes, notes...)
	switch {
	case found && changed:
		res.Updated = append(res.Updated, spec.Native)
	case !found:
		entry := any(want)
		if !flatHandlers(a.Name()) {
			// Claude Code, Codex and Gemini CLI nest handlers in matcher
			// groups; VS Code's native format has no matcher level.
			g := &jsonObject{}
			if spec.Tools {
				g.set("matcher", "*")
			}
			g.set("hooks", []any{want})
			entry = g
		}
		hooks.set(spec.Native, append(list, entry))
		res.Added = append(res.Added, spec.Native)
	}
	return nil
}

// ToolOutcomeEvent is the event --tool-outcomes=false leaves out: Claude
// Code's PostToolUse, which reports every call that ran (a second hook
// round trip per call, about as costly as the gate's). PostToolUseFailure
// and PermissionDenied stay: they fire only when a call fails or is
// refused.
func ToolOutcomeEvent(client, native string) bool {
	return client == "claude-code" && native == "PostToolUse"
}

// ToolOutcomesLeftOut reports whether the hooks install wrote for client
// (ours, read back by Inspect) are those of --tool-outcomes=false: the gate
// is there and the ToolOutcomeEvent is not.
func ToolOutcomesLeftOut(client string, ours []InstalledHook) bool {
	gate, outcomes := false, false
	for _, h := range ours {
		gate = gate || h.Event == "PreToolUse"
		outcomes = outcomes || ToolOutcomeEvent(client, h.Event)
	}
	return client == "claude-code" && gate && !outcomes
}

// dropOurHandler takes leasedeck's handler for one event out of hooks (an
// earlier install's), leaving the user's handlers of that event alone.
func dropOurHandler(a bridge.Adapter, spec bridge.EventSpec, hooks *jsonObject, opts InstallOptions, res *InstallResult) {
	owner := Owner{Client: a.Name(), Workspace: opts.Workspace, Commands: append([]string{opts.Command}, opts.Replaces...)}
	ev, ok := hooks.get(spec.Native)
	if !ok {
		return
	}
	one := &jsonObject{}
	one.set(spec.Native, ev)
	var removed []string
	var http bool
	if !removeOurs(a.Name(), one, owner, &removed, &http) {
		return
	}
	if len(one.Members) == 0 {
		dropMember(hooks, spec.Native)
	} else {
		hooks.set(spec.Native, one.Members[0].Val)
	}
	res.Updated = append(res.Updated, spec.Native)
	res.Notes = append(res.Notes, fmt.Sprintf("hooks.%s: leasedeck's entry was removed (--tool-outcomes=false): the outcome of a call that ran is no longer journaled", spec.Native))
}

// handlerFor builds leasedeck's handler entry for one event.
func handlerFor(a bridge.Adapter, spec bridge.EventSpec, opts InstallOptions) *jsonObject {
	t := opts.Timeout
	if max := a.Timeout(spec.Native).Max; max > 0 && t > max {
		// Codex clamps SessionEnd/Interrupt to 3 s and Claude Code's
		// SessionEnd budget tops out at 60 s: write what will apply.
		t = max
	}
	h := &jsonObject{}
	switch {
	case a.Name() == "claude-code" && opts.HTTP != nil && spec.Native != "SessionStart":
		return httpHandler(spec, opts, t)
	case a.Name() == "gemini":
		// Gemini dedupes hooks by name+command across settings layers and
		// enables/disables them by name.
		h.set("name", "leasedeck")
		h.set("type", "command")
		h.set("command", opts.Command)
		h.set("timeout", json.Number(strconv.FormatInt(t.Milliseconds(), 10))) // milliseconds
		if spec.Gate {
			h.set("description", "leasedeck lease gate")
		}
	case a.Name() == "copilot":
		h.set("type", "command")
		h.set("bash", opts.Command)
		h.set("timeoutSec", json.Number(strconv.FormatInt(ceilSeconds(t), 10)))
	case a.Name() == "qwen-code":
		h.set("type", "command")
		h.set("name", "leasedeck")
		h.set("command", opts.Command)
		h.set("timeout", json.Number(strconv.FormatInt(ceilSeconds(t), 10))) // seconds; 1000+ would read as ms
		if spec.Gate {
			h.set("statusMessage", "Checking with leasedeck")
		}
	default:
		h.set("type", "command")
		h.set("command", opts.Command)
		h.set("timeout", json.Number(strconv.FormatInt(ceilSeconds(t), 10))) // seconds
		if spec.Gate && a.Name() != "vscode" {
			h.set("statusMessage", "Checking with leasedeck")
		}
		if spec.Gate && opts.FailClosed && a.Name() == "claude-code" {
			h.set("onFailure", "block")
		}
	}
	return h
}

func ceilSeconds(d time.Duration) int64 {
	s := int64(d / time.Second)
	if d%time.Second != 0 {
		s++
	}
	if s < 1 {
		s = 1
	}
	return s
}

// ensureHandler looks for our handler (one of our commands: the current
// one first, then the forms it replaces) in an event's list and brings its
// fields up to date. It reports whether it was found and whether anything
// changed, plus notes about entries it leaves alone.
func ensureHandler(client string, list []any, want *jsonObject, owner Owner, spec bridge.EventSpec) (found, changed bool, notes []string) {
	check := func(h *jsonObject, matcher any) {
		cs := handlerCommand(h)
		if owner.owns(h) {
			if found {
				return // a duplicate of ours: left as it is
			}
			found = true
			if kind, _ := h.get("type"); !sameJSON(kind, mustGet(want, "type")) {
				// A command hook becomes an HTTP hook, or back: nothing of
				// the other kind's members may stay.
				h.Members = slices.Clone(want.Members)
				changed = true
				return
			}
			for _, m := range want.Members {
				cur, ok := h.get(m.Key)
				if !ok || !sameJSON(cur, m.Val) {
					h.set(m.Key, m.Val)
					changed = true
				}
			}
			if spec.Tools && matcher != nil {
				if ms, _ := matcher.(string); ms != "" && ms != "*" && ms != ".*" {
					notes = append(notes, fmt.Sprintf("hooks.%s: leasedeck's entry sits under matcher %q, so only those tools are gated; use \"*\"", spec.Native, ms))
				}
			}
			return
		}
		if strings.Contains(cs, "leasedeck hook") {
			notes = append(notes, fmt.Sprintf("hooks.%s: another leasedeck entry (%q) was left unchanged; remove it if it is stale", spec.Native, cs))
		}
	}
	for _, e := range list {
		o, ok := e.(*jsonObject)
		if !ok {
			continue
		}
		if flatHandlers(client) {
			check(o, nil)
			continue
		}
		inner, ok := o.get("hooks")
		if !ok {
			// A flat handler (VS Code style) in a grouped file.
			check(o, nil)
			continue
		}
		hs, _ := inner.([]any)
		m, _ := o.get("matcher")
		for _, h := range hs {
			if ho, ok := h.(*jsonObject); ok {
				check(ho, m)
			}
		}
	}
	return found, changed, notes
}

// flatHandlers: the client's hook file lists handlers under each event
// with no matcher level (VS Code, Copilot CLI).
func flatHandlers(client string) bool { return client == "vscode" || client == "copilot" }

func sameJSON(a, b any) bool {
	ab, _ := json.Marshal(plain(a))
	bb, _ := json.Marshal(plain(b))
	return bytes.Equal(ab, bb)
}

// plain turns an ordered tree into encoding/json values for comparison.
func plain(v any) any {
	switch x := v.(type) {
	case *jsonObject:
		m := map[string]any{}
		for _, mem := range x.Members {
			m[mem.Key] = plain(mem.Val)
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plain(e)
		}
		return out
	}
	return v
}

// clientNotes says what else the client needs for the hooks to run.
func clientNotes(client string, root *jsonObject, httpHooks bool) []string {
	var notes []string
	getPath := func(path ...string) (any, bool) {
		var cur any = root
		for _, p := range path {
			o, ok := cur.(*jsonObject)
			if !ok {
				return nil, false
			}
			if cur, ok = o.get(p); !ok {
				return nil, false
			}
		}
		return cur, true
	}
	switch client {
	case "claude-code":
		if v, _ := getPath("disableAllHooks"); v == true {
			notes = append(notes, "disableAllHooks is true in this file: no hook runs until it is removed")
		}
		if v, _ := getPath("allowManagedHooksOnly"); v == true {
			notes = append(notes, "allowManagedHooksOnly is set: only managed-policy hooks run; install leasedeck in the managed settings")
		}
		if httpHooks {
			notes = append(notes, "VS Code runs the command hooks in .claude/settings.json but may not run its HTTP hooks: for VS Code, install the vscode hooks, or install these with --command-hooks")
		} else {
			notes = append(notes, "VS Code also runs the hooks in .claude/settings.json (with its own payloads, which 'leasedeck hook claude-code' understands); do not also install the vscode hooks for the same workspace, or every call is gated twice")
		}
	case "codex":
		notes = append(notes,
			"Codex runs only trusted hooks: review them with /hooks in Codex (trust is recorded against each hook's hash), or pass --dangerously-bypass-hook-trust for one-off automation",
			"project hooks (.codex/hooks.json) load only in a trusted project (trust_level = \"trusted\" for the project in ~/.codex/config.toml; see CodexConfig)",
			"hooks are on by default since Codex 0.124; older versions need [features] hooks = true")
	case "gemini":
		if v, ok := getPath("tools", "enableHooks"); ok && v == false {
			notes = append(notes, "tools.enableHooks is false in this file: Gemini CLI versions before 0.26 run no hooks while it is")
		}
		if v, ok := getPath("hooks", "disabled"); ok {
			for _, d := range stringsOfOrdered(v) {
				if d == "leasedeck" {
					notes = append(notes, `hooks.disabled lists "leasedeck": the hooks are installed but disabled`)
				}
			}
		}
		notes = append(notes, "Gemini CLI runs hooks only in a trusted folder (trust it in the CLI, or GEMINI_CLI_TRUST_WORKSPACE=true for automation); headless runs need --yolo for shell and write tools to exist")
	case "qwen-code":
		if v, _ := getPath("disableAllHooks"); v == true {
			notes = append(notes, "disableAllHooks is true in this file: no hook runs until it is removed")
		}
		notes = append(notes,
			"Qwen Code lets a call run when a hook fails (crash, missing binary, timeout): keep the leasedeck binary where the hooks name it",
			"headless runs offer the shell and write tools only with --yolo; --safe-mode and --bare turn hooks off")
	case "copilot":
		notes = append(notes,
			"Copilot CLI loads project hooks (.github/hooks/) only with --trust-folder or COPILOT_ALLOW_ALL=true; user hooks ($COPILOT_HOME/hooks, ~/.copilot/hooks) need neither (leasedeck install copilot --scope user)",
			"a Copilot hook that times out lets the call run: leasedeck answers before the timeout written here",
			"headless runs (-p) run shell and write tools only with --allow-all-tools (or --allow-tool); without it Copilot refuses them itself")
	case "vscode":
		notes = append(notes, "VS Code agent hooks are a Preview feature and can be disabled by organisation policy; chat.hookFilesLocations must not turn off the file's folder")
	}
	return notes
}

func stringsOfOrdered(v any) []string {
	arr, _ := v.([]any)
	var out []string
	for _, e := range arr {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
