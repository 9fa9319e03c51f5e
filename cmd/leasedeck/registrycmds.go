package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/leasedeck/leasedeck/handshake"
	"github.com/leasedeck/leasedeck/hookhttp"
	"github.com/leasedeck/leasedeck/journal"
	"github.com/leasedeck/leasedeck/registry"
	"github.com/leasedeck/leasedeck/registry/record"
	"github.com/leasedeck/leasedeck/registry/wire"
	"github.com/leasedeck/leasedeck/schemas"
	"github.com/leasedeck/leasedeck/termtext"
	"github.com/leasedeck/leasedeck/workspace"
)

// workspaceFlag adds --workspace to a flag set.
func workspaceFlag(fs *flag.FlagSet) *string {
	return fs.String("workspace", "", "workspace directory (default: nearest .leasedeck/ upward, or $LEASEDECK_WORKSPACE)")
}

func findWorkspace(flagValue string, e *env) (workspace.Workspace, bool) {
	cwd, _ := os.Getwd()
	w, err := workspace.Find(flagValue, cwd)
	if err != nil {
		e.errorf("%v", err)
		return w, false
	}
	return w, true
}

// runInit: leasedeck init [DIR]
func runInit(args []string, e *env) int {
	fs := flag.NewFlagSet("init", flag.ContinueOnError)
	pos, ok := parseFlags(fs, args, e)
	if !ok || len(pos) > 1 {
		if ok {
			e.errorf("usage: leasedeck init [DIR]")
		}
		return exitUsage
	}
	dir := "."
	if len(pos) == 1 {
		dir = pos[0]
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		e.errorf("cannot initialise %s: not a directory", dir)
		return exitInvalid
	}
	res, err := workspace.Init(dir)
	if err != nil {
		e.errorf("init: %v", err)
		return exitInvalid
	}
	fmt.Fprintf(e.stdout, "workspace %s\n", res.Workspace.Dir())
	for _, p := range res.Created {
		fmt.Fprintf(e.stdout, "  created %s\n", p)
	}
	for _, p := range res.Kept {
		fmt.Fprintf(e.stdout, "  kept    %s\n", p)
	}
	for _, n := range res.Migrated {
		fmt.Fprintf(e.stdout, "  %s\n", n)
	}
	fmt.Fprintf(e.stdout, "state (key, operator token, socket): %s (0700, outside the workspace)\n", res.Workspace.StateDir())
	return exitOK
}

// findOrCreateWorkspace finds the workspace, creating it in the current
// directory when there is none (what the cockpit and serve do).
func findOrCreateWorkspace(flagValue string, e *env) (workspace.Workspace, bool) {
	cwd, _ := os.Getwd()
	w, err := workspace.Find(flagValue, cwd)
	if errors.Is(err, workspace.ErrNotFound) {
		res, ierr := workspace.Init(cwd)
		if ierr != nil {
			e.errorf("init: %v", ierr)
			return w, false
		}
		fmt.Fprintf(e.stderr, "leasedeck: created workspace %s\n", res.Workspace.Dir())
		return res.Workspace, true
	}
	if err != nil {
		e.errorf("%v", err)
		return w, false
	}
	return w, true
}

