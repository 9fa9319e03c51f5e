package registry

import (
	"fmt"

	"github.com/leasedeck/leasedeck/journal"
	"github.com/leasedeck/leasedeck/registry/record"
)

// VerifyJournal checks a journal offline: everything journal.Verify
// checks (chain, seq, macs, schemas), plus the lease rules — each granted
// lease's signature under key and rules L1 and L2, rule L3 for every
// revocation against the folded ancestor chain — and that every record
// folds (no record about an unknown lease, no lease closed twice).
//
// anchors carries the kept head and the checkpoints' public key
// (journal.VerifyOptions.HeadPath, PublicKey, RequireProof); its Line is
// VerifyJournal's own. A nil key is a verifier that holds only the public
// key: macs and lease signatures go unchecked, and the checkpoints'
// signatures prove the lines instead.
func VerifyJournal(dir string, key *Key, anchors journal.VerifyOptions) journal.Report {
	st := NewState()
	var ver Verifier
	var keyBytes []byte
	if key != nil {
		keyBytes = key.Bytes()
	}
	opts := anchors
	opts.Line = func(k journal.Kind, jl *journal.Line) []string {
		l := record.Parse(k, jl.Value)
		if k == journal.Audit {
			st.applyAudit(&l)
			return nil
		}
		r := &l.Lease
		var reasons []string
		switch r.Event {
		case record.Granted:
			if r.Lease != nil {
				if key != nil {
					for _, p := range ver.Verify(r.Lease, *key) {
						reasons = append(reasons, fmt.Sprintf("granted lease: %s", p))
					}
				}
				if id := r.Signed().LeaseID; id != r.LeaseID {
					reasons = append(reasons, fmt.Sprintf("record lease_id %v differs from the lease's %v", r.LeaseID, id))
				}
			}
		case record.Revoked:
			for _, p := range checkRevokedBy(r.By, r.LeaseID, st.Chain(r.LeaseID)) {
				reasons = append(reasons, fmt.Sprintf("%s %s %s", p.Check, p.Path, p.Message))
			}
		}
		if err := st.applyLease(&l); err != nil {
			reasons = append(reasons, "does not fold: "+err.Error())
		}
		return reasons
	}
	return journal.VerifyWith(dir, keyBytes, opts)
}
