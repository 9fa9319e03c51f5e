package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/charmbracelet/x/term"

	"github.com/leasedeck/leasedeck/registry"
	"github.com/leasedeck/leasedeck/registry/wire"
	"github.com/leasedeck/leasedeck/tui"
	"github.com/leasedeck/leasedeck/tui/demo"
	"github.com/leasedeck/leasedeck/workspace"
)

// EnvDemoInfo names a file `leasedeck demo` writes its temporary
// workspace's paths to (JSON), so a script or a test can follow the demo
// from outside.
const EnvDemoInfo = "LEASEDECK_DEMO_INFO"

// needTerminal refuses to draw the cockpit into a pipe: a script that
// runs `leasedeck` with no arguments gets a usage error, as before the
// cockpit existed, rather than a screenful of escape codes.
func needTerminal(e *env) bool {
	if term.IsTerminal(os.Stdin.Fd()) && term.IsTerminal(os.Stdout.Fd()) {
		return true
	}
	usage(e.stderr)
	e.errorf("the cockpit needs a terminal; run a subcommand (see 'leasedeck help')")
	return false
}

// runCockpit: leasedeck [--workspace DIR] [--readonly]
func runCockpit(args []string, e *env) int {
	fs := flag.NewFlagSet("leasedeck", flag.ContinueOnError)
	ws := workspaceFlag(fs)
	readonly := fs.Bool("readonly", false, "watch without acting: no approve, deny or revoke, and no registry started")
	pos, ok := parseFlags(fs, args, e)
	if !ok || len(pos) != 0 {
		if ok {
			e.errorf("usage: leasedeck [--workspace DIR] [--readonly]")
		}
		return exitUsage
	}
	if !needTerminal(e) {
		return exitUsage
	}
	if *readonly {
		w, ok := findWorkspace(*ws, e)
		if !ok {
			return exitInvalid
		}
		return watchOnly(w, e)
	}
	w, ok := findOrCreateWorkspace(*ws, e)
	if !ok {
		return exitInvalid
	}
	// Take the lock and run the registry here; if another process holds
	// it and answers on the socket, attach to that one instead. What
	// openService would print is kept until we know it is an error.
	var quiet bytes.Buffer
	svc, _, token, code := openService(w, &env{stdin: e.stdin, stdout: e.stdout, stderr: &quiet})
	if svc == nil {
		if pid, up := registryPID(w); up {
			return attach(w, pid, e)
		}
		e.stderr.Write(quiet.Bytes())
		return code
	}
	return embedded(w, svc, token, e, "", nil)
}

// registryPID asks the workspace's registry for its pid.
func registryPID(w workspace.Workspace) (int, bool) {
	c, err := wire.Dial(w.SocketPath(), 2*time.Second)
	if err != nil {
		return 0, false
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st, err := c.Status(ctx)
	if err != nil {
		return 0, false
	}
	return st.PID, true
}

func keyOf(w workspace.Workspace) *registry.Key {
	k, err := w.LoadKey()
	if err != nil {
		return nil
	}
	return &k
}

// snapshotsOf is where the cockpit finds the registry's snapshots to
// start from (nil without the key: a snapshot is believed only under it).
func snapshotsOf(w workspace.Workspace, key *registry.Key) *registry.SnapshotSource {
	if key == nil {
		return nil
	}
	return &registry.SnapshotSource{Dir: w.SnapshotDir(), Key: *key, Workspace: w.Root, JournalDir: w.JournalDir(), HeadPath: w.HeadPath()}
}

// embedded serves the registry in this process, exactly as `serve` does,
// and runs the cockpit on top of it; its actions go through the socket.
//
// Quitting may ask for a registry to keep serving in the background
// (never for the demo, whose workspace goes with it): once this process
// has closed its registry and let the workspace go, one is started.
func embedded(w workspace.Workspace, svc *registry.Service, token string, e *env, note string, during func(ctx context.Context)) int {
	defer svc.Close()
	l, err := registry.Listen(w.SocketPath())
	if err != nil {
		e.errorf("cannot listen on %s: %v", w.SocketPath(), err)
		return exitInvalid
	}
	// The socket goes with this registry, unless a background registry
	// has taken the path over by then.
	ownSocket := true
	defer func() {
		if ownSocket {
			os.Remove(w.SocketPath())
		}
	}()
	// Bubble Tea handles SIGINT and SIGTERM itself; a closed terminal
	// (SIGHUP) must also end the cockpit through its cleanup, or the
	// socket (and a demo's temporary workspace) would be left behind.
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGHUP)
	var wg sync.WaitGroup
	h := newHandler(w, svc, token)
	hooksServed := serveHookHTTP(ctx, w, h, svc, e)
	wg.Add(1)
	go func() {
		defer wg.Done()
		h.Serve(ctx, l)
	}()
	if during != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			during(ctx)
		}()
	}
	key := keyOf(w)
	opts := tui.Options{
		Workspace: w.Root, JournalDir: w.JournalDir(), Socket: w.SocketPath(), Key: key, Snapshots: snapshotsOf(w, key),
		Mode: tui.Embedded, PID: os.Getpid(), Actor: tui.SocketActor{Socket: w.SocketPath(), Token: token}, Note: note,
		Background: during == nil && canServeInBackground,
	}
	err = tui.Run(ctx, opts)
	cancel()
	wg.Wait()
	hooksServed()
	if errors.Is(err, tui.ErrServeInBackground) {
		svc.Close()
		os.Remove(w.SocketPath())
		ownSocket = false
		pid, logPath, berr := serveInBackground(w)
		if berr != nil {
			e.errorf("cockpit: could not keep a registry serving: %v", berr)
			return exitInvalid
		}
		fmt.Fprintf(e.stderr, "leasedeck: a registry keeps serving %s in the background (pid %d; log %s); stop it with: kill %d\n", w.Root, pid, logPath, pid)
		return exitOK
	}
	if err != nil {
		e.errorf("cockpit: %v", err)
		return exitInvalid
	}
	return exitOK
}

