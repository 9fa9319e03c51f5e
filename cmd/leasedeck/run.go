package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/leasedeck/leasedeck/confine"
	"github.com/leasedeck/leasedeck/egress"
	"github.com/leasedeck/leasedeck/handshake"
	"github.com/leasedeck/leasedeck/hookrun"
	"github.com/leasedeck/leasedeck/registry"
	"github.com/leasedeck/leasedeck/registry/wire"
	"github.com/leasedeck/leasedeck/workspace"
)

// Exit codes of `run` besides the command's own (README, "Confined mode").
const (
	exitLeaseEnded = 6   // the lease was revoked, expired or spent: the tree was stopped
	exitStage      = 125 // the confinement could not be set up
	exitNoCommand  = 127 // the command was not found
)

// stopGrace is how long a stopped tree has between SIGTERM and SIGKILL.
const stopGrace = time.Second

// livePoll is how often run asks whether its lease is still live; with
// stopGrace it bounds how long a revoked tree keeps running (< 2 s).
const livePoll = 200 * time.Millisecond

// tree is a started process tree: confined (confine.Child) or plain.
type tree interface {
	Go() error
	Done() <-chan struct{}
	ExitCode() int
	Stop(grace time.Duration)
	Reap()
}

// runRequest is a parsed `leasedeck run` command line.
type runRequest struct {
	client, workspace string
	allowUnconfined   bool
	argv              []string
}

func parseRun(args []string, e *env) (runRequest, bool) {
	var r runRequest
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.StringVar(&r.client, "client", "", "the client, naming .leasedeck/agents/CLIENT.json (claude-code, codex-cli, gemini-code-assist, …)")
	fs.StringVar(&r.workspace, "workspace", "", "workspace directory (default: nearest .leasedeck/ upward, or $LEASEDECK_WORKSPACE)")
	fs.BoolVar(&r.allowUnconfined, "allow-unconfined", false, "where the kernel cannot confine, run with hooks only instead of refusing")
	if wantsHelp(args) { // the page comes from this FlagSet (help.go)
		helpRequested(fs, e)
		return r, false
	}
	sep := -1
	for i, a := range args {
		if a == "--" {
			sep = i
			break
		}
	}
	usage := "usage: leasedeck run --client NAME [--workspace DIR] [--allow-unconfined] -- COMMAND [ARGS...]"
	if sep < 0 {
		e.errorf("%s", usage)
		return r, false
	}
	if err := fs.Parse(args[:sep]); err != nil || fs.NArg() != 0 {
		e.errorf("%s", usage)
		return r, false
	}
	r.argv = args[sep+1:]
	if r.client == "" || len(r.argv) == 0 {
		e.errorf("%s", usage)
		return r, false
	}
	return r, true
}

// runSession is everything one run holds while its tree runs.
type runSession struct {
	e       *env
	w       workspace.Workspace
	reg     *wire.Client // lease polls, begin/end
	journal *wire.Client // egress reports
	leaseID string
	tmp     string
	// registryPID is the pid of the registry run checked (handshake): the
	// tree's hooks, which cannot read the handshake secret, believe only
	// that process on the socket.
	registryPID int
}

// runRun: leasedeck run --client NAME [--workspace DIR] [--allow-unconfined] -- COMMAND [ARGS...]
func runRun(args []string, e *env) int {
	req, ok := parseRun(args, e)
	if !ok {
		return exitUsage
	}
	w, ok := findWorkspace(req.workspace, e)
	if !ok {
		return exitInvalid
	}
	if why := httpHooksIn(w, req.client); why != "" {
		e.errorf("run refused: %s", why)
		return exitRefused
	}
	abi, why := kernelSupport()
	if why != nil && !req.allowUnconfined {
		e.errorf("run refused: %v; pass --allow-unconfined to run with hooks only", why)
		return exitRefused
	}
	token, err := w.LoadToken()
	if err != nil {
		e.errorf("run needs the operator token to record its run: %v", err)
		return exitInvalid
	}
	manifest, err := w.LoadAgent(req.client)
	if err != nil {
		e.errorf("%v", err)
		return exitInvalid
	}
	rs := &runSession{e: e, w: w}
	for _, c := range []**wire.Client{&rs.reg, &rs.journal} {
		var hello handshake.Answer
		if *c, hello, err = dialVerifiedHello(w, 5*time.Second); err != nil {
			e.errorf("%s; start one with 'leasedeck serve' or 'leasedeck'", handshake.Explain(err, w.Root))
			return exitUnreachable
		}
		rs.registryPID = hello.PID
		(*c).SetToken(token)
		defer (*c).Close()
	}
	granted, ticket, code := rs.begin(req.client, manifest)
	if code != exitOK {
		return code
	}
	return rs.run(req, granted, ticket, abi, why)
}

