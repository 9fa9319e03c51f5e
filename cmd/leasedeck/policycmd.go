package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/leasedeck/leasedeck/bridge"
	"github.com/leasedeck/leasedeck/handshake"
	"github.com/leasedeck/leasedeck/registry"
	"github.com/leasedeck/leasedeck/registry/wire"
	"github.com/leasedeck/leasedeck/workspace"
)

// registryPolicy reads the workspace's policy and agents for the
// registry: it alone reads them, at start and on an operator's reload.
func registryPolicy(w workspace.Workspace) (registry.Policy, error) {
	p, _, err := loadPolicy(w)
	return p, err
}

// loadPolicy is registryPolicy with the settings it came from.
func loadPolicy(w workspace.Workspace) (registry.Policy, workspace.Settings, error) {
	p, err := w.LoadPolicy()
	if err != nil {
		return registry.Policy{}, p.Settings, err
	}
	return registry.Policy{Root: p.Root, DefaultLifetime: p.DefaultLifetime, ApprovalTimeout: p.ApprovalTimeout,
		Mode: p.Mode, Hash: p.Hash, Agents: p.Agents, AgentHashes: p.AgentHashes, AgentFor: bridge.RuntimeAgent, Calls: p.Calls, ApproveIn: p.ApproveIn}, p.Settings, nil
}

// dialVerified connects to the workspace's registry after checking it is
// the real one (package handshake), so the operator token is never sent
// to a process squatting the socket.
func dialVerified(w workspace.Workspace, timeout time.Duration) (*wire.Client, error) {
	c, _, err := dialVerifiedHello(w, timeout)
	return c, err
}

// dialVerifiedHello is dialVerified, with the registry's answer.
func dialVerifiedHello(w workspace.Workspace, timeout time.Duration) (*wire.Client, handshake.Answer, error) {
	key, err := w.LoadHandshakeKey()
	if err != nil {
		return nil, handshake.Answer{}, fmt.Errorf("%w: cannot check that the registry is the real one: %v", wire.ErrUnreachable, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	conn, hello, err := handshake.Target{Workspace: w.Root, Socket: w.SocketPath(), Lock: w.LockPath(), Key: key}.Dial(ctx, 0)
	var squat *handshake.SquatterError
	if errors.As(err, &squat) {
		return nil, hello, err
	}
	if err != nil {
		return nil, hello, fmt.Errorf("%w: %w", wire.ErrUnreachable, err)
	}
	return wire.NewClient(conn), hello, nil
}

// runPolicy: leasedeck policy reload|show [--json]
func runPolicy(args []string, e *env) int {
	fs := flag.NewFlagSet("policy", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	ws := workspaceFlag(fs)
	pos, ok := parseFlags(fs, args, e)
	if !ok || len(pos) != 1 || (pos[0] != "reload" && pos[0] != "show") {
		if ok {
			e.errorf("usage: leasedeck policy reload|show [--json] [--workspace DIR]")
		}
		return exitUsage
	}
	sub := pos[0]
	c, _, code := dialWorkspace(*ws, e)
	if c == nil {
		return code
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var res wire.PolicyResult
	if sub == "reload" {
		r, err := c.PolicyReload(ctx)
		if err != nil {
			return callExit(err, e)
		}
		res = r
	} else {
		nonce, _ := handshake.NewNonce()
		h, err := c.Hello(ctx, wire.HelloParams{Nonce: nonce})
		if err != nil {
			return callExit(err, e)
		}
		res = wire.PolicyResult{Mode: h.Mode, PolicyHash: h.PolicyHash, ApprovalTimeoutMs: h.ApprovalTimeoutMs}
	}
	if *asJSON {
		b, _ := json.MarshalIndent(res, "", "  ")
		fmt.Fprintln(e.stdout, string(b))
		return exitOK
	}
	verb := "in force"
	if sub == "reload" {
		verb = "reloaded"
	}
	fmt.Fprintf(e.stdout, "policy %s: sha256 %s, mode %s, approval timeout %s\n", verb, res.PolicyHash, res.Mode,
		time.Duration(res.ApprovalTimeoutMs)*time.Millisecond)
	for name, h := range res.AgentHashes {
		fmt.Fprintf(e.stdout, "  agents/%s.json sha256 %s\n", name, h)
	}
	for _, n := range res.Notes {
		fmt.Fprintf(e.stdout, "note: %s\n", n)
	}
	return exitOK
}