// openService loads a workspace's settings and key and opens the registry.
func openService(w workspace.Workspace, e *env) (*registry.Service, workspace.Settings, string, int) {
	notes, err := w.Migrate()
	for _, n := range notes {
		fmt.Fprintf(e.stderr, "leasedeck: %s\n", n)
	}
	if err != nil {
		e.errorf("%v", err)
		return nil, workspace.Settings{}, "", exitInvalid
	}
	policy, settings, err := loadPolicy(w)
	if err != nil {
		e.errorf("policy refused: %v", err)
		return nil, settings, "", exitInvalid
	}
	key, err := w.LoadKey()
	if err != nil {
		e.errorf("%v", err)
		return nil, settings, "", exitInvalid
	}
	token, err := w.EnsureToken()
	if err != nil {
		e.errorf("operator token: %v", err)
		return nil, settings, "", exitInvalid
	}
	hsKey, err := w.EnsureHandshakeKey()
	if err != nil {
		e.errorf("handshake secret: %v", err)
		return nil, settings, "", exitInvalid
	}
	svc, err := registry.Open(registry.Config{
		Workspace: w.Root, JournalDir: w.JournalDir(), LockPath: w.LockPath(), Key: key,
		HeadPath: w.HeadPath(), CheckpointKeyPath: w.CheckpointKeyPath(), SnapshotDir: w.SnapshotDir(),
		Policy: &policy, PolicySource: func() (registry.Policy, error) { return registryPolicy(w) }, HandshakeKey: hsKey,
		MaxPendingApprovals: settings.MaxPendingApprovals, MaxHeldCalls: registry.HeldCallsFor(settings.MaxConnections),
		MaxHeldLocal:  hookhttp.MaxInFlight / 2,
		SnapshotEvery: settings.SnapshotEvery, SnapshotInterval: settings.SnapshotInterval,
	})
	if err != nil {
		var locked *journal.LockedError
		if errors.As(err, &locked) {
			e.errorf("another registry already runs in this workspace: %v", err)
		} else {
			e.errorf("cannot start the registry: %v", err)
		}
		return nil, settings, "", exitInvalid
	}
	for _, n := range svc.Journal().Notices() {
		fmt.Fprintf(e.stderr, "leasedeck: journal: %s\n", n)
	}
	reportStart(svc.Start(), e)
	return svc, settings, token, exitOK
}

// reportStart says on stderr how the state was rebuilt when a snapshot
// was involved: from which, or why one there was could not be used (the
// audit journal has the same in a leasedeck.snapshot.refused line).
func reportStart(st registry.StartInfo, e *env) {
	if st.FromSnapshot {
		fmt.Fprintf(e.stderr, "leasedeck: started from the snapshot at %s, replaying %d journal lines after it\n", st.At, st.Replayed)
	}
	for _, r := range st.Refused {
		fmt.Fprintf(e.stderr, "leasedeck: snapshot not used: %s\n", r)
	}
}

// newHandler answers the socket for svc with the connection limits of
// the workspace's policy (openService has checked it; should it have
// become unreadable since, the registry's defaults apply).
func newHandler(w workspace.Workspace, svc *registry.Service, token string) *registry.Handler {
	h := registry.NewHandler(svc, token)
	if st, err := w.LoadSettings(); err == nil {
		h.SetLimits(registry.ConnLimits{MaxConnections: st.MaxConnections, IdleTimeout: st.ConnectionIdle})
	}
	return h
}

// runServe: leasedeck serve
func runServe(args []string, e *env) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	ws := workspaceFlag(fs)
	pos, ok := parseFlags(fs, args, e)
	if !ok || len(pos) != 0 {
		if ok {
			e.errorf("usage: leasedeck serve [--workspace DIR]")
		}
		return exitUsage
	}
	w, ok := findOrCreateWorkspace(*ws, e)
	if !ok {
		return exitInvalid
	}
	svc, _, token, code := openService(w, e)
	if svc == nil {
		return code
	}
	defer svc.Close()
	l, err := registry.Listen(w.SocketPath())
	if err != nil {
		e.errorf("cannot listen on %s: %v", w.SocketPath(), err)
		return exitInvalid
	}
	defer os.Remove(w.SocketPath())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	h := newHandler(w, svc, token)
	hooksServed := serveHookHTTP(ctx, w, h, svc, e)
	defer func() { stop(); hooksServed() }()
	fmt.Fprintf(e.stderr, "leasedeck: registry serving %s on %s (pid %d)\n", w.Root, w.SocketPath(), os.Getpid())
	if herr := svc.Health(); herr != nil {
		fmt.Fprintf(e.stderr, "leasedeck: WARNING: %v\n", herr)
	}
	if err := h.Serve(ctx, l); err != nil {
		e.errorf("serve: %v", err)
		return exitInvalid
	}
	fmt.Fprintln(e.stderr, "leasedeck: registry stopped")
	return exitOK
}

