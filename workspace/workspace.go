// Package workspace finds and creates a leasedeck workspace (`.leasedeck/`)
// and reads what lives in it — the root policy and settings, the agents'
// declared manifests, the journal — and in its private state directory
// outside it: the deployment key, the operator token, the handshake
// secret, the journal head, the checkpoint key, the socket and the lock.
package workspace

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/leasedeck/leasedeck/durable"
	"github.com/leasedeck/leasedeck/registry"
	"github.com/leasedeck/leasedeck/schemas"
	"github.com/leasedeck/leasedeck/workspace/locate"
)

// DirName is the workspace state directory.
const DirName = locate.DirName

// EnvWorkspace overrides where the workspace is.
const EnvWorkspace = locate.EnvWorkspace

// Workspace is a located workspace (a locate.Place, with the methods that
// read the policy, the manifests and the keys).
type Workspace struct {
	Root  string // the directory holding .leasedeck/ (absolute, symlinks resolved)
	State string // the private state directory, outside Root (see StateDir)
}

func (w Workspace) place() locate.Place { return locate.Place(w) }

// Dir is .leasedeck/ itself.
func (w Workspace) Dir() string { return filepath.Join(w.Root, DirName) }

// Paths of the workspace's files.
func (w Workspace) PolicyPath() string { return filepath.Join(w.Dir(), "policy.json") }
func (w Workspace) JournalDir() string { return filepath.Join(w.Dir(), "journal") }
func (w Workspace) AgentsDir() string  { return filepath.Join(w.Dir(), "agents") }

// LegacyKeyPath is where the key lived before it moved to the state
// directory (migrated on first start, see Migrate).
func (w Workspace) LegacyKeyPath() string { return filepath.Join(w.Dir(), "key") }
func (w Workspace) AgentPath(client string) string {
	return filepath.Join(w.AgentsDir(), client+".json")
}

// ErrNotFound means no .leasedeck/ was found from the directory upward.
var ErrNotFound = locate.ErrNotFound

// Find locates the workspace as git finds a repository: flag (if not
// empty), then $LEASEDECK_WORKSPACE, then the nearest .leasedeck/ from
// start upward.
func Find(flag, start string) (Workspace, error) {
	p, err := locate.Find(flag, start)
	return Workspace(p), err
}

func canonical(p string) (string, error) { return locate.Canonical(p) }

// Settings are the deployment settings stored beside the root policy.
type Settings struct {
	Root            *registry.Manifest
	DefaultLifetime time.Duration
	ApprovalTimeout time.Duration
	Mode            string // "enforce" or "observe"
	// Calls are protected_writes and hold_secrets (see parseCallRules).
	Calls registry.CallRules
	// MaxPendingApprovals caps the approval requests waiting at once under
	// one lease (policy.json `max_pending_approvals`; 0: the registry's
	// default).
	MaxPendingApprovals int
	// MaxConnections caps the registry's connections at once (policy.json
	// `max_connections`; 0: the registry's default).
	MaxConnections int
	// ConnectionIdle closes a connection that sends nothing while none of
	// its calls is being answered (`connection_idle_ms`; 0: the default).
	ConnectionIdle time.Duration
	// SnapshotEvery and SnapshotInterval say how often the registry writes
	// a snapshot of its fold (`snapshot_every_lines`,
	// `snapshot_interval_ms`; 0: the registry's defaults).
	SnapshotEvery    int
	SnapshotInterval time.Duration
	// ApproveIn is where a call held for a human is answered: "cockpit"
	// or "client" (policy.json `approvals.where`, see parseApprovals).
	ApproveIn string
}

// Default settings written by init.
const (
	DefaultLifetimeMs = 8 * 60 * 60 * 1000
	ApprovalTimeoutMs = 120 * 1000
)

// PolicyError is a policy.json that cannot be used, naming the member.
type PolicyError struct {
	Path    string // the file
	Pointer string // JSON pointer inside it
	Msg     string
}

