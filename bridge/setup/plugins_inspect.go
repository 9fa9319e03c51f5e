package setup

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"

	"github.com/leasedeck/leasedeck/bridge"
)

var (
	pluginExeRe  = regexp.MustCompile(`(?m)^const LEASEDECK = (".*")$`)
	pluginArgsRe = regexp.MustCompile(`(?m)^const ARGS = (\[.*\])$`)
)

// inspectPlugin reads back what a plugin file install wrote says: the
// binary it spawns and the hook command line, one entry per event the
// plugin bridges. A file without leasedeck's marker holds nothing of
// leasedeck's; one with it that cannot be read back is reported unparsed.
func inspectPlugin(client string, src []byte, owner Owner) Inspection {
	var in Inspection
	if !bytes.Contains(src, []byte(pluginMarker)) {
		if len(bytes.TrimSpace(src)) > 0 {
			in.Notes = append(in.Notes, "the plugin file there was not written by leasedeck")
		}
		return in
	}
	hc, parsed := pluginHook(src)
	ours := parsed && hc.Client == client && owner.OwnsCommand(FormatHookCommand(hc.Exe, hc.Client, hc.Workspace, hc.Timeout))
	a, _ := bridge.AdapterFor(client)
	for _, spec := range a.Events() {
		in.Hooks = append(in.Hooks, InstalledHook{Event: spec.Native, Type: "plugin", Hook: hc, Parsed: parsed, Ours: ours,
			Command: FormatHookCommand(hc.Exe, hc.Client, hc.Workspace, hc.Timeout)})
	}
	return in
}

// pluginHook parses the constants install writes into a plugin.
func pluginHook(src []byte) (HookCommand, bool) {
	var hc HookCommand
	var args []string
	em, am := pluginExeRe.FindSubmatch(src), pluginArgsRe.FindSubmatch(src)
	if em == nil || am == nil || json.Unmarshal(em[1], &hc.Exe) != nil || json.Unmarshal(am[1], &args) != nil {
		return hc, false
	}
	if len(args) != 6 || args[0] != "hook" || args[2] != "--workspace" || args[4] != "--timeout" {
		return hc, false
	}
	t, err := strconv.Atoi(args[5])
	if err != nil {
		return hc, false
	}
	hc.Client, hc.Workspace, hc.Timeout = args[1], args[3], t
	return hc, true
}
