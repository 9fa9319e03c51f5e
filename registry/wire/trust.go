package wire

import (
	"context"

	"github.com/leasedeck/leasedeck/handshake"
)

// The ops that let a caller trust the registry and the operator change
// what it governs by.
const (
	// OpHello answers a hook's challenge (package handshake): anyone may
	// ask; the hook checks the proof and takes the enforcement mode from
	// the answer.
	OpHello Op = handshake.Op
	// OpPolicyReload makes the registry read policy.json and agents/*.json
	// again and put them in force (operator only).
	OpPolicyReload Op = "policy_reload"
)

// HelloParams carries the challenge.
type HelloParams struct {
	Nonce string `json:"nonce"`
}

// HelloResult is the registry's proof and the policy it governs by.
type HelloResult = handshake.Answer

// PolicyResult describes the policy in force after a load.
type PolicyResult struct {
	Mode              string            `json:"mode"`
	PolicyHash        string            `json:"policy_sha256"`
	AgentHashes       map[string]string `json:"agents_sha256,omitempty"`
	ApprovalTimeoutMs int64             `json:"approval_timeout_ms"`
	LoadedAt          string            `json:"loaded_at,omitempty"`
	Notes             []string          `json:"notes,omitempty"`
}

// Hello sends a challenge. A hook uses handshake.Target.Verify, which
// also checks the socket's peer; this method is for tools and tests.
func (c *Client) Hello(ctx context.Context, p HelloParams) (HelloResult, error) {
	return call[HelloParams, HelloResult](ctx, c, OpHello, p)
}

// PolicyReload asks the registry to load the workspace's policy again.
func (c *Client) PolicyReload(ctx context.Context) (PolicyResult, error) {
	return call[Empty, PolicyResult](ctx, c, OpPolicyReload, Empty{})
}