func (e *PolicyError) Error() string {
	p := e.Pointer
	if p == "" {
		p = "/"
	}
	return fmt.Sprintf("%s: %s: %s", e.Path, p, e.Msg)
}

// LoadSettings reads and checks policy.json. A bad edit is refused with
// the JSON pointer of the offending member.
func (w Workspace) LoadSettings() (Settings, error) {
	path := w.PolicyPath()
	b, err := readBounded(path)
	if err != nil {
		return Settings{}, fmt.Errorf("cannot read policy: %w", err)
	}
	return parseSettings(path, b)
}

// parseSettings checks the bytes of policy.json (read from path).
func parseSettings(path string, b []byte) (Settings, error) {
	v, err := schemas.ParseJSON(b)
	if err != nil {
		return Settings{}, &PolicyError{Path: path, Msg: err.Error()}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return Settings{}, &PolicyError{Path: path, Msg: "the policy must be a JSON object"}
	}
	root, ok := obj["root"]
	if !ok {
		return Settings{}, &PolicyError{Path: path, Pointer: "/root", Msg: "missing: the root policy manifest"}
	}
	// leasedeck's own state is denied to every agent, whatever the file
	// says: an implicit deny the policy cannot remove.
	withImplicitDenies(root)
	errs, err := schemas.Validate(schemas.Manifest, root)
	if err != nil {
		return Settings{}, err
	}
	if len(errs) > 0 {
		e := errs[0]
		return Settings{}, &PolicyError{Path: path, Pointer: "/root" + e.Path, Msg: e.Keyword + ": " + e.Message}
	}
	m, _ := registry.ParseManifest(root)
	s := Settings{Root: m, DefaultLifetime: DefaultLifetimeMs * time.Millisecond, ApprovalTimeout: ApprovalTimeoutMs * time.Millisecond, Mode: "enforce"}
	for _, f := range []struct {
		name string
		dst  *time.Duration
	}{{"default_lifetime_ms", &s.DefaultLifetime}, {"approval_timeout_ms", &s.ApprovalTimeout}} {
		raw, present := obj[f.name]
		if !present {
			continue
		}
		n, ok := positiveInt(raw)
		if !ok {
			return Settings{}, &PolicyError{Path: path, Pointer: "/" + f.name, Msg: "expected a positive integer number of milliseconds"}
		}
		*f.dst = time.Duration(n) * time.Millisecond
	}
	if raw, present := obj["max_pending_approvals"]; present {
		n, ok := positiveInt(raw)
		if !ok || n > 1000 {
			return Settings{}, &PolicyError{Path: path, Pointer: "/max_pending_approvals", Msg: "expected a positive integer, at most 1000"}
		}
		s.MaxPendingApprovals = int(n)
	}
	if err := parseConnSettings(path, obj, &s); err != nil {
		return Settings{}, err
	}
	if err := parseSnapshotSettings(path, obj, &s); err != nil {
		return Settings{}, err
	}
	if raw, present := obj["mode"]; present {
		mode, _ := raw.(string)
		if mode != "enforce" && mode != "observe" {
			return Settings{}, &PolicyError{Path: path, Pointer: "/mode", Msg: `expected "enforce" or "observe"`}
		}
		s.Mode = mode
	}
	if s.Calls, err = parseCallRules(path, obj); err != nil {
		return Settings{}, err
	}
	if err := parseApprovals(path, obj, &s); err != nil {
		return Settings{}, err
	}
	return s, nil
}

// parseConnSettings reads the registry's socket limits.
func parseConnSettings(path string, obj map[string]any, s *Settings) error {
	if raw, present := obj["max_connections"]; present {
		n, ok := positiveInt(raw)
		if !ok || n > 65536 {
			return &PolicyError{Path: path, Pointer: "/max_connections", Msg: "expected a positive integer, at most 65536"}
		}
		s.MaxConnections = int(n)
	}
	if raw, present := obj["connection_idle_ms"]; present {
		n, ok := positiveInt(raw)
		if !ok || n < 1000 || n > 24*60*60*1000 {
			return &PolicyError{Path: path, Pointer: "/connection_idle_ms", Msg: "expected an integer number of milliseconds from 1000 to 86400000"}
		}
		s.ConnectionIdle = time.Duration(n) * time.Millisecond
	}
	return nil
}

