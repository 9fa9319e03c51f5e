package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/leasedeck/leasedeck/bridge"
	"github.com/leasedeck/leasedeck/bridge/setup"
	"github.com/leasedeck/leasedeck/workspace"
)

// installPlugin is `leasedeck install opencode|pi`: these clients take an
// in-process plugin, not hook entries, so install writes leasedeck's own
// plugin file (with the binary's absolute path, the pinned workspace and
// the timeout written in) where the client discovers it, keeping a backup
// of a different file it replaces. Running it again changes nothing.
func installPlugin(e *env, client string, w workspace.Workspace, scope, exe string, timeout, approval time.Duration, dry bool) int {
	loc := clientLocations(w.Root)
	path, err := setup.PluginPath(client, setup.Scope(scope), loc)
	if err != nil {
		e.errorf("%v", err)
		return exitUsage
	}
	abs, err := filepath.Abs(exe)
	if err != nil {
		e.errorf("install: %v", err)
		return exitInvalid
	}
	existing, err := readClientFile(path, dry)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		e.errorf("install: %v", err)
		return clientFileExit(err)
	}
	res, err := setup.InstallPlugin(client, existing, setup.PluginOptions{Executable: abs, Workspace: w.Root, Timeout: timeout})
	if err != nil {
		e.errorf("%s: %v", path, err)
		return exitInvalid
	}
	if _, err := os.Stat(w.AgentPath(bridge.RuntimeAgent(client))); err != nil {
		res.Notes = append(res.Notes, fmt.Sprintf("%s is missing, so the registry refuses this client's sessions: run 'leasedeck init' to add it", w.AgentPath(bridge.RuntimeAgent(client))))
	}
	for _, n := range res.Notes {
		fmt.Fprintf(e.stderr, "note: %s\n", n)
	}
	if dry {
		fmt.Fprintf(e.stderr, "# %s (dry run, not written)\n", path)
		e.stdout.Write(res.Bytes)
		return exitOK
	}
	if !res.Changed {
		fmt.Fprintf(e.stdout, "%s already is leasedeck's plugin; nothing changed\n", path)
		return exitOK
	}
	owner := setup.Owner{Client: client, Workspace: w.Root}
	if code := writeInstalled(w, installWrite{client: client, path: path, existing: existing, merged: res.Bytes, plugin: true, owner: owner}, e); code != exitOK {
		return code
	}
	fmt.Fprintf(e.stdout, "installed leasedeck's plugin for %s in %s (it runs %s; hook timeout %s, approval timeout %s)\n",
		client, path, abs, timeout, approval)
	return exitOK
}
