package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/leasedeck/leasedeck/bridge"
	"github.com/leasedeck/leasedeck/bridge/setup"
	"github.com/leasedeck/leasedeck/hookhttp"
	"github.com/leasedeck/leasedeck/hookrun"
	"github.com/leasedeck/leasedeck/registry"
	"github.com/leasedeck/leasedeck/workspace"
)

// runBridge: leasedeck bridge — one lifecycle request on stdin, one
// response on stdout, both validated against the lifecycle schema.
// Exit 0 with any decision; 1 invalid request (an `error` response);
// 4 registry unreachable (the response still says what to do).
func runBridge(args []string, e *env) int {
	fs := flag.NewFlagSet("bridge", flag.ContinueOnError)
	ws := workspaceFlag(fs)
	wait := fs.Duration("max-wait", 0, "longest a call needing a human may wait (default: the policy's approval timeout)")
	pos, ok := parseFlags(fs, args, e)
	if !ok || len(pos) != 0 {
		if ok {
			e.errorf("usage: leasedeck bridge < request.json")
		}
		return exitUsage
	}
	write := func(r bridge.Response, code int) int {
		if err := r.Validate(); err != nil {
			r = bridge.ErrorResponse(r.Op, "internal: response failed its schema: "+err.Error())
			code = exitInvalid
		}
		b, _ := json.Marshal(r)
		fmt.Fprintln(e.stdout, string(b))
		return code
	}
	data, err := hookrun.ReadAllLimited(e.stdin, hookrun.MaxInput)
	if err != nil {
		return write(bridge.ErrorResponse("", err.Error()), exitInvalid)
	}
	req, err := bridge.ParseRequest(data)
	if err != nil {
		return write(bridge.ErrorResponse(string(req.Op), err.Error()), exitInvalid)
	}
	// The whole exchange ends before a client using the default hook
	// timeout for this wait would give up.
	limit := bridge.HookTimeoutFor(*wait)
	if *wait <= 0 {
		limit = bridge.HookTimeoutFor(workspace.ApprovalTimeoutMs * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	t := hookrun.Connect(ctx, *ws)
	if !t.Connected() {
		return write(hookrun.Unanswered(&bridge.Event{Op: req.Op, Gate: req.Op == bridge.OpPreTool}, t.Why()), exitUnreachable)
	}
	defer t.Close()
	if *wait <= 0 {
		*wait = t.ApprovalTimeout()
	}
	return write(bridge.Process(t.Caller(), req, t.Options(ctx, *wait)), exitOK)
}

// runHook: leasedeck hook CLIENT [--workspace DIR] [--timeout SECONDS] —
// a client's native hook payload on stdin, the client's own answer on
// stdout/stderr and exit code (package hookrun, which the lean
// leasedeck-hook binary runs too).
func runHook(args []string, e *env) int {
	fs := flag.NewFlagSet("hook", flag.ContinueOnError)
	var inv hookrun.Invocation
	inv.Flags(fs)
	pos, ok := parseFlags(fs, args, e)
	if !ok || len(pos) != 1 {
		if ok {
			e.errorf("usage: leasedeck hook %s [--timeout SECONDS] < payload.json", strings.Join(bridge.Clients(), "|"))
		}
		return exitUsage
	}
	inv.Client = pos[0]
	code, err := hookrun.Run(inv, hookrun.Streams{Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr})
	if err != nil {
		e.errorf("%v", err)
		return exitUsage
	}
	return code
}

// runInstall: leasedeck install CLIENT [--scope project|user] [--dry-run]
func runInstall(args []string, e *env) int {
	fs := flag.NewFlagSet("install", flag.ContinueOnError)
	ws := workspaceFlag(fs)
	scope := fs.String("scope", "project", "project (this workspace's settings) or user (your home's)")
	dry := fs.Bool("dry-run", false, "print the merged configuration instead of writing it")
	command := fs.String("command", "", "the leasedeck executable the hooks run (default: leasedeck on PATH, else this binary)")
	failClosed := fs.Bool("fail-closed", true, "Claude Code only: add onFailure=block so a hook that cannot run blocks the call (v2.1.295+; --fail-closed=false for an older one)")
	optional := fs.Bool("optional", false, "also install optional events (Gemini CLI AfterModel telemetry)")
	commandHooks := fs.Bool("command-hooks", false, "Claude Code only: command hooks ('leasedeck hook' per event) instead of HTTP hooks served by the registry")
	toolOutcomes := fs.Bool("tool-outcomes", true, "Claude Code only: install PostToolUse, which journals the outcome of every call that ran (--tool-outcomes=false: one hook per call instead of two; the gate is unchanged)")
	pos, ok := parseFlags(fs, args, e)
	if !ok || len(pos) != 1 {
		if ok {
			e.errorf("usage: leasedeck install %s [--scope project|user] [--dry-run]", strings.Join(bridge.Clients(), "|"))
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
	settings, err := w.LoadSettings()
	if err != nil {
		e.errorf("policy refused: %v", err)
		return exitInvalid
	}
	loc := clientLocations(w.Root)
	path, err := setup.SettingsPath(a.Name(), setup.Scope(*scope), loc)
	if err != nil {
		e.errorf("%v", err)
		return exitUsage
	}
	leasedeckExe, exe, ok := installExecutable(*command, a.Name(), w.Root, e)
	if !ok {
		return exitRefused
	}
	timeout := bridge.HookTimeoutFor(settings.ApprovalTimeout)
	if bridge.IsPluginClient(a.Name()) {
		return installPlugin(e, a.Name(), w, *scope, exe, timeout, settings.ApprovalTimeout, *dry)
	}
	// The hook is pinned to this workspace: it never looks for one from
	// the directory a call runs in, which the agent chooses.
	unpinned := setup.FormatHookCommand(leasedeckExe, a.Name(), "", int(timeout/time.Second))
	cmdline := setup.FormatHookCommand(exe, a.Name(), w.Root, int(timeout/time.Second))
	existing, err := readClientFile(path, *dry)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		e.errorf("install: %v", err)
		return clientFileExit(err)
	}
	opts := setup.InstallOptions{Command: cmdline, Replaces: []string{unpinned}, Workspace: w.Root, ApprovalTimeout: settings.ApprovalTimeout,
		Timeout: timeout, FailClosed: *failClosed, Optional: *optional, NoToolOutcomes: !*toolOutcomes && a.Name() == "claude-code"}
	if opts.NoToolOutcomes && settings.ApproveIn == registry.ApproveInClient {
		// A call asked in the client is answered by its PostToolUse: without
		// it, one the user allowed would be journaled as declined.
		e.errorf("install: --tool-outcomes=false cannot be used with approvals.where \"client\" in policy.json: the answer to a call asked in Claude Code is read from its PostToolUse")
		return exitRefused
	}
	if opts.HTTP, err = httpHooksFor(a.Name(), w, *commandHooks, *failClosed, e); err != nil {
		e.errorf("install: %v (or pass --command-hooks)", err)
		return exitInvalid
	}
	res, err := setup.Install(a.Name(), existing, opts)
	if err != nil {
		e.errorf("%s: %v", path, err)
		return exitInvalid
	}
	for _, n := range res.Notes {
		fmt.Fprintf(e.stderr, "note: %s\n", n)
	}
	if *dry {
		fmt.Fprintf(e.stderr, "# %s (dry run, not written)\n", path)
		e.stdout.Write(res.Bytes)
		return exitOK
	}
	if !res.Changed {
		fmt.Fprintf(e.stdout, "%s already has leasedeck's hooks; nothing changed\n", path)
		return exitOK
	}
	owner := setup.Owner{Client: a.Name(), Workspace: w.Root, Commands: []string{cmdline, unpinned}}
	if code := writeInstalled(w, installWrite{client: a.Name(), path: path, existing: existing, merged: res.Bytes, holdsToken: opts.HTTP != nil,
		owner: owner, env: res.Env, envCreated: res.EnvCreated}, e); code != exitOK {
		return code
	}
	kind := "command"
	if opts.HTTP != nil {
		kind = "HTTP (served by the registry on " + opts.HTTP.Base + ")"
	}
	fmt.Fprintf(e.stdout, "installed leasedeck's %s hooks for %s in %s (hook timeout %s, approval timeout %s)\n",
		kind, a.Name(), path, timeout, settings.ApprovalTimeout)
	return exitOK
}

// httpHooksFor is where install points Claude Code's HTTP hooks, nil for
// command hooks: those asked for, another client's, or without
// onFailure "block" (an HTTP hook that gets no answer lets the call run
// then; a command hook still denies when the registry does not answer).
func httpHooksFor(client string, w workspace.Workspace, commandHooks, failClosed bool, e *env) (*setup.HTTPHooks, error) {
	if client != "claude-code" || commandHooks {
		return nil, nil
	}
	if !failClosed {
		fmt.Fprintf(e.stderr, "note: --fail-closed=false: command hooks, since an HTTP hook without onFailure \"block\" lets a call run when the registry does not answer\n")
		return nil, nil
	}
	return httpHooks(w)
}

// httpHooks is where Claude Code's HTTP hooks go: the workspace
// registry's endpoint, recorded in the state directory (the registry
// serves it from its next start, or at once if it runs).
func httpHooks(w workspace.Workspace) (*setup.HTTPHooks, error) {
	if err := w.EnsureStateDir(); err != nil {
		return nil, err
	}
	ep, err := hookhttp.Ensure(w.StateDir())
	if err != nil {
		return nil, err
	}
	return &setup.HTTPHooks{Base: ep.Base(), Token: ep.Token,
		NoProxy: strings.Join([]string{os.Getenv("NO_PROXY"), os.Getenv("no_proxy")}, ",")}, nil
}

func defaultExecutable() string {
	exe, _ := defaultExecutableFrom()
	return exe
}

// defaultExecutableFrom is leasedeck on PATH, else this binary; fromPath
// says which.
func defaultExecutableFrom() (exe string, fromPath bool) {
	if p, err := exec.LookPath("leasedeck"); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs, true
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return "leasedeck", false
	}
	return exe, false
}

// inGoBuildCache reports whether exe lies in a directory Go's build made
// for one `go run` (…/go-build…/exe/leasedeck), which is removed after.
func inGoBuildCache(exe string) bool {
	for _, part := range strings.Split(filepath.ToSlash(exe), "/") {
		if strings.HasPrefix(part, "go-build") {
			return true
		}
	}
	return false
}

// mainPackage is this command's import path, for the go install line.
func mainPackage() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Path != "" {
		return info.Path
	}
	return "github.com/leasedeck/leasedeck/cmd/leasedeck"
}