// dialWorkspace connects to the workspace's registry, with the operator
// token when one is readable. Unreachable → exit 4 with how to start it.
func dialWorkspace(flagValue string, e *env) (*wire.Client, workspace.Workspace, int) {
	w, ok := findWorkspace(flagValue, e)
	if !ok {
		return nil, w, exitInvalid
	}
	c, err := dialVerified(w, 5*time.Second)
	var squat *handshake.SquatterError
	if errors.As(err, &squat) {
		e.errorf("%v; nothing was sent to it", err)
		return nil, w, exitUnreachable
	}
	if err != nil {
		e.errorf("%s; start one with 'leasedeck serve' or 'leasedeck'", handshake.Explain(err, w.Root))
		return nil, w, exitUnreachable
	}
	if t, err := w.LoadToken(); err == nil {
		c.SetToken(t)
	}
	return c, w, exitOK
}

// clientCommand runs a subcommand that talks to the registry: it parses
// fs (which gets --workspace) from args, checks there are npos positional
// arguments and that valid (if given) holds, prints usage otherwise, dials
// the workspace's registry and runs fn with the connection.
func clientCommand(fs *flag.FlagSet, args []string, e *env, usage string, npos int, valid func() bool,
	fn func(c *wire.Client, pos []string) int) int {
	ws := workspaceFlag(fs)
	pos, ok := parseFlags(fs, args, e)
	if !ok || len(pos) != npos || (valid != nil && !valid()) {
		if ok {
			e.errorf("usage: %s", usage)
		}
		return exitUsage
	}
	c, _, code := dialWorkspace(*ws, e)
	if c == nil {
		return code
	}
	defer c.Close()
	return fn(c, pos)
}

// callExit maps a client error to an exit code and prints it.
func callExit(err error, e *env) int {
	var re *wire.Error
	switch {
	case errors.As(err, &re):
		e.errorf("%s", re.Message)
		switch re.Code {
		case wire.NotAllowed, wire.Unauthorized, wire.WrongSession, wire.Closed, wire.AlreadyDecided,
			wire.TooManyApprovals, wire.JournalUnavailable:
			return exitRefused
		}
		return exitInvalid
	case errors.Is(err, wire.ErrUnreachable):
		e.errorf("%v; start one with 'leasedeck serve' or 'leasedeck'", err)
		return exitUnreachable
	}
	e.errorf("%v", err)
	return exitInvalid
}

// runIssue: leasedeck issue MANIFEST [--parent ID] [--json]
func runIssue(args []string, e *env) int {
	fs := flag.NewFlagSet("issue", flag.ContinueOnError)
	ws := workspaceFlag(fs)
	parent := fs.String("parent", "", "issue as a child of this lease")
	pos, ok := parseFlags(fs, args, e)
	if !ok || len(pos) != 1 {
		if ok {
			e.errorf("usage: leasedeck issue MANIFEST.json|- [--parent LEASE_ID]")
		}
		return exitUsage
	}
	data, label, err := readInput(pos[0], e)
	if err != nil {
		e.errorf("%v", err)
		return exitInvalid
	}
	if _, err := schemas.ParseJSON(data); err != nil {
		e.errorf("%s: %v", label, err)
		return exitInvalid
	}
	c, _, code := dialWorkspace(*ws, e)
	if c == nil {
		return code
	}
	defer c.Close()
	if code := resolveIDs(c, e, leaseIDs, parent); code != exitOK {
		return code
	}
	res, err := c.Issue(context.Background(), wire.IssueParams{Manifest: wire.DocOf(json.RawMessage(data)), Parent: *parent})
	if err != nil {
		return callExit(err, e)
	}
	if res.Status != wire.Granted {
		out, _ := schemas.Pretty(map[string]any{"lease_id": res.LeaseID, "refusals": anyStrings(res.Refusals), "reason": res.Reason})
		e.stdout.Write(out)
		for _, r := range res.Refusals {
			if r == "runtime_error:invalid_manifest" {
				return exitInvalid
			}
		}
		return exitRefused
	}
	out, err := schemas.Pretty(res.Lease)
	if err != nil {
		e.errorf("%v", err)
		return exitInvalid
	}
	e.stdout.Write(out)
	return exitOK
}

