package workspace

import "github.com/leasedeck/leasedeck/workspace/locate"

// The state directory's paths are package locate's (the hook binary finds
// them without this package); see there for why each lives where it does.

// EnvStateHome is the XDG variable that moves the state directory.
const EnvStateHome = locate.EnvStateHome

// StateHome is the per-user base of every workspace's state directory.
func StateHome() (string, error) { return locate.StateHome() }

// StateDir is this workspace's private state directory (outside the
// workspace, 0700).
func (w Workspace) StateDir() string { return w.State }

// KeyPath is the deployment's HMAC key (signs leases, macs journal lines).
func (w Workspace) KeyPath() string { return w.place().KeyPath() }

// TokenPath is the operator token.
func (w Workspace) TokenPath() string { return w.place().TokenPath() }

// HandshakeKeyPath is the secret the registry proves itself with to a hook.
func (w Workspace) HandshakeKeyPath() string { return w.place().HandshakeKeyPath() }

// HeadPath is where the registry keeps the head of each journal file.
func (w Workspace) HeadPath() string { return w.place().HeadPath() }

// CheckpointKeyPath is the Ed25519 private key that signs journal checkpoints.
func (w Workspace) CheckpointKeyPath() string { return w.place().CheckpointKeyPath() }

// SnapshotDir holds snapshots of the registry's folded state.
func (w Workspace) SnapshotDir() string { return w.place().SnapshotDir() }

// LockPath is the lock that makes one registry the workspace's only one.
func (w Workspace) LockPath() string { return w.place().LockPath() }

// SocketPath is the registry's socket, the only way in.
func (w Workspace) SocketPath() string { return w.place().SocketPath() }

// ShortSocketDir is the private directory for sockets whose state-directory
// path would be too long (see SocketPath).
func ShortSocketDir() string { return locate.ShortSocketDir() }

// EnsureStateDir creates the state directory (0700) and checks it is this
// user's.
func (w Workspace) EnsureStateDir() error { return w.place().EnsureStateDir() }

// ForJournal is the workspace whose journal directory is dir.
func ForJournal(dir string) (Workspace, error) {
	p, err := locate.ForJournal(dir)
	return Workspace(p), err
}
