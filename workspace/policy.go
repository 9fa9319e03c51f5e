package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strings"

	"github.com/leasedeck/leasedeck/schemas"
)

// Policy is everything the registry reads from the workspace at start
// (and on an operator's `policy reload`): policy.json and every
// agents/*.json, with the SHA-256 of each file's bytes, so the journal can
// say which policy governed which lease. Nothing else reads these files
// for a decision: a change made while the registry serves has no effect
// until the operator reloads.
type Policy struct {
	Settings
	Hash        string         // SHA-256 hex of policy.json's bytes
	Agents      map[string]any // runtime_agent → declared manifest (agents/<runtime_agent>.json)
	AgentHashes map[string]string
}

// maxPolicyFile bounds policy.json and each agents/*.json.
const maxPolicyFile = 4 << 20

// LoadPolicy reads and checks policy.json and the agents' manifests. A
// bad file is refused with its path (and, for the policy, the JSON
// pointer of the offending member); nothing is half-loaded.
func (w Workspace) LoadPolicy() (Policy, error) {
	b, err := readBounded(w.PolicyPath())
	if err != nil {
		return Policy{}, fmt.Errorf("cannot read policy: %w", err)
	}
	s, err := parseSettings(w.PolicyPath(), b)
	if err != nil {
		return Policy{}, err
	}
	p := Policy{Settings: s, Hash: sha256Hex(b), Agents: map[string]any{}, AgentHashes: map[string]string{}}
	entries, err := os.ReadDir(w.AgentsDir())
	if err != nil && !os.IsNotExist(err) {
		return Policy{}, fmt.Errorf("cannot read %s: %w", w.AgentsDir(), err)
	}
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || name == "" || strings.HasPrefix(name, ".") || !e.Type().IsRegular() {
			continue
		}
		path := w.AgentPath(name)
		b, err := readBounded(path)
		if err != nil {
			return Policy{}, err
		}
		v, err := schemas.ParseJSON(b)
		if err != nil {
			return Policy{}, fmt.Errorf("%s: %w", path, err)
		}
		p.Agents[name], p.AgentHashes[name] = v, sha256Hex(b)
	}
	return p, nil
}

func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	if st.Size() > maxPolicyFile {
		return nil, fmt.Errorf("%s is larger than %d MiB", path, maxPolicyFile>>20)
	}
	b := make([]byte, st.Size())
	if _, err := f.ReadAt(b, 0); err != nil && st.Size() > 0 {
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	}
	return b, nil
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