// runLeases: leasedeck leases [--json]
func runLeases(args []string, e *env) int {
	fs := flag.NewFlagSet("leases", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	return clientCommand(fs, args, e, "leasedeck leases [--json]", 0, nil, func(c *wire.Client, _ []string) int {
		res, err := c.Leases(context.Background())
		if err != nil {
			return callExit(err, e)
		}
		if *asJSON {
			b, _ := json.MarshalIndent(res.Leases, "", "  ")
			fmt.Fprintln(e.stdout, string(b))
			return exitOK
		}
		tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "LEASE\tPARENT\tSTATUS\tAGENT\tPURPOSE\tSTEPS\tCHILDREN\tEXPIRES\tREASON")
		for _, l := range res.Leases {
			steps := "-"
			if v, ok := l.Remaining["steps"]; ok {
				steps = fmt.Sprint(v)
			}
			children := fmt.Sprintf("%d/%v", l.LiveChildren, orDash(l.Budget["fan_out"]))
			reason := l.Reason
			if len(l.Refusals) > 0 {
				reason = strings.Join(l.Refusals, ",") + " " + reason
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", short(l.ID), short(l.ParentID), l.Status, termtext.Clip(l.Agent, 24),
				termtext.Clip(l.Purpose, 40), steps, children, l.ExpiresAt, termtext.Clip(reason, 60))
		}
		tw.Flush()
		return exitOK
	})
}

func orDash(v any) any {
	if v == nil {
		return "-"
	}
	return v
}

// short is an id as the cockpit shows it, "-" for none.
func short(id string) string {
	if id == "" {
		return "-"
	}
	return record.ShortID(id)
}

// runCheck: leasedeck check --lease ID --tool NAME [--input JSON]
func runCheck(args []string, e *env) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	ws := workspaceFlag(fs)
	lease := fs.String("lease", "", "lease id")
	tool := fs.String("tool", "", "tool name, in the gate's vocabulary (Bash, Write, Read, WebFetch, …)")
	input := fs.String("input", "", "the tool input as a JSON object, e.g. '{\"command\":\"git status\"}'")
	pos, ok := parseFlags(fs, args, e)
	if !ok || len(pos) != 0 || *lease == "" || *tool == "" {
		if ok {
			e.errorf("usage: leasedeck check --lease ID --tool NAME [--input JSON]")
		}
		return exitUsage
	}
	req := wire.CheckParams{LeaseID: *lease, Tool: *tool}
	if *input != "" {
		v, err := schemas.ParseJSON([]byte(*input))
		if err != nil {
			e.errorf("--input: %v", err)
			return exitInvalid
		}
		if _, isObj := v.(map[string]any); !isObj {
			e.errorf("--input must be a JSON object (the tool input)")
			return exitInvalid
		}
		req.Input = wire.DocOf(v)
	}
	c, _, code := dialWorkspace(*ws, e)
	if c == nil {
		return code
	}
	defer c.Close()
	if code := resolveIDs(c, e, leaseIDs, &req.LeaseID); code != exitOK {
		return code
	}
	ans, err := c.Check(context.Background(), req)
	if err != nil {
		return callExit(err, e)
	}
	fmt.Fprintf(e.stdout, "%s: %s\n", ans.Verdict, ans.Reason)
	switch ans.Verdict {
	case wire.VerdictAllow:
		return exitOK
	case wire.VerdictAsk:
		return exitHuman
	}
	return exitRefused
}

