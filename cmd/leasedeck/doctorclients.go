package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/leasedeck/leasedeck/bridge"
	"github.com/leasedeck/leasedeck/bridge/setup"
	"github.com/leasedeck/leasedeck/hookhttp"
	"github.com/leasedeck/leasedeck/registry"
	"github.com/leasedeck/leasedeck/workspace"
)

// doctorClients checks every client install knows: its program and
// version, leasedeck's hooks in each scope's settings file, and what the
// installed version does with a hook that fails. The list is install's
// (bridge.Clients), so a client install learns is checked too.
func doctorClients(r *doctorReport, w workspace.Workspace, approval time.Duration) {
	if approval == 0 {
		// No registry answered: the policy file's timeout, a claim used
		// only to say whether the hooks' timeouts would fit it.
		if s, err := w.LoadSettings(); err == nil {
			approval = s.ApprovalTimeout
		}
	}
	clients := bridge.Clients()
	progs := make([]program, len(clients))
	var wg sync.WaitGroup
	for i, c := range clients {
		facts, _ := setup.Facts(c)
		for _, name := range facts.Programs {
			p := findProgram(name, w.Root)
			progs[i].skipped = append(progs[i].skipped, p.skipped...)
			if p.path != "" {
				progs[i].path = p.path
				break
			}
		}
		wg.Go(progs[i].runVersion)
	}
	wg.Wait()
	var skipped []string
	for i, c := range clients {
		doctorClient(r, w, c, progs[i], approval)
		for _, s := range progs[i].skipped {
			if !slices.Contains(skipped, s) {
				skipped = append(skipped, s)
			}
		}
	}
	if len(skipped) > 0 {
		r.add(finding{Subject: "PATH", Check: "searched", Status: statusNote,
			Detail: "client programs were not looked for (nor run) in: " + strings.Join(skipped, "; ") + ": an agent can put a program there"})
	}
}

func doctorClient(r *doctorReport, w workspace.Workspace, client string, p program, approval time.Duration) {
	loc := clientLocations(w.Root)
	var ours []setup.InstalledHook
	var scopes []setup.Scope
	// The program's line comes first; the scopes' lines are checked first.
	first := len(r.Findings)
	defer func() {
		if i := slices.IndexFunc(r.Findings[first:], func(f finding) bool { return f.Check == "program" }); i > 0 {
			prog := r.Findings[first+i]
			r.Findings = slices.Insert(slices.Delete(r.Findings, first+i, first+i+1), first, prog)
		}
	}()
	for _, scope := range []setup.Scope{setup.ScopeProject, setup.ScopeUser} {
		if found := doctorScope(r, w, client, scope, loc, approval); len(found) > 0 {
			ours = append(ours, found...)
			scopes = append(scopes, scope)
		}
	}
	facts, known := setup.Facts(client)
	switch {
	case p.path == "" && len(ours) > 0:
		r.add(finding{Subject: client, Check: "program", Status: statusNote,
			Detail: fmt.Sprintf("leasedeck's hooks are installed, but no %s program was found on PATH; its version, and so what it does with a failing hook, is unknown", strings.Join(facts.Programs, " or "))})
	case p.path == "":
		r.add(finding{Subject: client, Check: "program", Status: statusOK, Detail: "not installed, no hooks"})
		return
	case p.version == "":
		r.add(finding{Subject: client, Check: "program", Status: statusNote, Detail: p.path + ": version unknown: " + p.why})
	default:
		r.add(finding{Subject: client, Check: "program", Status: statusOK, Detail: p.version + " (" + p.path + ")"})
	}
	if len(ours) == 0 {
		r.add(finding{Subject: client, Check: "hooks", Status: statusNote,
			Detail: "installed, but no leasedeck hook governs its sessions in this workspace", Fix: installFix(client, setup.ScopeProject, w.Root)})
		return
	}
	if !known {
		r.add(finding{Subject: client, Check: "failing hook", Status: statusNote, Detail: "leasedeck has no facts on what this client does with a hook that fails"})
		return
	}
	doctorFailure(r, w, client, facts.Failure(p.version, ours), scopes)
}

