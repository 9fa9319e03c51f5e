package tui

import (
	"time"

	"github.com/leasedeck/leasedeck/registry"
)

// Mode says how the cockpit reaches its registry.
type Mode int

const (
	// Embedded: the registry runs in this process (the cockpit took the
	// workspace lock); actions still go through its socket.
	Embedded Mode = iota
	// Attached: another process holds the lock; actions go over the
	// socket with the operator token.
	Attached
	// ReadOnly: watch only; no approve, deny or revoke.
	ReadOnly
)

func (m Mode) String() string {
	return [...]string{"EMBEDDED", "ATTACHED", "READ-ONLY"}[m]
}

// Actor performs the cockpit's actions. The cockpit calls it from a
// tea.Cmd, never from Update.
type Actor interface {
	Decide(approvalID, outcome, scope, reason string) error
	Revoke(leaseID, reason string) (revoked []string, err error)
}

// Options configure the cockpit.
type Options struct {
	Workspace  string        // the workspace root, for the header
	JournalDir string        // the journal the cockpit follows
	Socket     string        // the registry socket, for the status bar
	Key        *registry.Key // the workspace key: lease signatures and line macs; nil skips both
	// Snapshots, when set (with Key), lets the cockpit start from the
	// registry's newest snapshot that the journal agrees with and read
	// only the lines after it; closed leases' history is then read back
	// from the journal when one is looked at.
	Snapshots *registry.SnapshotSource
	Mode      Mode
	PID       int   // the registry's pid (this process when embedded)
	Actor     Actor // nil: read-only
	location  *time.Location
	theme     *theme
	keys      *keyMap
	Note      string // shown in the header, e.g. the demo's temporary workspace
	// Background offers, when quitting, to keep a registry serving the
	// workspace in the background (Run then returns ErrServeInBackground).
	Background bool
	// quietFor is how long the keyboard must be still before a request
	// opens by itself; default 700 ms.
	quietFor time.Duration
	// notify shows desktop notifications; Run sets it from the terminal.
	notify notifier
	// guard is how long a new approval request ignores keys; default
	// 400 ms.
	guard time.Duration
	// now is the clock the ticks read (inside a tea.Cmd, never in
	// Update); default time.now. Tests fix it.
	now func() time.Time
}