// runRevoke: leasedeck revoke ID --reason TEXT [--by ANCESTOR]
func runRevoke(args []string, e *env) int {
	fs := flag.NewFlagSet("revoke", flag.ContinueOnError)
	reason := fs.String("reason", "", "why (recorded in every revoked line)")
	by := fs.String("by", "", "revoke in the name of this ancestor lease (default: the issuer)")
	hasReason := func() bool { return strings.TrimSpace(*reason) != "" }
	return clientCommand(fs, args, e, "leasedeck revoke LEASE_ID --reason TEXT [--by ANCESTOR_ID]", 1, hasReason, func(c *wire.Client, pos []string) int {
		if code := resolveIDs(c, e, leaseIDs, &pos[0], by); code != exitOK {
			return code
		}
		res, err := c.Revoke(context.Background(), wire.RevokeParams{LeaseID: pos[0], Reason: *reason, By: *by})
		if err != nil {
			return callExit(err, e)
		}
		fmt.Fprintf(e.stdout, "revoked %d lease(s):\n", len(res.Revoked))
		for _, id := range res.Revoked {
			fmt.Fprintf(e.stdout, "  %s\n", id)
		}
		return exitOK
	})
}

// runApprovals: leasedeck approvals [--json]
func runApprovals(args []string, e *env) int {
	fs := flag.NewFlagSet("approvals", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	return clientCommand(fs, args, e, "leasedeck approvals [--json]", 0, nil, func(c *wire.Client, _ []string) int {
		res, err := c.Approvals(context.Background())
		if err != nil {
			return callExit(err, e)
		}
		if *asJSON {
			b, _ := json.MarshalIndent(res.Pending, "", "  ")
			fmt.Fprintln(e.stdout, string(b))
			return exitOK
		}
		if len(res.Pending) == 0 {
			fmt.Fprintln(e.stdout, "no pending approvals")
			return exitOK
		}
		tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "APPROVAL\tLEASE\tCLIENT\tTOOL\tNEEDS\tDEADLINE\tSUMMARY")
		for _, a := range res.Pending {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", a.ID, short(a.LeaseID), a.Client, a.Tool, strings.Join(a.Names, ","), a.Deadline, termtext.Clip(a.Summary, 70))
		}
		tw.Flush()
		return exitOK
	})
}

// runDecide: leasedeck approve ID [--for-lease] | leasedeck deny ID --reason TEXT
func runDecide(outcome string) func(args []string, e *env) int {
	return func(args []string, e *env) int {
		fs := flag.NewFlagSet(outcome, flag.ContinueOnError)
		ws := workspaceFlag(fs)
		forLease := false
		reason := ""
		if outcome == "approve" {
			fs.BoolVar(&forLease, "for-lease", false, "remember the approval for the rest of the lease")
		} else {
			fs.StringVar(&reason, "reason", "", "why (shown to the agent)")
		}
		pos, ok := parseFlags(fs, args, e)
		if !ok || len(pos) != 1 || (outcome == "deny" && strings.TrimSpace(reason) == "") {
			if ok {
				if outcome == "approve" {
					e.errorf("usage: leasedeck approve APPROVAL_ID [--for-lease]")
				} else {
					e.errorf("usage: leasedeck deny APPROVAL_ID --reason TEXT")
				}
			}
			return exitUsage
		}
		c, _, code := dialWorkspace(*ws, e)
		if c == nil {
			return code
		}
		defer c.Close()
		if code := resolveIDs(c, e, approvalIDs, &pos[0]); code != exitOK {
			return code
		}
		req := wire.DecideParams{ApprovalID: pos[0], Reason: reason, By: "operator"}
		if outcome == "approve" {
			req.Outcome, req.Scope = "approved", "once"
			if forLease {
				req.Scope = "lease"
			}
		} else {
			req.Outcome = "denied"
		}
		if _, err := c.Decide(context.Background(), req); err != nil {
			return callExit(err, e)
		}
		fmt.Fprintf(e.stdout, "%s %s\n", map[string]string{"approve": "approved", "deny": "denied"}[outcome], pos[0])
		return exitOK
	}
}

// runStatus: leasedeck status
func runStatus(args []string, e *env) int {
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	return clientCommand(fs, args, e, "leasedeck status", 0, nil, func(c *wire.Client, _ []string) int {
		st, err := c.Status(context.Background())
		if err != nil {
			return callExit(err, e)
		}
		b, _ := json.MarshalIndent(st, "", "  ")
		fmt.Fprintln(e.stdout, string(b))
		return exitOK
	})
}
