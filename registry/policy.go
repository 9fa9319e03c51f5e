package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/leasedeck/leasedeck/registry/record"
	"github.com/leasedeck/leasedeck/schemas"
)

// EventPolicyLoaded records each policy the registry governs by: at start
// and at every operator reload, with the SHA-256 of policy.json and of each
// agent's declared manifest, so the journal shows which policy governed
// which lease (every lease issued after this line and before the next).
const EventPolicyLoaded = "leasedeck.policy.loaded"

// Policy is what the registry governs by, read from the workspace by the
// registry alone — at start, and again only when the operator reloads.
// Nothing an agent writes while the registry serves changes it.
type Policy struct {
	Root            *Manifest // the root policy every parentless manifest narrows against
	DefaultLifetime time.Duration
	ApprovalTimeout time.Duration
	// Mode is "enforce" or "observe". In observe mode the registry's
	// answers still say what it decided; the hook lets the call run and
	// says what would have happened.
	Mode string
	// Hash is the SHA-256 (hex) of policy.json's bytes.
	Hash string
	// Agents are the declared manifests a client's new session lease is
	// issued from (agents/<runtime_agent>.json), by runtime agent. When
	// set, a manifest sent by a caller is ignored.
	Agents      map[string]any
	AgentHashes map[string]string
	// AgentFor names the Agents entry a client's sessions declare.
	AgentFor func(client string) string
	// ApproveIn is where a call held for a human is answered:
	// ApproveInCockpit (the default; also for "") or ApproveInClient, the
	// client's own permission prompt where its hook can ask one.
	ApproveIn string
	// Calls are the call rules (protected writes, credentials held). They
	// are applied at start; a reload that changes them says a restart is
	// needed (the gate reads them without the registry's lock).
	Calls CallRules
}

// PolicyInfo is what the registry tells a caller of the policy it
// governs by (hello, policy reload).
type PolicyInfo struct {
	Mode              string            `json:"mode"`
	Hash              string            `json:"policy_sha256"`
	AgentHashes       map[string]string `json:"agents_sha256,omitempty"`
	ApprovalTimeoutMs int64             `json:"approval_timeout_ms"`
	LoadedAt          string            `json:"loaded_at,omitempty"`
	Notes             []string          `json:"notes,omitempty"`
}

func (p Policy) check() error {
	if p.Root == nil {
		return errors.New("the policy has no root manifest")
	}
	if p.Mode != "enforce" && p.Mode != "observe" {
		return fmt.Errorf(`policy mode %q: expected "enforce" or "observe"`, p.Mode)
	}
	if p.ApproveIn != "" && p.ApproveIn != ApproveInCockpit && p.ApproveIn != ApproveInClient {
		return fmt.Errorf(`policy approvals.where %q: expected "cockpit" or "client"`, p.ApproveIn)
	}
	return nil
}

// startPolicy applies cfg.Policy at start: usePolicy, and the call rules.
func (cfg *Config) startPolicy() {
	cfg.usePolicy()
	cfg.Calls = cfg.Policy.Calls
}

// usePolicy applies cfg.Policy, when given, over the older Config fields.
func (cfg *Config) usePolicy() {
	if cfg.Policy == nil {
		return
	}
	cfg.Root = cfg.Policy.Root
	if cfg.Policy.DefaultLifetime > 0 {
		cfg.DefaultLifetime = cfg.Policy.DefaultLifetime
	}
	if cfg.Policy.ApprovalTimeout > 0 {
		cfg.ApprovalTimeout = cfg.Policy.ApprovalTimeout
	}
}

// Where a call held for a human is answered (policy.json approvals.where).
const (
	ApproveInCockpit = "cockpit"
	ApproveInClient  = "client"
)

func nonEmptyOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// PolicyInfo describes the policy in force.
func (s *Service) PolicyInfo() PolicyInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	info := PolicyInfo{Mode: "enforce", ApprovalTimeoutMs: s.cfg.ApprovalTimeout.Milliseconds()}
	if p := s.cfg.Policy; p != nil {
		info.Mode, info.Hash, info.AgentHashes = p.Mode, p.Hash, p.AgentHashes
		info.LoadedAt = FormatTime(s.policyAt)
	}
	return info
}

