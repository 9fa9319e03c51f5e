package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/leasedeck/leasedeck/bridge"
	"github.com/leasedeck/leasedeck/bridge/setup"
	"github.com/leasedeck/leasedeck/durable"
)

// backupSuffix names the copy install keeps of the file it replaced.
const backupSuffix = ".leasedeck-backup"

// runUninstall: leasedeck uninstall CLIENT [--scope project|user] [--dry-run]
func runUninstall(args []string, e *env) int {
	fs := flag.NewFlagSet("uninstall", flag.ContinueOnError)
	ws := workspaceFlag(fs)
	scope := fs.String("scope", "project", "project (this workspace's settings) or user (your home's)")
	dry := fs.Bool("dry-run", false, "print the file as it would be instead of writing it")
	pos, ok := parseFlags(fs, args, e)
	if !ok || len(pos) != 1 {
		if ok {
			e.errorf("usage: leasedeck uninstall %s [--scope project|user] [--dry-run]", strings.Join(bridge.Clients(), "|"))
		}
		return exitUsage
	}
	a, err := bridge.AdapterFor(pos[0])
	if err != nil {
		e.errorf("%v", err)
		return exitUsage
	}
	w, ok := findWorkspace(*ws, e)
	if !ok {
		return exitInvalid
	}
	path, err := setup.SettingsPath(a.Name(), setup.Scope(*scope), clientLocations(w.Root))
	if err != nil {
		e.errorf("%v", err)
		return exitUsage
	}
	current, err := readClientFile(path, *dry)
	if errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(e.stdout, "%s does not exist: no leasedeck hooks for %s to remove\n", path, a.Name())
		return exitOK
	}
	if err != nil {
		e.errorf("uninstall: %v", err)
		return clientFileExit(err)
	}
	// Ours: every entry pinned to this workspace, and the unpinned form an
	// install of this binary would have written before hooks were pinned.
	owner := setup.Owner{Client: a.Name(), Workspace: w.Root}
	if s, err := w.LoadSettings(); err == nil {
		secs := int(bridge.HookTimeoutFor(s.ApprovalTimeout) / time.Second)
		owner.Commands = []string{setup.FormatHookCommand(defaultExecutable(), a.Name(), "", secs)}
	}
	opts := setup.UninstallOptions{Owner: owner, Record: loadInstallRecord(w, path)}
	backup, berr := backupOf(path)
	if berr == nil {
		opts.Backup, opts.HaveBackup = backup, true
	}
	res, err := setup.Uninstall(a.Name(), current, opts)
	if err != nil {
		e.errorf("%s: %v", path, err)
		return exitInvalid
	}
	if len(res.Removed) == 0 {
		fmt.Fprintf(e.stdout, "%s has no leasedeck hooks for %s in this workspace; nothing to remove\n", path, a.Name())
		return exitOK
	}
	if res.Edited {
		// Held, not removed: the file is no longer only what install
		// wrote, and deleting it would lose the user's change.
		e.errorf("%s was changed since install, so it is not only leasedeck's plugin any more: uninstall leaves it. Delete it yourself (rm %s), or put back the file it replaced (mv %s %s)",
			path, shellWord(path), shellWord(path+backupSuffix), shellWord(path))
		return exitRefused
	}
	if *dry {
		fmt.Fprintf(e.stderr, "# %s (dry run, not written)\n", path)
		if res.Delete {
			fmt.Fprintf(e.stderr, "# the file would be deleted: install created it and it holds nothing else\n")
		}
		e.stdout.Write(res.Bytes)
		return exitOK
	}
	if code := writeUninstalled(path, res, berr == nil, a.Name(), opts.Record, e); code != exitOK {
		return code
	}
	dropInstallRecord(w, path)
	return exitOK
}

// writeUninstalled puts the result on disk and says what was done.
func writeUninstalled(path string, res setup.UninstallResult, haveBackup bool, client string, rec *setup.InstallRecord, e *env) int {
	what := "removed leasedeck's hooks for " + client + " (" + strings.Join(res.Removed, ", ") + ") from " + path
	switch {
	case res.Delete:
		if err := os.Remove(path); err != nil {
			e.errorf("cannot remove %s: %v", path, err)
			return exitInvalid
		}
		what += ", which install had created: the file is removed"
		if dirs := removeCreatedDirs(rec); len(dirs) > 0 {
			what += ", and so is " + strings.Join(dirs, ", ") + " (install created it and it is empty)"
		}
		fmt.Fprintln(e.stdout, what)
		return exitOK
	case res.Restored:
		what += ": the file is back as it was before install, byte for byte"
	case haveBackup:
		what += "; the file was changed since install, so only leasedeck's entries went; " + path + backupSuffix + " (the file before install) is left in place"
	}
	mode := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = restoredMode(rec, st.Mode().Perm())
	}
	if err := durable.WriteFile(path, res.Bytes, mode); err != nil {
		e.errorf("cannot write %s: %v", path, err)
		return exitInvalid
	}
	if res.Restored {
		if err := os.Remove(path + backupSuffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(e.stderr, "note: cannot remove %s: %v\n", path+backupSuffix, err)
		}
	}
	fmt.Fprintln(e.stdout, what)
	return exitOK
}

// clientLocations are the directories the clients' settings paths are
// built from, as this environment sets them.
func clientLocations(root string) setup.Locations {
	home, _ := os.UserHomeDir()
	return setup.Locations{Workspace: root, Home: home, CodexHome: os.Getenv("CODEX_HOME"), GeminiHome: os.Getenv("GEMINI_CLI_HOME"),
		ConfigHome: os.Getenv("XDG_CONFIG_HOME"), PiAgentDir: os.Getenv("PI_CODING_AGENT_DIR"), CopilotHome: os.Getenv("COPILOT_HOME")}
}
