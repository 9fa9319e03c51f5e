package bridge

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/leasedeck/leasedeck/durable"
)

// Capabilities keeps the session capability the registry hands back when
// a client session begins, between the hook's short-lived processes. Every
// later session op of the session (and of its subagents) presents it.
type Capabilities interface {
	Load(session string) string
	Save(session, capability string) error
	Forget(session string)
}

// CapabilityFiles keeps each client session's capability in a 0600 file
// of its own under Dir, which must be outside every workspace (the
// per-user state directory, denied to agents by the root policy): a
// capability an agent could read from its workspace would prove nothing.
type CapabilityFiles struct{ Dir string }

// path names a session's file by a hash of the session id, so that no id
// from a payload ever becomes a path.
func (f CapabilityFiles) path(session string) string {
	h := sha256.Sum256([]byte(session))
	return filepath.Join(f.Dir, hex.EncodeToString(h[:16]))
}

// Load returns the session's capability, "" when there is none.
func (f CapabilityFiles) Load(session string) string {
	if f.Dir == "" || session == "" {
		return ""
	}
	fh, err := os.Open(f.path(session))
	if err != nil {
		return ""
	}
	defer fh.Close()
	b, _ := io.ReadAll(io.LimitReader(fh, 256))
	return strings.TrimSpace(string(b))
}

// Save writes the session's capability durably (0600, in a 0700 dir).
func (f CapabilityFiles) Save(session, capability string) error {
	if err := os.MkdirAll(f.Dir, 0o700); err != nil {
		return err
	}
	return durable.WriteFile(f.path(session), []byte(capability+"\n"), 0o600)
}

// Forget removes the session's capability once the session has ended.
func (f CapabilityFiles) Forget(session string) {
	if f.Dir != "" && session != "" {
		os.Remove(f.path(session))
	}
}