// kernelSupport answers the Landlock ABI, or why the kernel cannot
// confine (no Landlock, too old for network rules, not Linux).
func kernelSupport() (int, error) {
	abi, err := confine.ABI()
	if err != nil {
		return 0, err
	}
	if err := checkABI(abi); err != nil {
		return abi, err
	}
	return abi, nil
}

// begin asks the registry for the run's session lease.
func (rs *runSession) begin(client string, manifest any) (*registry.Manifest, string, int) {
	res, err := rs.reg.RunBegin(context.Background(), wire.RunBeginParams{Client: client, Manifest: wire.DocOf(manifest), PID: os.Getpid()})
	if err != nil {
		if errors.Is(err, wire.ErrUnreachable) {
			rs.e.errorf("the registry went away: %v", err)
			return nil, "", exitUnreachable
		}
		rs.e.errorf("no lease for the run: %v", err)
		return nil, "", exitRefused
	}
	if res.Issue.Status != wire.Granted {
		rs.e.errorf("lease refused: %s %s", res.Issue.Reason, strings.Join(res.Issue.Refusals, ", "))
		return nil, "", exitRefused
	}
	rs.leaseID = res.Issue.LeaseID
	m, err := registry.ParseManifest(res.Issue.Lease["manifest"])
	if err != nil {
		rs.end(exitInvalid, false, "the granted lease has no readable manifest")
		rs.e.errorf("the granted lease has no readable manifest: %v", err)
		return nil, "", exitInvalid
	}
	return m, res.Ticket, exitOK
}

// run starts the proxy and the tree, watches the lease and ends the run.
func (rs *runSession) run(req runRequest, m *registry.Manifest, ticket string, abi int, unconfinedWhy error) int {
	e := rs.e
	prof := confine.ProfileFor(req.client)
	var err error
	if rs.tmp, err = os.MkdirTemp("", "leasedeck-run-"); err != nil {
		rs.end(exitInvalid, false, "no private temporary directory")
		e.errorf("cannot create a private temporary directory: %v", err)
		return exitInvalid
	}
	defer os.RemoveAll(rs.tmp)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rules := egress.Rules{Allow: append(append([]string(nil), m.Allow.Hosts...), prof.APIHosts...), Deny: m.Deny.Hosts}
	proxy, err := egress.Listen(rules, &egressJournal{c: rs.journal, leaseID: rs.leaseID, e: e})
	if err != nil {
		rs.end(exitInvalid, false, err.Error())
		e.errorf("%v", err)
		return exitInvalid
	}
	go proxy.Serve(ctx)
	env := childEnv(os.Environ(), proxy.URL(), rs.tmp, ticket, rs.w.Root, prof)
	env = append(env, hookrun.EnvRegistryPID+"="+strconv.Itoa(rs.registryPID))
	path, err := lookPath(req.argv[0], env)
	if err != nil {
		rs.end(exitNoCommand, false, "command not found")
		e.errorf("cannot run %s: %v", req.argv[0], err)
		return exitNoCommand
	}
	cwd, _ := os.Getwd()
	var t tree
	var banner string
	if unconfinedWhy != nil {
		t, err = startPlain(path, req.argv, env, cwd)
		banner = "UNCONFINED (hooks only, as --allow-unconfined asked): " + unconfinedWhy.Error()
		if err == nil {
			err = rs.recordConfinement(wire.Confinement{Reason: unconfinedWhy.Error(), Network: "proxy offered, not enforced " + proxy.Addr()})
		}
	} else {
		t, banner, err = rs.startConfined(confinedStart{path: path, argv: req.argv, env: env, dir: cwd, abi: abi,
			proxy: proxy, profile: prof, manifest: m})
	}
	if err != nil {
		code := exitStage
		if t == nil && errors.Is(err, exec.ErrNotFound) {
			code = exitNoCommand
		}
		rs.end(code, false, err.Error())
		e.errorf("run: %v", err)
		return code
	}
	fmt.Fprintf(e.stderr, "leasedeck run: %s; lease %s", banner, rs.leaseID)
	if prof.Note != "" {
		fmt.Fprintf(e.stderr, "; note: %s", prof.Note)
	}
	fmt.Fprintln(e.stderr)
	if err := t.Go(); err != nil {
		t.Stop(0)
		rs.end(exitStage, false, "the confined command could not be started")
		return exitStage
	}
	return rs.watch(t)
}

