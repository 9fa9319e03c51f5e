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
// (journal.VerifyOptions.HeadPath, PublicKey, RequireProof); its Line and
// Prepare are VerifyJournal's own. A nil key is a verifier that holds only
// the public key: macs and lease signatures go unchecked, and the
// checkpoints' signatures prove the lines instead.
//
// What depends on one lease record alone — typing it, a granted lease's
// signature and rules L1 and L2 — runs in the journal's workers on every
// core (Prepare); the rules that need the lines in order — L3 and the fold
// — run as the lines arrive in file order. Leases are folded as the
// registry folds them at start: a closed lease keeps only its summary, so
// memory stays bounded by the leases open at once, not by the journal.
//
// Audit lines of the usual shape are decoded directly
// (journal.VerifyOptions.DecodeAudit): the same checks, without the
// generic tree.
func VerifyJournal(dir string, key *Key, anchors journal.VerifyOptions) journal.Report {
	return verifyJournal(dir, key, anchors, true)
}

func verifyJournal(dir string, key *Key, anchors journal.VerifyOptions, direct bool) journal.Report {
	st := NewState()
	var ver Verifier
	opts := anchors
	opts.DecodeAudit = direct
	opts.Prepare = func(k journal.Kind, jl *journal.Line) any {
		if k != journal.Leases {
			// An audit line is typed as it folds, on the stack: a
			// record.Line made here would be a kilobyte of garbage per
			// line, which costs more than typing it in order.
			return nil
		}
		return prepareVerified(jl, key, &ver)
	}
	opts.Line = func(k journal.Kind, jl *journal.Line) []string {
		if k == journal.Audit {
			l := record.ParseLine(k, jl)
			l.Offset, l.Seq, l.Located = jl.Offset, jl.Seq, true
			st.applyAudit(&l)
			return nil
		}
		p, _ := jl.Prepared.(*verifiedLine)
		if p == nil { // Prepare runs on every object line; this is defence
			p = prepareVerified(jl, key, &ver)
		}
		l := &p.line
		l.Offset, l.Seq, l.Located = jl.Offset, jl.Seq, true
		reasons := p.reasons
		if r := &l.Lease; r.Event == record.Revoked {
			for _, prob := range checkRevokedBy(r.By, r.LeaseID, st.Chain(r.LeaseID)) {
				reasons = append(reasons, fmt.Sprintf("%s %s %s", prob.Check, prob.Path, prob.Message))
			}
		}
		if err := st.applyLease(l); err != nil {
			reasons = append(reasons, "does not fold: "+err.Error())
		}
		return reasons
	}
	var keyBytes []byte
	if key != nil {
		keyBytes = key.Bytes()
	}
	return journal.VerifyWith(dir, keyBytes, opts)
}

// verifiedLine is a journal line typed, with what could be found wrong
// with it alone.
type verifiedLine struct {
	line    record.Line
	reasons []string
}

// prepareVerified types one lease record and, for a granted lease, checks
// the lease's signature (with a key) and rules L1 and L2, and that the
// record names the lease it carries. It is safe for concurrent use (ver
// locks its own cache).
func prepareVerified(jl *journal.Line, key *Key, ver *Verifier) *verifiedLine {
	p := &verifiedLine{line: record.ParseLine(journal.Leases, jl)}
	r := &p.line.Lease
	if r.Event != record.Granted || r.Lease == nil {
		return p
	}
	if key != nil {
		for _, prob := range ver.Verify(r.Lease, *key) {
			p.reasons = append(p.reasons, fmt.Sprintf("granted lease: %s", prob))
		}
	}
	if id := r.Signed().LeaseID; id != r.LeaseID {
		p.reasons = append(p.reasons, fmt.Sprintf("record lease_id %v differs from the lease's %v", r.LeaseID, id))
	}
	return p
}
