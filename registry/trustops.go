package registry

import (
	"context"

	"github.com/leasedeck/leasedeck/registry/wire"
)

// The handlers of the trust ops (hello, policy_reload).

func (h *Handler) opHello(_ context.Context, _ *call, p *wire.HelloParams) (wire.HelloResult, *wire.Error) {
	a, err := h.svc.Hello(p.Nonce)
	if err != nil {
		return wire.HelloResult{}, mapErr(err)
	}
	return a, nil
}

func (h *Handler) opPolicyReload(_ context.Context, _ *call, _ *wire.Empty) (wire.PolicyResult, *wire.Error) {
	info, err := h.svc.ReloadPolicyFromSource("operator")
	if err != nil {
		return wire.PolicyResult{}, mapErr(err)
	}
	return wire.PolicyResult{Mode: info.Mode, PolicyHash: info.Hash, AgentHashes: info.AgentHashes,
		ApprovalTimeoutMs: info.ApprovalTimeoutMs, LoadedAt: info.LoadedAt, Notes: info.Notes}, nil
}
