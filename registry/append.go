package registry

import (
	"strings"
	"time"

	"github.com/leasedeck/leasedeck/journal"
)

// auditRecord builds an audit-event line. details must be flat scalars.
func auditRecord(eventType string, at time.Time, summary string, details map[string]any) map[string]any {
	rec := map[string]any{
		"schema_version": SchemaVersion,
		"timestamp":      FormatTime(at),
		"event_id":       NewLeaseID(),
		"event_type":     eventType,
		"actor":          map[string]any{"kind": "system", "runtime": "leasedeck"},
		"details":        details,
	}
	if summary != "" {
		rec["summary"] = oneLine(summary, 300)
	}
	return rec
}

// oneLine makes s safe for summary/reasoning: no control characters,
// at most max runes.
func oneLine(s string, max int) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			r = ' '
		}
		if n >= max-1 && n > 0 {
			b.WriteRune('…')
			break
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// appendAudit writes an audit line and folds it. It returns the write
// error so that callers fail closed.
func (s *Service) appendAudit(rec map[string]any) error {
	if _, err := s.w.Append(journal.Audit, rec); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fold(journal.Audit, rec)
}

// appendLease writes lease records in order and folds them.
func (s *Service) appendLeases(recs ...map[string]any) error {
	if _, err := s.w.AppendAll(journal.Leases, recs); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range recs {
		if err := s.fold(journal.Leases, r); err != nil {
			return err
		}
	}
	return nil
}
