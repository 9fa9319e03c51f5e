package registry

import (
	"fmt"

	"github.com/leasedeck/leasedeck/journal"
)

// VerifyJournal checks a journal offline: everything journal.Verify
// checks (chain, seq, macs, schemas), plus the lease rules — each granted
// lease's signature under key and rules L1 and L2, rule L3 for every
// revocation against the folded ancestor chain — and that every record
// folds (no record about an unknown lease, no lease closed twice).
func VerifyJournal(dir string, key Key) journal.Report {
	st := NewState()
	var ver Verifier
	return journal.VerifyWith(dir, key.Bytes(), journal.VerifyOptions{
		Line: func(k journal.Kind, l *journal.Line) []string {
			var reasons []string
			if k == journal.Audit {
				st.ApplyAudit(l.Value)
				return nil
			}
			rec := l.Value
			switch rec["event"] {
			case "granted":
				if lease, ok := rec["lease"].(map[string]any); ok {
					for _, p := range ver.Verify(lease, key) {
						reasons = append(reasons, fmt.Sprintf("granted lease: %s", p))
					}
					if id, _ := lease["lease_id"].(string); id != rec["lease_id"] {
						reasons = append(reasons, fmt.Sprintf("record lease_id %v differs from the lease's %v", rec["lease_id"], id))
					}
				}
			case "revoked":
				id, _ := rec["lease_id"].(string)
				for _, p := range CheckRevocation(rec, st.Chain(id)) {
					reasons = append(reasons, fmt.Sprintf("%s %s %s", p.Check, p.Path, p.Message))
				}
			}
			if err := st.ApplyLeaseRecord(rec); err != nil {
				reasons = append(reasons, "does not fold: "+err.Error())
			}
			return reasons
		},
	})
}