// approvalTimeout is the policy's approval timeout (under the lock: an
// operator reload may change it).
func (s *Service) approvalTimeout() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg.ApprovalTimeout
}

// ReloadPolicy makes p the policy in force, after journaling it (by names
// who loaded it: "operator"). Leases already issued keep their grants; the
// new root governs leases issued from now on, the new mode and approval
// timeout every later decision, the new agents' manifests every new
// session lease. A policy that cannot be journaled is not applied.
func (s *Service) ReloadPolicy(p Policy, by string) (PolicyInfo, error) {
	if err := p.check(); err != nil {
		return PolicyInfo{}, fmt.Errorf("%w: %v", ErrNotAllowed, err)
	}
	if err := s.Health(); err != nil {
		return PolicyInfo{}, err
	}
	if err := s.journalPolicy(&p, by); err != nil {
		return PolicyInfo{}, err
	}
	s.mu.Lock()
	s.cfg.Policy = &p
	s.cfg.usePolicy()
	s.issuer.DefaultLifetime = s.cfg.DefaultLifetime
	s.policyAt = s.Now()
	s.mu.Unlock()
	info := s.PolicyInfo()
	if !reflect.DeepEqual(p.Calls, s.cfg.Calls) {
		info.Notes = append(info.Notes, "protected_writes and hold_secrets changed: they take effect when the registry restarts")
	}
	return info, nil
}

// journalPolicy appends the policy.loaded line for p.
func (s *Service) journalPolicy(p *Policy, by string) error {
	if p == nil {
		return nil
	}
	names := make([]string, 0, len(p.AgentHashes))
	for n := range p.AgentHashes {
		names = append(names, n)
	}
	sort.Strings(names)
	extra := map[string]any{"policy_sha256": p.Hash, "mode": p.Mode,
		"approval_timeout_ms": p.ApprovalTimeout.Milliseconds(), "default_lifetime_ms": p.DefaultLifetime.Milliseconds(),
		"agents": strings.Join(names, " "), "approvals_where": nonEmptyOr(p.ApproveIn, ApproveInCockpit)}
	for _, n := range names {
		extra["agent_"+strings.ReplaceAll(n, "-", "_")+"_sha256"] = p.AgentHashes[n]
	}
	a := record.NewAudit(EventPolicyLoaded, s.Now(), fmt.Sprintf("policy %s loaded (%s, mode %s)", shortHash(p.Hash), by, p.Mode),
		record.Details{By: by, Extra: extra})
	if isHex64(p.Hash) {
		a.RequestHash = p.Hash
	}
	return s.appendAudit(a)
}

func isHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// declaredFor is the manifest a client's new session lease is issued
// from: the registry's own copy of agents/<agent>.json when the policy
// has agents (whatever the caller sent), else the caller's.
func (s *Service) declaredFor(client string, sent any) (map[string]any, error) {
	s.mu.Lock()
	p := s.cfg.Policy
	s.mu.Unlock()
	if p == nil || p.Agents == nil {
		m, ok := sent.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%w: the session has no live lease and no declared manifest came with the request (client %s)", ErrNeedsManifest, client)
		}
		return m, nil
	}
	name := client
	if p.AgentFor != nil {
		name = p.AgentFor(client)
	}
	v, ok := p.Agents[name]
	if !ok {
		return nil, fmt.Errorf("%w: no declared manifest for client %q in the policy the registry loaded (agents/%s.json)", ErrNotAllowed, client, name)
	}
	// A copy: the issued lease keeps what it was declared, whatever
	// happens to the policy's map afterwards.
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	c, err := schemas.ParseJSON(b)
	if err != nil {
		return nil, err
	}
	m, ok := c.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: agents/%s.json is not a JSON object", ErrNotAllowed, name)
	}
	return m, nil
}
