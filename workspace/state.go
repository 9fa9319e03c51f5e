package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// The per-user state directory holds what must never be inside a
// workspace: an agent works in the workspace, can read and write what is
// there, and can reach it through git (`git add -f . && git show`). So the
// deployment key, the operator token, the handshake secret the hook
// checks the registry with, the journal head, the checkpoint signing key,
// the registry's socket and its lock live in
// $XDG_STATE_HOME/leasedeck/<workspace id>/ (default ~/.local/state),
// directories 0700, files 0600. The registry's root policy denies it (and
// the legacy token directory) to every agent, whatever policy.json says.

// EnvStateHome is the XDG variable that moves the state directory.
const EnvStateHome = "XDG_STATE_HOME"

// StateHome is the per-user base of every workspace's state directory:
// $XDG_STATE_HOME/leasedeck, or ~/.local/state/leasedeck. A relative
// $XDG_STATE_HOME is ignored, as the XDG base-directory spec says.
func StateHome() (string, error) {
	if x := os.Getenv(EnvStateHome); x != "" && filepath.IsAbs(x) {
		return filepath.Join(filepath.Clean(x), "leasedeck"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no state directory: $%s is not set and the home directory is unknown: %w", EnvStateHome, err)
	}
	if !filepath.IsAbs(home) {
		return "", fmt.Errorf("no state directory: home directory %q is not absolute", home)
	}
	return filepath.Join(home, ".local", "state", "leasedeck"), nil
}

// stateDirFor is the state directory of the workspace rooted at root.
// It must not lie inside the workspace: what is inside is the agent's.
func stateDirFor(root string) (string, error) {
	base, err := StateHome()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(base, idOf(root))
	if inside(root, dir) {
		return "", fmt.Errorf("the state directory %s lies inside the workspace %s, where an agent could read the key and the token; set $%s to a directory outside the workspace", dir, root, EnvStateHome)
	}
	return dir, nil
}

// inside reports whether p is root or below it (both clean and absolute).
func inside(root, p string) bool {
	if p == root || root == "/" {
		return true
	}
	return strings.HasPrefix(p, root+string(filepath.Separator))
}

// StateDir is this workspace's private state directory (outside the
// workspace, 0700).
func (w Workspace) StateDir() string { return w.State }

// Paths in the state directory.

// KeyPath is the deployment's HMAC key (signs leases, macs journal lines).
func (w Workspace) KeyPath() string { return filepath.Join(w.State, "key") }

// TokenPath is the operator token: whoever holds it decides approvals,
// revokes leases and reloads the policy.
func (w Workspace) TokenPath() string { return filepath.Join(w.State, "token") }

// HandshakeKeyPath is the secret the registry proves itself with to a
// hook (a challenge answered with an HMAC of it), so that a process
// squatting the socket path is not believed.
func (w Workspace) HandshakeKeyPath() string { return filepath.Join(w.State, "handshake.key") }

// HeadPath is where the registry keeps the head (seq and line hash) of
// each journal file, checked at start and before each batch.
func (w Workspace) HeadPath() string { return filepath.Join(w.State, "journal.head") }

// CheckpointKeyPath is the Ed25519 private key that signs journal
// checkpoints.
func (w Workspace) CheckpointKeyPath() string { return filepath.Join(w.State, "checkpoint.key") }

// SnapshotDir holds snapshots of the registry's folded state.
func (w Workspace) SnapshotDir() string { return filepath.Join(w.State, "snapshots") }

// LockPath is the lock that makes one registry the workspace's only one.
func (w Workspace) LockPath() string { return filepath.Join(w.State, "registry.lock") }

// SocketPath is the registry's socket, the only way in. It lives in the
// state directory. Where that path is too long for a Unix socket (a deep
// $HOME or $XDG_STATE_HOME: sun_path holds about 100 bytes), it lives in
// a short private directory of this user's instead, named by the
// workspace id: $XDG_RUNTIME_DIR/leasedeck/, else <temp>/leasedeck-<uid>/
// (0700 and owned by this user, or EnsureStateDir refuses it). Either way
// the path follows from the workspace and the environment alone, so every
// process finds the same socket.
func (w Workspace) SocketPath() string {
	p := filepath.Join(w.State, "registry.sock")
	if len(p) <= maxSocketPath {
		return p
	}
	return filepath.Join(ShortSocketDir(), filepath.Base(w.State)+".sock")
}

// ShortSocketDir is the private directory for sockets whose state-directory
// path would be too long (see SocketPath).
func ShortSocketDir() string {
	if x := os.Getenv("XDG_RUNTIME_DIR"); x != "" && filepath.IsAbs(x) && len(x) <= 64 {
		return filepath.Join(filepath.Clean(x), "leasedeck")
	}
	// Not $TMPDIR on Unix: `leasedeck run` gives its tree a private one,
	// and the tree's hooks must find the socket the registry made.
	tmp := "/tmp"
	if runtime.GOOS == "windows" {
		tmp = os.TempDir()
	}
	return filepath.Join(tmp, fmt.Sprintf("leasedeck-%d", os.Geteuid()))
}

// maxSocketPath is the shortest sun_path limit of the supported systems
// (104 bytes on macOS, 108 on Linux, both counting the final NUL).
const maxSocketPath = 103

// EnsureStateDir creates the state directory (0700, and its leasedeck
// parent) and tightens it if it exists with a wider mode. A state
// directory that is not a directory, or not owned by this user, is an
// error: nothing in it could be trusted.
func (w Workspace) EnsureStateDir() error {
	if w.State == "" {
		return errors.New("the workspace has no state directory")
	}
	if n := len(w.SocketPath()); n > maxSocketPath {
		return fmt.Errorf("the registry socket path %s is %d bytes, longer than a Unix socket allows (%d); set $%s to a shorter directory", w.SocketPath(), n, maxSocketPath, EnvStateHome)
	}
	dirs := []string{filepath.Dir(w.State), w.State}
	if sd := filepath.Dir(w.SocketPath()); sd != w.State {
		dirs = append(dirs, sd)
	}
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fmt.Errorf("state directory: %w", err)
		}
		if err := checkPrivateDir(d); err != nil {
			return err
		}
	}
	return nil
}

// ForJournal is the workspace whose journal directory is dir
// (<root>/.leasedeck/journal), so a tool given only the journal can find
// the key in the workspace's state directory.
func ForJournal(dir string) (Workspace, error) {
	abs, err := canonical(dir)
	if err != nil {
		return Workspace{}, err
	}
	parent := filepath.Dir(abs)
	if filepath.Base(abs) != "journal" || filepath.Base(parent) != DirName {
		return Workspace{}, fmt.Errorf("%s is not a workspace's journal directory (%s/journal)", dir, DirName)
	}
	return open(filepath.Dir(parent))
}
