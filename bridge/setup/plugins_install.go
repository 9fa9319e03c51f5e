package setup

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/leasedeck/leasedeck/bridge"
)

// The plugins install writes, with their settings as placeholders (each a
// quoted string, so the template itself is valid JavaScript).
//
//go:embed plugins/opencode/leasedeck.js plugins/pi/leasedeck.ts
var pluginSources embed.FS

var pluginTemplates = map[string]string{
	"opencode": "plugins/opencode/leasedeck.js",
	"pi":       "plugins/pi/leasedeck.ts",
}

// pluginMarker is in every plugin leasedeck writes: a file at the plugin's
// path without it is someone else's.
const pluginMarker = "Written by `leasedeck install "

// PluginPath is the file `leasedeck install <client> --scope S` writes
// for a plugin client, where the client discovers it by itself:
//
//	opencode  project .opencode/plugins/leasedeck.js   user $XDG_CONFIG_HOME/opencode/plugins/leasedeck.js (~/.config)
//	pi        project .pi/extensions/leasedeck.ts      user $PI_CODING_AGENT_DIR/extensions/leasedeck.ts (~/.pi/agent)
func PluginPath(client string, scope Scope, loc Locations) (string, error) {
	a, err := bridge.AdapterFor(client)
	if err != nil {
		return "", err
	}
	if !bridge.IsPluginClient(a.Name()) {
		return "", fmt.Errorf("%s takes hook entries in a settings file, not a plugin", a.Name())
	}
	join := filepath.Join
	switch scope {
	case ScopeProject:
		if a.Name() == "opencode" {
			return join(loc.Workspace, ".opencode", "plugins", "leasedeck.js"), nil
		}
		return join(loc.Workspace, ".pi", "extensions", "leasedeck.ts"), nil
	case ScopeUser:
	default:
		return "", fmt.Errorf("unknown scope %q (project or user)", scope)
	}
	switch {
	case a.Name() == "opencode" && loc.ConfigHome != "":
		return join(loc.ConfigHome, "opencode", "plugins", "leasedeck.js"), nil
	case a.Name() == "pi" && loc.PiAgentDir != "":
		return join(loc.PiAgentDir, "extensions", "leasedeck.ts"), nil
	case loc.Home == "":
		return "", errors.New("user scope needs a home directory")
	case a.Name() == "opencode":
		return join(loc.Home, ".config", "opencode", "plugins", "leasedeck.js"), nil
	}
	return join(loc.Home, ".pi", "agent", "extensions", "leasedeck.ts"), nil
}

// PluginOptions are what a plugin is written with.
type PluginOptions struct {
	// Executable is the absolute path of the leasedeck binary the plugin
	// spawns (never a name looked up on PATH, which the agent's shell can
	// change).
	Executable string
	// Workspace is the workspace the hook is pinned to.
	Workspace string
	// Timeout is both the hook's --timeout and the plugin's own timer,
	// after which it kills the hook and refuses the call.
	Timeout time.Duration
}

// PluginSource renders the client's plugin with opts written in.
func PluginSource(client string, opts PluginOptions) ([]byte, error) {
	a, err := bridge.AdapterFor(client)
	if err != nil {
		return nil, err
	}
	tmpl, ok := pluginTemplates[a.Name()]
	if !ok {
		return nil, fmt.Errorf("%s has no plugin", a.Name())
	}
	if !filepath.IsAbs(opts.Executable) || !filepath.IsAbs(opts.Workspace) {
		return nil, errors.New("install: the plugin needs the absolute paths of the leasedeck binary and of the workspace")
	}
	if opts.Timeout < time.Second {
		return nil, errors.New("install: the plugin's timeout must be at least a second")
	}
	src, err := pluginSources.ReadFile(tmpl)
	if err != nil {
		return nil, err
	}
	secs := ceilSeconds(opts.Timeout)
	args := []string{"hook", a.Name(), "--workspace", opts.Workspace, "--timeout", strconv.FormatInt(secs, 10)}
	lit := func(v any) string {
		// encoding/json escapes U+2028/U+2029, so its strings are
		// JavaScript string literals too.
		b, _ := json.Marshal(v)
		return string(b)
	}
	out := strings.NewReplacer(
		`"@@LEASEDECK@@"`, lit(opts.Executable),
		`"@@ARGS@@"`, lit(args),
		`"@@TIMEOUT_MS@@"`, strconv.FormatInt(secs*1000, 10),
	).Replace(string(src))
	return []byte(out), nil
}

// PluginResult is what installing a plugin would do to its file.
type PluginResult struct {
	Bytes []byte
	// Changed is false when the file already is this plugin, byte for byte.
	Changed bool
	// Foreign: the file that is there was not written by leasedeck.
	Foreign bool
	Notes   []string
}

// InstallPlugin decides the plugin file's new content given what is there
// (nil: no file). The plugin file is leasedeck's own: an older one is
// replaced; a file leasedeck did not write is replaced too, and the caller
// keeps a backup of it.
func InstallPlugin(client string, existing []byte, opts PluginOptions) (PluginResult, error) {
	src, err := PluginSource(client, opts)
	if err != nil {
		return PluginResult{}, err
	}
	a, _ := bridge.AdapterFor(client)
	res := PluginResult{Bytes: src, Changed: !bytes.Equal(existing, src)}
	if len(existing) > 0 && !bytes.Contains(existing, []byte(pluginMarker)) {
		res.Foreign = true
		res.Notes = append(res.Notes, "the file there was not written by leasedeck; it is replaced, and kept beside it as .leasedeck-backup")
	}
	switch a.Name() {
	case "opencode":
		res.Notes = append(res.Notes,
			"OpenCode loads the plugin at start: restart running OpenCode sessions",
			"OPENCODE_DISABLE_PROJECT_CONFIG turns project plugins off; with it set, install with --scope user")
	case "pi":
		res.Notes = append(res.Notes,
			"pi loads the extension at start: restart running pi sessions",
			"pi --no-extensions skips discovered extensions, this one included: run pi without it")
	}
	return res, nil
}
