package workspace

import (
	"strings"

	"github.com/leasedeck/leasedeck/registry"
)

// parseApprovals reads policy.json's "approvals" object: where a call held
// for a human is answered ("where": "cockpit", the default, or "client":
// the client's own permission prompt, where its hooks can ask one). Only
// the operator writes policy.json (the agent is denied .leasedeck/**), so
// only the operator chooses where; nothing in a call can.
func parseApprovals(path string, obj map[string]any, s *Settings) error {
	s.ApproveIn = registry.ApproveInCockpit
	raw, present := obj["approvals"]
	if !present {
		return nil
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return &PolicyError{Path: path, Pointer: "/approvals", Msg: `expected an object such as {"where": "cockpit"}`}
	}
	for k, v := range m {
		switch k {
		case "where":
			w, _ := v.(string)
			if w != registry.ApproveInCockpit && w != registry.ApproveInClient {
				return &PolicyError{Path: path, Pointer: "/approvals/where", Msg: `expected "cockpit" or "client"`}
			}
			s.ApproveIn = w
		default:
			return &PolicyError{Path: path, Pointer: "/approvals/" + pointerEscaper.Replace(k), Msg: `unknown member (approvals has only "where")`}
		}
	}
	return nil
}

// pointerEscaper escapes a member name for a JSON pointer (RFC 6901).
var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")