// doctorFailure reports whether a hook that cannot answer blocks the call
// or is ignored (fails open) by the installed version.
func doctorFailure(r *doctorReport, w workspace.Workspace, client string, fm setup.FailureMode, scopes []setup.Scope) {
	fix := func() string {
		var fixes []string
		for _, s := range scopes {
			fixes = append(fixes, installFix(client, s, w.Root)+" "+fm.Fix)
		}
		return strings.Join(fixes, " && ")
	}
	f := finding{Subject: client, Check: "failing hook", Detail: fm.Detail}
	switch {
	case fm.Blocks:
		f.Status, f.Detail = statusOK, "blocks the call: "+fm.Detail
	case fm.Wrong != "":
		// install only adds and updates keys: onFailure goes only with
		// the hooks that carry it.
		var fixes []string
		for _, s := range scopes {
			fixes = append(fixes, fmt.Sprintf("leasedeck uninstall %s --scope %s --workspace %s", client, s, shellWord(w.Root)), installFix(client, s, w.Root)+" "+fm.Fix)
		}
		f.Status, f.Detail, f.Fix = statusProblem, fm.Wrong+"; "+fm.Detail, strings.Join(fixes, " && ")
	case fm.Fix != "" && fm.Known:
		f.Status, f.Fix = statusProblem, fix()
	case fm.Fix != "":
		f.Status, f.Fix = statusNote, fix()
	default:
		f.Status, f.Detail = statusNote, "fails open: "+fm.Detail
	}
	r.add(f)
}

// doctorScope checks leasedeck's hooks in one scope's settings file and
// returns the ones install wrote for this workspace.
func doctorScope(r *doctorReport, w workspace.Workspace, client string, scope setup.Scope, loc setup.Locations, approval time.Duration) []setup.InstalledHook {
	check := "hooks (" + string(scope) + ")"
	path, err := setup.SettingsPath(client, scope, loc)
	if err != nil {
		return nil
	}
	fix := installFix(client, scope, w.Root)
	if f, ok := settingsLink(client, check, path, fix); ok {
		r.add(f) // the hooks found through it are checked all the same
	}
	b, err := readSettingsFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		r.add(finding{Subject: client, Check: check, Status: statusProblem, Detail: err.Error(), Fix: fix})
		return nil
	}
	in, err := setup.Inspect(client, b, setup.Owner{Client: client, Workspace: w.Root})
	if err != nil {
		r.add(finding{Subject: client, Check: check, Status: statusProblem, Detail: path + ": " + err.Error(),
			Fix: "correct " + path + " by hand, then " + fix})
		return nil
	}
	var ours []setup.InstalledHook
	var others []string
	for _, h := range in.Hooks {
		switch {
		case h.Ours:
			ours = append(ours, h)
		case !slices.Contains(others, h.Command):
			others = append(others, h.Command)
		}
	}
	for _, o := range others {
		if hc, ok := setup.ParseHookCommand(o); ok && hc.Workspace == "" {
			// An unpinned hook denies every call it gets, and the client
			// runs it beside ours.
			r.add(finding{Subject: client, Check: check, Status: statusProblem,
				Detail: fmt.Sprintf("%s has a leasedeck hook pinned to no workspace, which denies every call: %q", path, o),
				Fix:    fmt.Sprintf("remove the hooks running %q from %s, then %s", o, path, fix)})
			continue
		}
		r.add(finding{Subject: client, Check: check, Status: statusNote,
			Detail: fmt.Sprintf("%s has a leasedeck hook that is not this workspace's: %q", path, o)})
	}
	if len(ours) == 0 {
		return nil
	}
	before := len(r.Findings)
	for _, n := range in.Notes {
		r.add(finding{Subject: client, Check: check, Status: statusProblem, Detail: path + ": " + n, Fix: "edit " + path})
	}
	commands, http := splitHTTPHooks(ours)
	if len(commands) == 0 {
		r.add(finding{Subject: client, Check: check, Status: statusProblem,
			Detail: path + ": leasedeck's HTTP hooks are there but no command hook (SessionStart, which Claude Code does not send over HTTP)", Fix: fix})
		return ours
	}
	doctorHookBinaries(r, client, check, path, commands, w.Root, fix)
	var endpoint *setup.HTTPHooks
	if len(http) > 0 {
		ep, err := hookhttp.Load(w.StateDir())
		if err != nil {
			r.add(finding{Subject: client, Check: check, Status: statusProblem,
				Detail: fmt.Sprintf("%s: leasedeck's HTTP hooks are there, but the workspace records no endpoint for them (%v): every call is refused", path, err), Fix: fix})
			return ours
		}
		endpoint = &setup.HTTPHooks{Base: ep.Base(), Token: ep.Token}
	}
	noOutcomes, outcomes := doctorToolOutcomes(w, client, check, path, ours, fix)
	doctorHookCoverage(r, client, check, path, b, commands, endpoint, approval, noOutcomes, fix)
	if noOutcomes {
		defer r.add(outcomes) // after the scope's ok line, which it qualifies
	}
	if len(r.Findings) == before {
		h := commands[0].Hook
		exe := h.Exe + " (exists, executable)"
		if isHookProgram(h.Exe) {
			exe = h.Exe + " (exists, executable: the lean hook binary)"
		}
		how := "running " + exe
		if len(http) > 0 {
			how = fmt.Sprintf("%d HTTP hook(s) to %s and command hooks running %s", len(http), endpoint.Base, exe)
		}
		r.add(finding{Subject: client, Check: check, Status: statusOK,
			Detail: fmt.Sprintf("%s: %d hook(s), pinned to this workspace, %s, timeout %ds", path, len(ours), how, h.Timeout)})
	}
	doctorHookPrograms(r, client, check, path, commands, w.Root, fix)
	if endpoint != nil {
		if ep, err := hookhttp.Load(w.StateDir()); err == nil {
			doctorHTTPHooks(r, w, "HTTP hooks ("+string(scope)+")", path, b, ep, fix)
		}
	}
	return ours
}

