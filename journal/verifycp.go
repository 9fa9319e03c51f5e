package journal

import (
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
)

// checkpointVerifier follows both files during Verify and checks every
// checkpoint line against the lines it signs.
type checkpointVerifier struct {
	pub         ed25519.PublicKey
	require     bool       // no proof is a break
	leaseHashes [][32]byte // by seq-1, as long as leases.jsonl counts up
	leasesLast  uint64
	auditLast   uint64
	rep         CheckpointReport
	lastGood    uint64 // audit seq of the last checkpoint that held
	notices     []string
	// leasesGrew reports whether leases.jsonl has grown since it was
	// read: a checkpoint written meanwhile signs lines this pass has not
	// seen, which is no cut.
	leasesGrew func() bool
}

func newCheckpointVerifier(pub ed25519.PublicKey) *checkpointVerifier {
	return &checkpointVerifier{pub: pub, rep: CheckpointReport{KeyChecked: pub != nil}}
}

// see takes an intact line and returns what is wrong with it as a
// checkpoint (nothing for other lines).
func (cv *checkpointVerifier) see(k Kind, a *analysed) []string {
	if k == Leases {
		if a.Seq == uint64(len(cv.leaseHashes))+1 {
			cv.leaseHashes = append(cv.leaseHashes, a.hash)
		}
		cv.leasesLast = a.Seq
		return nil
	}
	cv.auditLast = a.Seq
	if n := journalNotice(a); n != "" {
		cv.notices = append(cv.notices, n)
	}
	if et, _ := a.Value["event_type"].(string); et != EventCheckpoint {
		return nil
	}
	cv.rep.Count++
	if claim, err := parseCheckpoint(a.Value); err == nil && claim.leasesSeq > uint64(len(cv.leaseHashes)) && cv.leasesGrew != nil && cv.leasesGrew() {
		cv.notices = append(cv.notices, fmt.Sprintf("audit seq %d: a checkpoint of lease lines written after leases.jsonl was read (a registry is running); not checked", a.Seq))
		return nil
	}
	reasons := cv.check(a)
	if len(reasons) == 0 {
		if cv.pub != nil {
			cv.rep.Verified++
		}
		claim, _ := parseCheckpoint(a.Value)
		cv.rep.LeasesSeq, cv.rep.AuditSeq, cv.lastGood = claim.leasesSeq, claim.auditSeq, a.Seq
	}
	return reasons
}

func (cv *checkpointVerifier) check(a *analysed) []string {
	claim, err := parseCheckpoint(a.Value)
	if err != nil {
		return []string{"checkpoint: " + err.Error()}
	}
	var reasons []string
	if claim.auditSeq+1 != a.Seq || claim.auditHead != hex.EncodeToString(a.prev[:]) {
		reasons = append(reasons, fmt.Sprintf("checkpoint signs audit seq %d (%s…), but the line before it is seq %d (%s…): audit lines before it were rewritten",
			claim.auditSeq, short(claim.auditHead), a.Seq-1, hex.EncodeToString(a.prev[:8])))
	}
	switch {
	case claim.leasesSeq > uint64(len(cv.leaseHashes)):
		reasons = append(reasons, fmt.Sprintf("checkpoint signs leases seq %d, but leases.jsonl counts only to seq %d: lease lines were removed", claim.leasesSeq, len(cv.leaseHashes)))
	case claim.leasesSeq == 0 && claim.leasesHead != ZeroHash:
		reasons = append(reasons, "checkpoint signs an empty leases.jsonl with a head that is not 64 zeros")
	case claim.leasesSeq > 0 && hex.EncodeToString(cv.leaseHashes[claim.leasesSeq-1][:]) != claim.leasesHead:
		got := cv.leaseHashes[claim.leasesSeq-1]
		reasons = append(reasons, fmt.Sprintf("leases.jsonl seq %d is not the line this checkpoint signed (%s…, the file has %s…): the lease journal was rewritten at or before seq %d, after the checkpoint before this one",
			claim.leasesSeq, short(claim.leasesHead), hex.EncodeToString(got[:8]), claim.leasesSeq))
	}
	if cv.pub != nil {
		msg := checkpointMessage(claim.leasesSeq, claim.leasesHead, claim.auditSeq, claim.auditHead)
		if !ed25519.Verify(cv.pub, msg, claim.sig) {
			reasons = append(reasons, "checkpoint signature does not verify under the given public key: a forged checkpoint, or another journal's key")
		}
	}
	return reasons
}

func short(h string) string {
	if len(h) > 16 {
		return h[:16]
	}
	return h
}

// finish fills the report's coverage and returns what a public-key proof
// lacks.
func (cv *checkpointVerifier) finish(r *Report) []Break {
	r.Notices = append(r.Notices, cv.notices...)
	rep := cv.rep
	total := int(cv.leasesLast + cv.auditLast)
	if cv.lastGood > 0 {
		rep.Uncovered = int(cv.leasesLast-min(cv.leasesLast, rep.LeasesSeq)) + int(cv.auditLast-min(cv.auditLast, cv.lastGood))
	} else {
		rep.Uncovered = total
	}
	r.Checkpoints = rep
	if cv.pub == nil || total == 0 {
		return nil
	}
	if rep.Verified == 0 && cv.require {
		return []Break{{File: AuditFile, Reason: "no checkpoint verifies under the given public key: nothing in this journal is proven by it"}}
	}
	if rep.Uncovered > 0 && rep.Verified > 0 {
		r.Notices = append(r.Notices, fmt.Sprintf("%d line(s) after the last signed checkpoint (leases seq %d, audit seq %d) are not covered by a signature: written after it (a registry still running, or one that did not shut down), or added by someone else",
			rep.Uncovered, rep.LeasesSeq, cv.lastGood))
	}
	return nil
}
