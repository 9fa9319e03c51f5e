package registry

import (
	"fmt"
	"strings"
)

// RevokeResult lists the leases a revocation closed, children first.
type RevokeResult struct {
	Revoked []string `json:"revoked"`
}

// Revoke closes a lease and its whole live subtree, children first, one
// `revoked` line each, naming by ("issuer" or an ancestor's lease id,
// rule L3) and the reason. All lines go to the journal in one batch.
func (s *Service) Revoke(id, by, reason string) (RevokeResult, error) {
	if err := s.Health(); err != nil {
		return RevokeResult{}, err
	}
	if strings.TrimSpace(reason) == "" {
		return RevokeResult{}, fmt.Errorf("%w: a revocation needs a reason", ErrNotAllowed)
	}
	if by == "" {
		by = "issuer"
	}
	now := s.Now()
	s.mu.Lock()
	l := s.st.Leases[id]
	if l == nil {
		s.mu.Unlock()
		return RevokeResult{}, fmt.Errorf("%w: %s", ErrUnknownLease, id)
	}
	if l.Status != Granted {
		s.mu.Unlock()
		return RevokeResult{}, fmt.Errorf("%w: lease %s is %s", ErrClosed, id, l.Status)
	}
	if by != "issuer" {
		chain := s.st.Chain(id)
		if !contains(chain, by) {
			s.mu.Unlock()
			return RevokeResult{}, fmt.Errorf("%w: %s is neither the issuer nor an ancestor of %s (rule L3)", ErrNotAllowed, by, id)
		}
	}
	var recs []map[string]any
	var ids []string
	for _, cur := range s.st.Subtree(id) {
		c := s.st.Leases[cur]
		if c == nil || c.Status != Granted {
			continue
		}
		r := map[string]any{"schema_version": SchemaVersion, "at": FormatTime(now), "event": "revoked",
			"lease_id": cur, "by": by, "reason": oneLine(reason, 1000)}
		if c.ParentID != "" {
			r["parent_lease_id"] = c.ParentID
		}
		if cur != id {
			r["reason"] = oneLine("ancestor "+id+" revoked: "+reason, 1000)
		}
		recs = append(recs, r)
		ids = append(ids, cur)
	}
	s.mu.Unlock()
	if err := s.appendLeases(recs...); err != nil {
		return RevokeResult{}, err
	}
	return RevokeResult{Revoked: ids}, nil
}

// Finish ends a lease by the agent finishing (completed) or an operator
// stopping it (stopped).
func (s *Service) Finish(id string, ev Status, reason string) error {
	if err := s.Health(); err != nil {
		return err
	}
	s.mu.Lock()
	l := s.st.Leases[id]
	if l == nil {
		s.mu.Unlock()
		return fmt.Errorf("%w: %s", ErrUnknownLease, id)
	}
	if l.Status != Granted {
		s.mu.Unlock()
		return fmt.Errorf("%w: lease %s is %s", ErrClosed, id, l.Status)
	}
	s.mu.Unlock()
	rec := map[string]any{"schema_version": SchemaVersion, "at": FormatTime(s.Now()), "event": string(ev), "lease_id": id}
	if ev == Stopped {
		if reason == "" {
			reason = "stopped by an operator"
		}
		rec["reason"] = oneLine(reason, 1000)
	}
	if l.ParentID != "" {
		rec["parent_lease_id"] = l.ParentID
	}
	return s.appendLeases(rec)
}