// settingsLink reports a settings file that is a symbolic link, which
// install and uninstall refuse (readClientFile: they neither write through
// a link nor replace it). The client reads its hooks through the link, so
// whoever can write the file it names decides them. The fix replaces the
// link with a copy of that file (or, for a link to nothing, removes it and
// installs again); keeping the link means editing that file by hand.
func settingsLink(client, check, path, fix string) (finding, bool) {
	st, err := os.Lstat(path)
	if err != nil || st.Mode()&fs.ModeSymlink == 0 {
		return finding{}, false
	}
	raw, _ := os.Readlink(path)
	f := finding{Subject: client, Check: check, Status: statusProblem}
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		f.Detail = fmt.Sprintf("%s is a symbolic link to nothing (%s): install and uninstall refuse a link, and %s finds no hooks there", path, raw, client)
		f.Fix = "rm " + shellWord(path) + " && " + fix
		return f, true
	}
	f.Detail = fmt.Sprintf("%s is a symbolic link (to %s): %s reads its hooks from %s, so whoever can write that file decides them, and install and uninstall refuse to write through the link or replace it "+
		"(to keep the link, put leasedeck's entries in %s by hand: install --dry-run prints them)", path, raw, client, target, target)
	f.Fix = "rm " + shellWord(path) + " && cp " + shellWord(target) + " " + shellWord(path)
	return f, true
}

// splitHTTPHooks separates Claude Code's HTTP hooks, which run no
// program, from the command hooks.
func splitHTTPHooks(ours []setup.InstalledHook) (commands, http []setup.InstalledHook) {
	for _, h := range ours {
		if h.Type == "http" {
			http = append(http, h)
		} else {
			commands = append(commands, h)
		}
	}
	return commands, http
}

// doctorHookBinaries checks the program each hook runs, without running
// it: it could be anything an agent planted.
func doctorHookBinaries(r *doctorReport, client, check, path string, ours []setup.InstalledHook, root, fix string) {
	var seen []string
	for _, h := range ours {
		exe := h.Hook.Exe
		if slices.Contains(seen, exe) {
			continue
		}
		seen = append(seen, exe)
		if why := unstableExe(exe, root); why != "" {
			r.add(finding{Subject: client, Check: check, Status: statusProblem, Detail: fmt.Sprintf("%s: the hook runs %s, which %s", path, exe, why), Fix: fix})
		}
	}
}

// doctorHookPrograms notes the command hooks that run the whole leasedeck
// binary's `hook`, whose start-up every hook pays, with the command that
// installs the lean one.
func doctorHookPrograms(r *doctorReport, client, check, path string, commands []setup.InstalledHook, root, fix string) {
	var seen []string
	for _, h := range commands {
		exe := h.Hook.Exe
		if slices.Contains(seen, exe) || isHookProgram(exe) || unstableExe(exe, root) != "" {
			continue
		}
		seen = append(seen, exe)
		r.add(finding{Subject: client, Check: check, Status: statusNote,
			Detail: fmt.Sprintf("%s: the hooks run '%s hook', which starts the whole leasedeck binary for every hook; %s starts in about the time any Go program does", path, exe, hookProgram),
			Fix:    hookInstallLine() + ", then " + fix})
	}
}

// unstableExe says why a hook's executable would not run, or could be
// replaced by an agent, or "" when it is fine.
func unstableExe(exe, root string) string {
	switch {
	case exe == "":
		return "is not named"
	case !filepath.IsAbs(exe):
		return "the client finds through its PATH, where an agent can put another program of that name first"
	case inGoBuildCache(exe):
		return "is a temporary 'go run' build, deleted after that run"
	case within(resolvedPath(exe), resolvedPath(root)):
		return "lies inside the workspace, where an agent can replace it"
	}
	st, err := os.Stat(exe)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "does not exist: every hook fails"
	case err != nil:
		return "cannot be examined: " + unwrapPathErr(err).Error()
	case !st.Mode().IsRegular():
		return "is not a regular file"
	case st.Mode().Perm()&0o111 == 0:
		return "is not executable"
	}
	return ""
}