// watch waits for the tree while polling the lease; a lease that stops
// being live (revoked, expired, spent) or a registry that cannot be
// reached stops the whole tree.
func (rs *runSession) watch(t tree) int {
	sigs := make(chan os.Signal, 4)
	// SIGINT and SIGQUIT from the terminal reach the whole process group,
	// the tree included; run itself waits for the tree to answer them.
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT)
	defer signal.Stop(sigs)
	tick := time.NewTicker(livePoll)
	defer tick.Stop()
	misses := 0
	for {
		select {
		case <-t.Done():
			t.Reap()
			code := t.ExitCode()
			rs.end(code, false, fmt.Sprintf("the command exited with status %d", code))
			return code
		case sig := <-sigs:
			if sig == syscall.SIGINT || sig == syscall.SIGQUIT {
				continue
			}
			t.Stop(stopGrace)
			rs.end(t.ExitCode(), true, "run received "+sig.String())
			return 128 + int(sig.(syscall.Signal))
		case <-tick.C:
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			live, err := rs.reg.RunLive(ctx, wire.RunLiveParams{LeaseID: rs.leaseID})
			cancel()
			switch {
			case err != nil && errors.Is(err, wire.ErrUnreachable):
				misses++
				if misses < 2 {
					continue
				}
				t.Stop(stopGrace)
				rs.e.errorf("run: the registry cannot be reached (%v); the tree was stopped", err)
				return exitUnreachable
			case err != nil:
				t.Stop(stopGrace)
				rs.end(t.ExitCode(), true, "the registry no longer answers for the lease: "+err.Error())
				rs.e.errorf("run: %v; the tree was stopped", err)
				return exitLeaseEnded
			case !live.Live:
				t.Stop(stopGrace)
				rs.end(t.ExitCode(), true, "lease ended: "+live.Reason)
				rs.e.errorf("run: the lease ended (%s); the whole process tree was stopped", live.Reason)
				return exitLeaseEnded
			}
			misses = 0
		}
	}
}

// recordConfinement tells the registry how the tree is held.
func (rs *runSession) recordConfinement(c wire.Confinement) error {
	if err := rs.reg.RunConfined(context.Background(), wire.RunConfinedParams{LeaseID: rs.leaseID, Confinement: c}); err != nil {
		return fmt.Errorf("the registry did not record the confinement: %w", err)
	}
	return nil
}

// end tells the registry the run is over (best effort: the run is ending
// either way, and a registry that is gone has nothing to close).
func (rs *runSession) end(code int, stopped bool, reason string) {
	if rs.leaseID == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	rs.reg.RunEnd(ctx, wire.RunEndParams{LeaseID: rs.leaseID, ExitCode: code, Stopped: stopped, Reason: reason})
}

// childEnv is the tree's environment: the caller's, with every proxy
// variable pointing at the egress proxy (and no NO_PROXY, which would
// send loopback traffic around it), the private temporary directory, the
// run ticket and the pinned workspace.
func childEnv(base []string, proxyURL, tmp, ticket, ws string, prof confine.Profile) []string {
	set := map[string]string{
		"HTTP_PROXY": proxyURL, "HTTPS_PROXY": proxyURL, "ALL_PROXY": proxyURL,
		"http_proxy": proxyURL, "https_proxy": proxyURL, "all_proxy": proxyURL,
		"TMPDIR": tmp, registry.RunTicketEnv: ticket, workspace.EnvWorkspace: ws,
	}
	for _, v := range prof.TempEnv {
		set[v] = tmp
	}
	for k, v := range prof.Env {
		set[k] = v
	}
	drop := map[string]bool{"NO_PROXY": true, "no_proxy": true}
	out := make([]string, 0, len(base)+len(set))
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if _, over := set[k]; over || drop[k] {
			continue
		}
		out = append(out, kv)
	}
	for k, v := range set {
		out = append(out, k+"="+v)
	}
	return out
}

// lookPath finds the command on the tree's PATH and resolves its links
// (the kernel checks the execute right on the file itself).
func lookPath(name string, env []string) (string, error) {
	path := name
	if !strings.ContainsRune(name, '/') {
		dirs := ""
		for _, kv := range env {
			if v, ok := strings.CutPrefix(kv, "PATH="); ok {
				dirs = v
			}
		}
		path = ""
		for _, d := range filepath.SplitList(dirs) {
			if d == "" || !filepath.IsAbs(d) {
				continue // a relative PATH entry would depend on the directory
			}
			c := filepath.Join(d, name)
			if st, err := os.Stat(c); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
				path = c
				break
			}
		}
		if path == "" {
			return "", exec.ErrNotFound
		}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	if st, err := os.Stat(abs); err != nil || st.IsDir() {
		return "", exec.ErrNotFound
	}
	return abs, nil
}

// egressJournal reports the proxy's connections through the registry.
type egressJournal struct {
	c       *wire.Client
	leaseID string
	e       *env
}

func (j *egressJournal) report(ev egress.Event, phase string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return j.c.Egress(ctx, wire.EgressParams{LeaseID: j.leaseID, Phase: phase, Host: ev.Host, Port: ev.Port,
		Method: ev.Method, Allowed: ev.Allowed, Reason: ev.Reason, BytesUp: ev.BytesUp, BytesDown: ev.BytesDown})
}

func (j *egressJournal) Decided(ev egress.Event) error { return j.report(ev, "decided") }

func (j *egressJournal) Closed(ev egress.Event) {
	if err := j.report(ev, "closed"); err != nil {
		j.e.errorf("run: an egress connection's end could not be journaled: %v", err)
	}
}
