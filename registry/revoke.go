package registry

import (
	"fmt"
	"strings"

	"github.com/leasedeck/leasedeck/registry/record"
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
	if !s.closable(id) {
		s.mu.Unlock()
		return RevokeResult{}, fmt.Errorf("%w: lease %s is being closed", ErrClosed, id)
	}
	if by != "issuer" {
		chain := s.st.Chain(id)
		if !contains(chain, by) {
			s.mu.Unlock()
			return RevokeResult{}, fmt.Errorf("%w: %s is neither the issuer nor an ancestor of %s (rule L3)", ErrNotAllowed, by, id)
		}
	}
	var recs []record.Lease
	var ids []string
	for _, cur := range s.st.Subtree(id) {
		c := s.st.Leases[cur]
		if !s.closable(cur) {
			continue // closed, or being closed by another closer
		}
		why := reason
		if cur != id {
			why = "ancestor " + id + " revoked: " + reason
		}
		recs = append(recs, record.NewRevoked(now, cur, c.ParentID, by, why))
		ids = append(ids, cur)
	}
	s.claimClose(ids)
	s.mu.Unlock()
	defer s.releaseClose(ids)
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
	if !s.closable(id) {
		s.mu.Unlock()
		return fmt.Errorf("%w: lease %s is being closed", ErrClosed, id)
	}
	ids := []string{id}
	s.claimClose(ids)
	s.mu.Unlock()
	defer s.releaseClose(ids)
	if ev == Stopped && reason == "" {
		reason = "stopped by an operator"
	}
	if ev != Stopped {
		reason = "" // only a stop carries prose
	}
	rec := record.NewClosed(record.Event(ev), s.Now(), id, l.ParentID, reason)
	return s.appendLeases(rec)
}