// doctorHookCoverage asks install what it would change in the file, with
// the same executable and choices as the hooks there: every event it would
// add or bring up to date is a gap. It also checks the hook timeout
// against the approval timeout.
func doctorHookCoverage(r *doctorReport, client, check, path string, settings []byte, ours []setup.InstalledHook, endpoint *setup.HTTPHooks, approval time.Duration, noOutcomes bool, fix string) {
	h := ours[0].Hook
	timeout := time.Duration(h.Timeout) * time.Second
	if approval > 0 && timeout <= approval {
		r.add(finding{Subject: client, Check: check, Status: statusProblem,
			Detail: fmt.Sprintf("%s: the hook timeout (%s) is not longer than the approval timeout (%s): a call held for a human would be cut off by the client", path, timeout, approval), Fix: fix})
		return
	}
	if bridge.IsPluginClient(client) {
		res, err := setup.InstallPlugin(client, settings, setup.PluginOptions{Executable: h.Exe, Workspace: h.Workspace, Timeout: timeout})
		if err != nil || res.Changed {
			r.add(finding{Subject: client, Check: check, Status: statusProblem,
				Detail: fmt.Sprintf("%s is not the plugin install writes (edited, or from another version of leasedeck)", path), Fix: fix})
		}
		return
	}
	a, _ := bridge.AdapterFor(client)
	optional, failClosed := false, false
	for _, s := range a.Events() {
		for _, o := range ours {
			if o.Event == s.Native && s.Optional {
				optional = true
			}
			if o.Event == s.Native && o.OnFailure == "block" {
				failClosed = true
			}
		}
	}
	res, err := setup.Install(client, settings, setup.InstallOptions{Command: setup.FormatHookCommand(h.Exe, client, h.Workspace, h.Timeout), Workspace: h.Workspace,
		ApprovalTimeout: approval, Timeout: timeout, FailClosed: failClosed, Optional: optional, NoToolOutcomes: noOutcomes, HTTP: endpoint})
	if err != nil {
		r.add(finding{Subject: client, Check: check, Status: statusProblem, Detail: path + ": " + err.Error(), Fix: fix})
		return
	}
	if len(res.Added) > 0 {
		r.add(finding{Subject: client, Check: check, Status: statusProblem,
			Detail: fmt.Sprintf("%s: no leasedeck hook for %s: those events are not governed", path, strings.Join(res.Added, ", ")), Fix: fix})
	}
	if len(res.Updated) > 0 {
		r.add(finding{Subject: client, Check: check, Status: statusProblem,
			Detail: fmt.Sprintf("%s: leasedeck's hook for %s is not what install writes (edited, or from an older install)", path, strings.Join(res.Updated, ", ")), Fix: fix})
	}
}

// installFix is the install command that rewrites leasedeck's hooks for
// client in scope, with a stable binary.
func installFix(client string, scope setup.Scope, root string) string {
	cmd := fmt.Sprintf("leasedeck install %s --scope %s --workspace %s", client, scope, shellWord(root))
	if inGoBuildCache(defaultExecutable()) {
		return "go install " + mainPackage() + "@latest && " + cmd
	}
	return cmd
}

// readSettingsFile reads a client's settings file, bounded like every input.
func readSettingsFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	if st.Size() > maxInput {
		return nil, fmt.Errorf("%s is larger than the %d MiB input limit", path, maxInput>>20)
	}
	b := make([]byte, st.Size())
	if _, err := f.ReadAt(b, 0); err != nil && st.Size() > 0 {
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	}
	return b, nil
}

// doctorToolOutcomes: Claude Code's hooks installed with
// --tool-outcomes=false (the gate there, PostToolUse not) are what install
// writes then, so coverage is checked against that; the finding says what
// is not journaled, and is a problem when policy.json asks in the client,
// whose answers are read from PostToolUse.
func doctorToolOutcomes(w workspace.Workspace, client, check, path string, ours []setup.InstalledHook, fix string) (bool, finding) {
	if !setup.ToolOutcomesLeftOut(client, ours) {
		return false, finding{}
	}
	f := finding{Subject: client, Check: check, Status: statusNote,
		Detail: path + ": no PostToolUse hook (installed with --tool-outcomes=false): every call is still gated and journaled before it runs, but the outcome of a call that ran is not journaled, and a turn is certified on the gate's records alone"}
	if s, err := w.LoadSettings(); err == nil && s.ApproveIn == registry.ApproveInClient {
		f.Status = statusProblem
		f.Detail += `; policy.json has approvals.where "client", whose answers are read from PostToolUse: a call the user allowed would be journaled as declined`
		f.Fix = fix
	}
	return true, f
}
