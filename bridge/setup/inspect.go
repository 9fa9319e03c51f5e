package setup

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/leasedeck/leasedeck/bridge"
)

// InstalledHook is one handler in a settings file that runs leasedeck's
// hook, as the file claims it (the file may have been edited by anyone who
// can write it, so this is a report, never a decision).
type InstalledHook struct {
	Event   string
	Type    string // "command", "http", …
	Command string // the command line as written
	URL     string // an HTTP hook's URL (Claude Code), as written
	// Hook is Command read back; Parsed is false when it is not a simple
	// literal command (it mentions leasedeck's hook but cannot be read).
	Hook      HookCommand
	Parsed    bool
	OnFailure string // Claude Code's onFailure, "" when absent
	// Ours: install wrote it for the Owner given to Inspect.
	Ours bool
}

// Inspection is what a settings file holds of leasedeck's.
type Inspection struct {
	Hooks []InstalledHook
	// Notes are the same notes install prints for this file (hooks turned
	// off, a narrow matcher, trust the client needs).
	Notes []string
}

// Inspect lists every handler of settings that runs `leasedeck hook`:
// ours (for owner) and anyone else's (another workspace's, an unreadable
// line).
func Inspect(client string, settings []byte, owner Owner) (Inspection, error) {
	a, err := bridge.AdapterFor(client)
	if err != nil {
		return Inspection{}, err
	}
	if bridge.IsPluginClient(a.Name()) {
		return inspectPlugin(a.Name(), settings, owner), nil
	}
	root, hooks, err := hooksOf(settings)
	if err != nil || hooks == nil {
		return Inspection{}, err
	}
	var in Inspection
	httpHooks := false
	walkHandlers(a.Name(), hooks, func(event string, h *jsonObject) bool {
		cs := handlerCommand(h)
		hc, parsed := ParseHookCommand(cs)
		ours := owner.owns(h)
		if !ours && !(parsed && hc.Client == owner.Client) && !strings.Contains(cs, "leasedeck") {
			return false
		}
		ih := InstalledHook{Event: event, Command: cs, Hook: hc, Parsed: parsed, Ours: ours}
		if u, ok := h.get("url"); ok {
			ih.URL, _ = u.(string)
			httpHooks = httpHooks || ours
		}
		if t, ok := h.get("type"); ok {
			ih.Type, _ = t.(string)
		}
		if f, ok := h.get("onFailure"); ok {
			ih.OnFailure, _ = f.(string)
		}
		in.Hooks = append(in.Hooks, ih)
		return false
	})
	// Only the notes this file's contents cause (hooks turned off, …),
	// not the ones install prints for every file.
	always := clientNotes(a.Name(), &jsonObject{}, httpHooks)
	for _, n := range clientNotes(a.Name(), root, httpHooks) {
		if !slices.Contains(always, n) {
			in.Notes = append(in.Notes, n)
		}
	}
	return in, nil
}

// hooksOf decodes a settings file and finds its "hooks" object: nil when
// the file is empty or has none.
func hooksOf(settings []byte) (*jsonObject, *jsonObject, error) {
	if len(bytes.TrimSpace(settings)) == 0 {
		return &jsonObject{}, nil, nil
	}
	v, err := decodeOrdered(settings)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot read the settings: %w", err)
	}
	root, ok := v.(*jsonObject)
	if !ok {
		return nil, nil, errors.New("the settings are not a JSON object")
	}
	hv, ok := root.get("hooks")
	if !ok || hv == nil {
		return root, nil, nil
	}
	hooks, ok := hv.(*jsonObject)
	if !ok {
		return nil, nil, errors.New(`"hooks" in the settings is not an object`)
	}
	return root, hooks, nil
}

// walkHandlers calls fn for every handler object under hooks, in every
// event (not only the ones install writes: an older install may have
// written others), in both layouts install writes: matcher groups holding
// handlers (Claude Code, Codex, Gemini CLI) and flat handlers (VS Code).
// A handler for which fn answers true is removed from its list; a matcher
// group left with no handler by that is removed, and an event left with
// nothing is removed. It reports whether anything was removed.
func walkHandlers(client string, hooks *jsonObject, fn func(event string, h *jsonObject) bool) bool {
	removedAny := false
	kept := hooks.Members[:0:0]
	for _, m := range hooks.Members {
		list, ok := m.Val.([]any)
		if !ok {
			kept = append(kept, m)
			continue
		}
		var out []any
		removed := false
		for _, e := range list {
			o, ok := e.(*jsonObject)
			if !ok {
				out = append(out, e)
				continue
			}
			inner, grouped := o.get("hooks")
			hs, isList := inner.([]any)
			if flatHandlers(client) || !grouped || !isList {
				if fn(m.Key, o) {
					removed = true
					continue
				}
				out = append(out, e)
				continue
			}
			var keep []any
			for _, h := range hs {
				if ho, ok := h.(*jsonObject); ok && fn(m.Key, ho) {
					removed = true
					continue
				}
				keep = append(keep, h)
			}
			if len(keep) == 0 && len(hs) > 0 {
				continue // a group that held only ours
			}
			if len(keep) != len(hs) {
				o.set("hooks", keep)
			}
			out = append(out, e)
		}
		if removed {
			removedAny = true
			if len(out) == 0 {
				continue
			}
			m.Val = out
		}
		kept = append(kept, m)
	}
	hooks.Members = kept
	return removedAny
}
