package tui

import (
	"context"
	"errors"
	"time"

	tea "charm.land/bubbletea/v2"
)

// fps caps redraws. The feeder already sends at most ~30 batches a
// second; the renderer's own frame ticker wakes the process this often
// even when idle, so it is kept no higher than that.
const fps = 30

// programOptions are the options Run gives the Bubble Tea program.
func programOptions(ctx context.Context) []tea.ProgramOption {
	return []tea.ProgramOption{tea.WithContext(ctx), tea.WithFPS(fps)}
}

// Run shows the cockpit until the user quits or ctx ends. It starts the
// feeder that follows opts.JournalDir and, when another process runs the
// registry, the watch that notices it going away.
//
// It returns ErrServeInBackground when the user quit asking for a
// registry to keep serving the workspace (Options.Background).
func Run(ctx context.Context, opts Options, progOpts ...tea.ProgramOption) error {
	opts.notify = envNotifier()
	m := newModel(opts)
	p := tea.NewProgram(m, append(programOptions(ctx), progOpts...)...)
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var key []byte
	if opts.Key != nil {
		key = opts.Key.Bytes()
	}
	f := &feeder{Dir: opts.JournalDir, Key: key, Send: p.Send}
	if opts.Key != nil {
		f.Snapshots = opts.Snapshots
	}
	go f.Run(fctx)
	if opts.Socket != "" && (opts.Mode == Attached || (opts.Mode == ReadOnly && opts.PID > 0)) {
		go watchRegistry(fctx, opts.Socket, 3*time.Second, p.Send)
	}
	_, err := p.Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil // asked to stop from outside (a signal), not a failure
	}
	if err == nil && m.background {
		return ErrServeInBackground
	}
	return err
}
