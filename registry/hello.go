package registry

import (
	"fmt"
	"os"

	"github.com/leasedeck/leasedeck/handshake"
)

// Hello answers a hook's challenge (package handshake): the registry's
// workspace and pid, an HMAC of the nonce under the handshake secret, and
// the policy in force — the enforcement mode and approval timeout the hook
// goes by. Anyone may ask: the proof is bound to the nonce, the workspace
// and this process, and the hook checks the pid against the socket's peer.
func (s *Service) Hello(nonce string) (handshake.Answer, error) {
	if len(nonce) < 32 || len(nonce) > 256 {
		return handshake.Answer{}, fmt.Errorf("%w: hello needs a nonce of 32 to 256 characters", ErrNotAllowed)
	}
	if len(s.cfg.HandshakeKey) == 0 {
		return handshake.Answer{}, fmt.Errorf("%w: this registry has no handshake secret", ErrNotAllowed)
	}
	info := s.PolicyInfo()
	pid := os.Getpid()
	return handshake.Answer{Workspace: s.cfg.Workspace, PID: pid, Proof: handshake.Proof(s.cfg.HandshakeKey, nonce, s.cfg.Workspace, pid),
		Mode: info.Mode, PolicyHash: info.Hash, ApprovalTimeoutMs: info.ApprovalTimeoutMs}, nil
}

// ReloadPolicyFromSource reads the policy again from where it came from
// (Config.PolicySource: the workspace's files) and puts it in force. Only
// the operator may: the socket op needs the token.
func (s *Service) ReloadPolicyFromSource(by string) (PolicyInfo, error) {
	if s.cfg.PolicySource == nil {
		return PolicyInfo{}, fmt.Errorf("%w: this registry was not started from a workspace policy", ErrNotAllowed)
	}
	p, err := s.cfg.PolicySource()
	if err != nil {
		return PolicyInfo{}, fmt.Errorf("%w: the policy was not reloaded, the one in force stays: %v", ErrNotAllowed, err)
	}
	return s.ReloadPolicy(p, by)
}