// attach runs the cockpit against a registry another process runs.
func attach(w workspace.Workspace, pid int, e *env) int {
	key := keyOf(w)
	opts := tui.Options{
		Workspace: w.Root, JournalDir: w.JournalDir(), Socket: w.SocketPath(), Key: key, Snapshots: snapshotsOf(w, key),
		Mode: tui.Attached, PID: pid,
	}
	if token, err := w.LoadToken(); err == nil && token != "" {
		opts.Actor = tui.SocketActor{Socket: w.SocketPath(), Token: token}
	} else {
		opts.Note = "no operator token: watching only"
	}
	return runTUI(opts, e)
}

// runTUI runs a cockpit that serves no registry itself.
func runTUI(opts tui.Options, e *env) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGHUP)
	defer stop()
	if err := tui.Run(ctx, opts); err != nil {
		e.errorf("cockpit: %v", err)
		return exitInvalid
	}
	return exitOK
}

// watchOnly follows the journal without taking the lock or acting.
func watchOnly(w workspace.Workspace, e *env) int {
	pid, _ := registryPID(w)
	key := keyOf(w)
	opts := tui.Options{
		Workspace: w.Root, JournalDir: w.JournalDir(), Socket: w.SocketPath(), Key: key, Snapshots: snapshotsOf(w, key),
		Mode: tui.ReadOnly, PID: pid,
	}
	return runTUI(opts, e)
}

// runDemo: leasedeck demo [--agents N] [--pace DURATION]
func runDemo(args []string, e *env) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	agents := fs.Int("agents", 4, "how many simulated top-level agents")
	pace := fs.Duration("pace", 900*time.Millisecond, "pause between one agent's steps")
	pos, ok := parseFlags(fs, args, e)
	if !ok || len(pos) != 0 || *agents < 1 || *agents > 64 || *pace <= 0 {
		if ok {
			e.errorf("usage: leasedeck demo [--agents N (1-64)] [--pace DURATION]")
		}
		return exitUsage
	}
	if !needTerminal(e) {
		return exitUsage
	}
	dir, err := os.MkdirTemp("", "leasedeck-demo-")
	if err != nil {
		e.errorf("%v", err)
		return exitInvalid
	}
	defer os.RemoveAll(dir)
	// The demo's key, operator token and socket go to its own state dir:
	// nothing of the user's is read or written.
	for v, sub := range map[string]string{"XDG_CONFIG_HOME": "config", workspace.EnvStateHome: "state"} {
		if err := os.Setenv(v, filepath.Join(dir, sub)); err != nil {
			e.errorf("%v", err)
			return exitInvalid
		}
	}
	os.Unsetenv(workspace.EnvWorkspace)
	root := filepath.Join(dir, "workspace")
	if err := os.Mkdir(root, 0o700); err != nil {
		e.errorf("%v", err)
		return exitInvalid
	}
	res, err := workspace.Init(root)
	if err != nil {
		e.errorf("init: %v", err)
		return exitInvalid
	}
	w := res.Workspace
	if info := os.Getenv(EnvDemoInfo); info != "" {
		b, _ := json.Marshal(map[string]any{"workspace": w.Root, "journal": w.JournalDir(), "socket": w.SocketPath(), "pid": os.Getpid()})
		if err := os.WriteFile(info, append(b, '\n'), 0o600); err != nil {
			e.errorf("%s: %v", EnvDemoInfo, err)
			return exitInvalid
		}
	}
	svc, _, token, code := openService(w, e)
	if svc == nil {
		return code
	}
	fleet := &demo.Fleet{
		Socket: w.SocketPath(), Agents: *agents, Pace: *pace,
		Manifest: func(client string) (map[string]any, error) {
			v, err := w.LoadAgent(client)
			if err != nil {
				return nil, err
			}
			m, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: not a JSON object", w.AgentPath(client))
			}
			return m, nil
		},
	}
	note := "DEMO: simulated agents, temporary workspace (removed on exit)"
	code = embedded(w, svc, token, e, note, fleet.Run)
	if code == exitOK {
		fmt.Fprintf(e.stderr, "leasedeck: demo over; removed %s\n", dir)
	}
	return code
}
