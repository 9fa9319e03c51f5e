package registry

import (
	"github.com/leasedeck/leasedeck/journal"
	"github.com/leasedeck/leasedeck/registry/record"
)

// appendAudit writes an audit event and folds it. It returns the write
// error so that callers fail closed. What is folded is the value as
// written (free text clipped to the schema's caps), so the live state
// and a replay of the journal cannot differ.
func (s *Service) appendAudit(a record.Audit) error {
	_, err := s.appendAuditRef(a)
	return err
}

// auditRef names an audit line: its seq in audit.jsonl and its event id.
type auditRef struct {
	Seq     uint64
	EventID string
}

// appendAuditRef is appendAudit that also says which line it wrote.
func (s *Service) appendAuditRef(a record.Audit) (auditRef, error) {
	v := a.Value()
	s.foldGate.RLock()
	defer s.foldGate.RUnlock()
	defer s.snaps.folded(1)
	at, err := s.w.Append(journal.Audit, v)
	if err != nil {
		return auditRef{}, err
	}
	ref := auditRef{Seq: at.Seq, EventID: a.EventID}
	l := record.Parse(journal.Audit, v)
	l.Offset, l.Seq, l.Located = at.Offset, at.Seq, true
	s.mu.Lock()
	defer s.mu.Unlock()
	return ref, FoldLine(s.st, s.book, &l)
}

// appendLeases writes lease records in order, in one batch, and folds
// them as written.
func (s *Service) appendLeases(recs ...record.Lease) error {
	vs := make([]map[string]any, len(recs))
	for i := range recs {
		vs[i] = recs[i].Value()
	}
	s.foldGate.RLock()
	defer s.foldGate.RUnlock()
	defer s.snaps.folded(len(vs))
	ats, err := s.w.AppendAll(journal.Leases, vs)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, v := range vs {
		l := record.Parse(journal.Leases, v)
		l.Offset, l.Seq, l.Located = ats[i].Offset, ats[i].Seq, true
		if err := FoldLine(s.st, s.book, &l); err != nil {
			return err
		}
	}
	return nil
}
