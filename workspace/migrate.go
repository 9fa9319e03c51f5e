package workspace

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/leasedeck/leasedeck/durable"
)

// Migrate moves what older versions kept where an agent can reach it —
// the deployment key in .leasedeck/key, the operator token under the
// user's config directory — into the state directory, and removes the old
// copies (overwritten, synced, then unlinked). It says what it did, once:
// a second call finds nothing to move.
//
// When the state directory already holds a key, a key file in the
// workspace is not the deployment key (it may have been planted there):
// it is removed without being used.
func (w Workspace) Migrate() ([]string, error) {
	if err := w.EnsureStateDir(); err != nil {
		return nil, err
	}
	var notes []string
	legacyToken, err := w.LegacyTokenPath()
	if err != nil {
		legacyToken = ""
	}
	for _, m := range []struct{ what, from, to string }{
		{"deployment key", w.LegacyKeyPath(), w.KeyPath()},
		{"operator token", legacyToken, w.TokenPath()},
	} {
		if m.from == "" {
			continue
		}
		note, err := moveSecret(m.what, m.from, m.to)
		if err != nil {
			return notes, err
		}
		if note != "" {
			notes = append(notes, note)
		}
	}
	if legacyToken != "" {
		os.Remove(filepath.Dir(legacyToken)) // the tokens/ directory, when it is empty now
	}
	return notes, nil
}

// moveSecret moves one secret file from → to, unless to exists already.
func moveSecret(what, from, to string) (string, error) {
	old, err := os.ReadFile(from)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("migrating the %s: %w", what, err)
	}
	cur, err := os.ReadFile(to)
	switch {
	case err == nil && bytes.Equal(bytes.TrimSpace(cur), bytes.TrimSpace(old)):
		if err := secureRemove(from); err != nil {
			return "", fmt.Errorf("removing the old copy of the %s: %w", what, err)
		}
		return fmt.Sprintf("removed an old copy of the %s from %s (it lives in %s)", what, from, to), nil
	case err == nil:
		if err := secureRemove(from); err != nil {
			return "", fmt.Errorf("removing %s: %w", from, err)
		}
		return fmt.Sprintf("removed %s without using it: the %s is the one in %s", from, what, to), nil
	case !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("migrating the %s: %w", what, err)
	}
	if strings.TrimSpace(string(old)) == "" {
		return "", fmt.Errorf("migrating the %s: %s is empty", what, from)
	}
	if err := durable.WriteFile(to, old, 0o600); err != nil {
		return "", fmt.Errorf("migrating the %s: %w", what, err)
	}
	if err := secureRemove(from); err != nil {
		return "", fmt.Errorf("moved the %s to %s but cannot remove the old copy: %w", what, to, err)
	}
	return fmt.Sprintf("moved the %s from %s to %s, outside the workspace (the old copy is overwritten and removed)", what, from, to), nil
}

// secureRemove overwrites a file with random bytes, syncs it, and unlinks
// it, so the secret does not linger in the file's blocks on a file system
// that writes in place. (A copy-on-write file system, a snapshot or a
// backup may still hold the old blocks; the threat model says so.)
func secureRemove(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err == nil && st.Mode().IsRegular() {
		junk := make([]byte, st.Size())
		rand.Read(junk)
		if _, err = f.WriteAt(junk, 0); err == nil {
			err = f.Sync()
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Remove(path); err != nil {
		return err
	}
	return durable.SyncDir(filepath.Dir(path))
}

// EnsureHandshakeKey creates the handshake secret if it does not exist
// and returns it.
func (w Workspace) EnsureHandshakeKey() ([]byte, error) {
	if k, err := w.LoadHandshakeKey(); err == nil {
		return k, nil
	}
	if err := w.EnsureStateDir(); err != nil {
		return nil, err
	}
	t, err := randomHex()
	if err != nil {
		return nil, err
	}
	if err := durable.WriteFile(w.HandshakeKeyPath(), []byte(t+"\n"), 0o600); err != nil {
		return nil, err
	}
	return w.LoadHandshakeKey()
}

// LoadHandshakeKey reads the handshake secret (32 bytes, hex).
func (w Workspace) LoadHandshakeKey() ([]byte, error) { return w.place().LoadHandshakeKey() }
