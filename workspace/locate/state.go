// Package locate finds a leasedeck workspace and names the paths in it and
// in its private state directory (the socket, the lock, the handshake
// secret, the session capabilities). It imports nothing but the standard
// library's basics: the hook binary locates its workspace through it
// without linking the registry (package workspace reads the policy and
// the keys, and needs it).
package locate

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// DirName is the workspace state directory.
const DirName = ".leasedeck"

// EnvWorkspace overrides where the workspace is.
const EnvWorkspace = "LEASEDECK_WORKSPACE"

// Open makes the Place for a canonical root, with its state directory.
func Open(root string) (Place, error) {
	st, err := stateDirFor(root)
	if err != nil {
		return Place{}, err
	}
	return Place{Root: root, State: st}, nil
}

// ErrNotFound means no .leasedeck/ was found from the directory upward.
var ErrNotFound = errors.New("no leasedeck workspace (.leasedeck/) found in this directory or any parent; run 'leasedeck init'")

// Find locates the workspace as git finds a repository: flag (if not
// empty), then $LEASEDECK_WORKSPACE, then the nearest .leasedeck/ from
// start upward.
func Find(flag, start string) (Place, error) {
	if flag == "" {
		flag = os.Getenv(EnvWorkspace)
	}
	if flag != "" {
		root, err := canonical(flag)
		if err != nil {
			return Place{}, fmt.Errorf("workspace %s: %w", flag, err)
		}
		if st, err := os.Stat(filepath.Join(root, DirName)); err != nil || !st.IsDir() {
			return Place{}, fmt.Errorf("workspace %s has no %s/ directory; run 'leasedeck init %s'", flag, DirName, flag)
		}
		return Open(root)
	}
	dir, err := canonical(start)
	if err != nil {
		return Place{}, err
	}
	for {
		if st, err := os.Stat(filepath.Join(dir, DirName)); err == nil && st.IsDir() {
			return Open(dir)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return Place{}, ErrNotFound
		}
		dir = parent
	}
}

// Canonical is p absolute with its symlinks resolved.
func Canonical(p string) (string, error) { return canonical(p) }

func canonical(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// The per-user state directory holds what must never be inside a
// workspace: an agent works in the workspace, can read and write what is
// there, and can reach it through git (`git add -f . && git show`). So the
// deployment key, the operator token, the handshake secret the hook
// checks the registry with, the journal head, the checkpoint signing key,
// the registry's socket and its lock live in
// $XDG_STATE_HOME/leasedeck/<workspace id>/ (default ~/.local/state),
// directories 0700, files 0600. The registry's root policy denies it (and
// the legacy token directory) to every agent, whatever policy.json says.

// Place is a located workspace: its root and its state directory.
// workspace.Workspace is the same pair with the methods that read the
// policy and the keys.
type Place struct {
	Root  string // the directory holding .leasedeck/ (absolute, symlinks resolved)
	State string // the private state directory, outside Root (see StateDir)
}

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
func (w Place) StateDir() string { return w.State }

// Paths in the state directory.

// KeyPath is the deployment's HMAC key (signs leases, macs journal lines).
func (w Place) KeyPath() string { return filepath.Join(w.State, "key") }

// TokenPath is the operator token: whoever holds it decides approvals,
// revokes leases and reloads the policy.
func (w Place) TokenPath() string { return filepath.Join(w.State, "token") }

// HandshakeKeyPath is the secret the registry proves itself with to a
// hook (a challenge answered with an HMAC of it), so that a process
// squatting the socket path is not believed.
func (w Place) HandshakeKeyPath() string { return filepath.Join(w.State, "handshake.key") }

// HeadPath is where the registry keeps the head (seq and line hash) of
// each journal file, checked at start and before each batch.
func (w Place) HeadPath() string { return filepath.Join(w.State, "journal.head") }

// CheckpointKeyPath is the Ed25519 private key that signs journal
// checkpoints.
func (w Place) CheckpointKeyPath() string { return filepath.Join(w.State, "checkpoint.key") }

// SnapshotDir holds snapshots of the registry's folded state.
func (w Place) SnapshotDir() string { return filepath.Join(w.State, "snapshots") }

// LockPath is the lock that makes one registry the workspace's only one.
func (w Place) LockPath() string { return filepath.Join(w.State, "registry.lock") }

// SocketPath is the registry's socket, the only way in. It lives in the
// state directory. Where that path is too long for a Unix socket (a deep
// $HOME or $XDG_STATE_HOME: sun_path holds about 100 bytes), it lives in
// a short private directory of this user's instead, named by the
// workspace id: $XDG_RUNTIME_DIR/leasedeck/, else <temp>/leasedeck-<uid>/
// (0700 and owned by this user, or EnsureStateDir refuses it). Either way
// the path follows from the workspace and the environment alone, so every
// process finds the same socket.
func (w Place) SocketPath() string {
	p := filepath.Join(w.State, "registry.sock")
	if len(p) <= MaxSocketPath {
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

// MaxSocketPath is the shortest sun_path limit of the supported systems
// (104 bytes on macOS, 108 on Linux, both counting the final NUL).
const MaxSocketPath = 103

// EnsureStateDir creates the state directory (0700, and its leasedeck
// parent) and tightens it if it exists with a wider mode. A state
// directory that is not a directory, or not owned by this user, is an
// error: nothing in it could be trusted.
func (w Place) EnsureStateDir() error {
	if w.State == "" {
		return errors.New("the workspace has no state directory")
	}
	if n := len(w.SocketPath()); n > MaxSocketPath {
		return fmt.Errorf("the registry socket path %s is %d bytes, longer than a Unix socket allows (%d); set $%s to a shorter directory", w.SocketPath(), n, MaxSocketPath, EnvStateHome)
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

// CapabilityDir holds the session capabilities the registry hands the
// hook (one 0600 file per client session), in the state directory outside
// the workspace, where the root policy denies agents.
func (w Place) CapabilityDir() string { return filepath.Join(w.State, "sessions") }

// LoadHandshakeKey reads the handshake secret (32 bytes, hex).
func (w Place) LoadHandshakeKey() ([]byte, error) {
	b, err := os.ReadFile(w.HandshakeKeyPath())
	if err != nil {
		return nil, fmt.Errorf("cannot read the handshake secret: %w", err)
	}
	k := []byte(strings.TrimSpace(string(b)))
	if len(k) < 32 {
		return nil, fmt.Errorf("the handshake secret %s is too short", w.HandshakeKeyPath())
	}
	return k, nil
}

// ID is a stable, non-reversible name for the workspace: the name of its
// state directory.
func (w Place) ID() string { return idOf(w.Root) }

func idOf(root string) string {
	sum := sha256.Sum256([]byte(root))
	return hex.EncodeToString(sum[:])[:16]
}

// ForJournal is the workspace whose journal directory is dir
// (<root>/.leasedeck/journal), so a tool given only the journal can find
// the key in the workspace's state directory.
func ForJournal(dir string) (Place, error) {
	abs, err := canonical(dir)
	if err != nil {
		return Place{}, err
	}
	parent := filepath.Dir(abs)
	if filepath.Base(abs) != "journal" || filepath.Base(parent) != DirName {
		return Place{}, fmt.Errorf("%s is not a workspace's journal directory (%s/journal)", dir, DirName)
	}
	return Open(filepath.Dir(parent))
}
