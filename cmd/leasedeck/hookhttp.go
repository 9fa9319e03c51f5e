package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/leasedeck/leasedeck/bridge"
	"github.com/leasedeck/leasedeck/bridge/setup"
	"github.com/leasedeck/leasedeck/hookhttp"
	"github.com/leasedeck/leasedeck/registry"
	"github.com/leasedeck/leasedeck/workspace"
)

// serveHookHTTP serves Claude Code's HTTP hooks for this registry until
// ctx ends, on the loopback port recorded in the state directory (chosen
// by the first of install and the registry to need it). A port it cannot
// bind is reported, never worked around: the hooks installed name that
// port, and with onFailure "block" the client refuses every call until the
// port is free again. The function returned waits until the port is let
// go (after ctx ends).
func serveHookHTTP(ctx context.Context, w workspace.Workspace, h *registry.Handler, svc *registry.Service, e *env) (wait func()) {
	done := make(chan struct{})
	wait = func() { <-done }
	ep, err := hookhttp.Ensure(w.StateDir())
	if err != nil {
		fmt.Fprintf(e.stderr, "leasedeck: WARNING: Claude Code's HTTP hooks are not served: %v\n", err)
		close(done)
		return wait
	}
	l, err := hookhttp.Listen(ep)
	if err != nil {
		fmt.Fprintf(e.stderr, "leasedeck: WARNING: Claude Code's HTTP hooks cannot be served on %s (%v): Claude Code refuses every tool call while they cannot; free the port, or run 'leasedeck install claude-code --command-hooks'\n", ep.Addr(), err)
		close(done)
		return wait
	}
	srv := &hookhttp.Server{Endpoint: ep, Connect: h.Local, CapabilityDir: w.CapabilityDir(),
		Policy: func() (string, time.Duration) {
			info := svc.PolicyInfo()
			return info.Mode, time.Duration(info.ApprovalTimeoutMs) * time.Millisecond
		}}
	go func() {
		defer close(done)
		srv.Serve(ctx, l)
	}()
	return wait
}

// httpHooksIn says why a confined run of client cannot be governed by the
// hooks installed for it ("" when it can): Claude Code's HTTP hooks reach
// the registry over loopback TCP, which the confined tree may not connect
// to, and carry no run ticket, so every call would be refused.
func httpHooksIn(w workspace.Workspace, client string) string {
	if bridge.RuntimeAgent(client) != "claude-code" {
		return ""
	}
	home, _ := os.UserHomeDir()
	loc := setup.Locations{Workspace: w.Root, Home: home}
	for _, scope := range []setup.Scope{setup.ScopeProject, setup.ScopeUser} {
		path, err := setup.SettingsPath("claude-code", scope, loc)
		if err != nil {
			continue
		}
		if b, err := os.ReadFile(path); err == nil && setup.HasHTTPHooks(b) {
			return fmt.Sprintf("%s holds leasedeck's HTTP hooks, which a confined tree cannot reach (it connects only to the egress proxy), so every call would be refused; "+
				"install command hooks for confined runs: leasedeck install claude-code --command-hooks", path)
		}
	}
	return ""
}