// parseSnapshotSettings reads how often the registry snapshots its fold.
func parseSnapshotSettings(path string, obj map[string]any, s *Settings) error {
	if raw, present := obj["snapshot_every_lines"]; present {
		n, ok := positiveInt(raw)
		if !ok || n < 1000 || n > 100_000_000 {
			return &PolicyError{Path: path, Pointer: "/snapshot_every_lines", Msg: "expected an integer number of journal lines from 1000 to 100000000"}
		}
		s.SnapshotEvery = int(n)
	}
	if raw, present := obj["snapshot_interval_ms"]; present {
		n, ok := positiveInt(raw)
		if !ok || n < 10_000 || n > 24*60*60*1000 {
			return &PolicyError{Path: path, Pointer: "/snapshot_interval_ms", Msg: "expected an integer number of milliseconds from 10000 to 86400000"}
		}
		s.SnapshotInterval = time.Duration(n) * time.Millisecond
	}
	return nil
}

func positiveInt(v any) (int64, bool) {
	n, ok := v.(interface{ Int64() (int64, error) })
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	return i, err == nil && i > 0 && i <= 1<<53-1
}

// LoadKey reads the deployment key from the state directory. The
// published test key is refused.
func (w Workspace) LoadKey() (registry.Key, error) {
	b, err := os.ReadFile(w.KeyPath())
	if err != nil {
		return registry.Key{}, fmt.Errorf("cannot read the workspace key: %w", err)
	}
	kb, err := registry.ParseKeyHex(string(b))
	if err != nil {
		return registry.Key{}, fmt.Errorf("workspace key %s: %w", w.KeyPath(), err)
	}
	return registry.NewKey(kb, false)
}

// LoadAgent reads agents/<client>.json, the manifest a client declares
// when a session begins.
func (w Workspace) LoadAgent(client string) (any, error) {
	if strings.ContainsAny(client, `/\`) || client == "" || strings.HasPrefix(client, ".") {
		return nil, fmt.Errorf("invalid client name %q", client)
	}
	b, err := os.ReadFile(w.AgentPath(client))
	if err != nil {
		return nil, fmt.Errorf("no declared manifest for %s: %w", client, err)
	}
	v, err := schemas.ParseJSON(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", w.AgentPath(client), err)
	}
	return v, nil
}

// ID is a stable, non-reversible name for the workspace: the name of its
// state directory.
func (w Workspace) ID() string { return w.place().ID() }

// ConfigDir is the user-level leasedeck config directory ($XDG_CONFIG_HOME
// or ~/.config, /leasedeck), where operator tokens lived before they moved
// to the state directory. The registry still denies it to agents.
func ConfigDir() (string, error) {
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(filepath.Clean(x), "leasedeck"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".config", "leasedeck"), nil
}

// LegacyTokenPath is where this workspace's operator token lived before
// it moved to the state directory.
func (w Workspace) LegacyTokenPath() (string, error) {
	d, err := ConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "tokens", w.ID()), nil
}

// LoadToken reads the operator token.
func (w Workspace) LoadToken() (string, error) {
	p := w.TokenPath()
	b, err := os.ReadFile(p)
	if err != nil {
		return "", fmt.Errorf("cannot read the operator token (%s): %w; 'leasedeck init' creates it", p, err)
	}
	return strings.TrimSpace(string(b)), nil
}

// EnsureToken creates the operator token if it does not exist.
func (w Workspace) EnsureToken() (string, error) {
	if t, err := w.LoadToken(); err == nil && t != "" {
		return t, nil
	}
	if err := w.EnsureStateDir(); err != nil {
		return "", err
	}
	t, err := randomHex()
	if err != nil {
		return "", err
	}
	if err := durable.WriteFile(w.TokenPath(), []byte(t+"\n"), 0o600); err != nil {
		return "", err
	}
	return t, nil
}

func randomHex() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}
