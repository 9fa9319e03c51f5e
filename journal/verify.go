package journal

import (
	"crypto/ed25519"
	"errors"
	"os"
	"path/filepath"
)

// FileReport describes one file as Verify found it.
type FileReport struct {
	File    string // base name
	Missing bool   // the file does not exist (a journal with no lines yet)
	Bytes   int64
	Lines   int    // complete lines
	LastSeq uint64 // seq of the last line
	Head    string // SHA-256 hex of the last line: the next line's prev
}

// Report is the outcome of Verify.
type Report struct {
	Dir    string
	Files  []FileReport
	Breaks []Break
	// MACsChecked is false when Verify had no key: every other rule was
	// checked, but an edited line whose chain was re-hashed would pass.
	MACsChecked bool
	// HeadChecked is true when the files were compared with a kept head.
	HeadChecked bool
	// Checkpoints is what the signed checkpoints prove.
	Checkpoints CheckpointReport
	// Notices are events the journal recorded about itself that a reader
	// must know (lines never acknowledged, torn lines moved aside, writes
	// resumed after a failure, a head started on an existing journal) and
	// facts that are not damage (a file replaced by an identical copy).
	Notices []string
}

// CheckpointReport says how far the signed checkpoints vouch for the
// journal.
type CheckpointReport struct {
	Count int // checkpoint lines found
	// Verified counts those whose signature was checked under the public
	// key (0 without one) and whose heads match the files.
	Verified int
	// LeasesSeq and AuditSeq are the heads the last good checkpoint
	// signs: every line up to them is proven.
	LeasesSeq, AuditSeq uint64
	// Uncovered counts the lines after them, which no checkpoint signs.
	Uncovered  int
	KeyChecked bool // a public key was given
}

// OK is true when nothing is broken.
func (r *Report) OK() bool { return len(r.Breaks) == 0 }

// VerifyOptions lets a caller add its own rules to Verify's pass, so a
// million-line journal is read once. The registry adds L1–L3 and "every
// status folds" this way.
type VerifyOptions struct {
	// Line, when set, is called for each line that passed every journal
	// check (JSON, schema, seq, prev, mac), leases.jsonl first and then
	// audit.jsonl, each in file order. Every reason it returns becomes a
	// break at that line. As with Scan, l.Value may be kept but l and
	// l.Raw not.
	Line func(k Kind, l *Line) []string
	// Prepare, when set, is called in the scan's workers, on every core and
	// in no particular order, for each line that is a JSON object (whether
	// or not it then passes the journal's checks); what it returns is
	// l.Prepared when Line sees the line. It is for the work of Line that
	// depends on the line alone (typing a record, checking a signature),
	// so that only what needs the lines in order is left to Line. It must
	// be safe for concurrent use and must not change l.Value.
	Prepare func(k Kind, l *Line) any
	// DecodeAudit, when set, has audit lines of the usual shape decoded
	// directly into l.Audit (l.Value nil) instead of the generic tree: the
	// same checks, for a fraction of the CPU (see AuditFields). Line and
	// Prepare must then read either.
	DecodeAudit bool
	// Finish, when set, is called after both files and may add breaks of
	// its own (for rules over the whole journal).
	Finish func() []Break
	// HeadPath, when set, is the registry's kept head (see Head), read with
	// the key: a file that no longer reaches it is a break that says
	// what happened (lines removed at the end, the file or the directory
	// replaced, the file rewritten).
	HeadPath string
	// PublicKey, when set, checks every checkpoint's Ed25519 signature;
	// without it the checkpoints' heads are still compared with the files.
	PublicKey ed25519.PublicKey
	// RequireProof makes a journal that no checkpoint proves under
	// PublicKey a break: what a third party holding only the public key
	// needs. Without it coverage is reported, not required (a registry
	// that is running has not signed its latest lines yet).
	RequireProof bool
}

// VerifyWith checks both files of a journal directory offline: every line
// is complete, JSON, valid against its schema, carries seq counting up from
// 1 without gaps or repeats, a prev equal to the SHA-256 of the line with
// the previous seq, and a mac that key confirms; opts adds the caller's own
// rules. Every break is listed with its file, seq (or line) and reason;
// damage is explained once, at the line that was damaged, rather than again
// at each line after it.
//
// A nil key skips the macs (Report.MACsChecked says so). VerifyWith needs
// no lock and may run while a Writer appends; it reads what is complete.
func VerifyWith(dir string, key []byte, opts VerifyOptions) Report {
	r := Report{Dir: dir, MACsChecked: key != nil}
	var kept *Head
	if opts.HeadPath != "" {
		h, err := ReadHead(opts.HeadPath, key)
		switch {
		case err == nil:
			kept, r.HeadChecked = h, true
		case errors.Is(err, ErrNoHead):
			r.Notices = append(r.Notices, "no head is kept for this journal yet: lines removed at its end would not show")
		default:
			r.Breaks = append(r.Breaks, Break{File: filepath.Base(opts.HeadPath), Reason: err.Error()})
		}
	}
	cv := newCheckpointVerifier(opts.PublicKey)
	cv.require = opts.RequireProof
	dirID := ""
	if st, err := os.Stat(dir); err == nil {
		if id, ok := idOf(st); ok {
			dirID = id.String()
		}
	}
	leasesPath := filepath.Join(dir, LeasesFile)
	leasesSize := int64(-1)
	cv.leasesGrew = func() bool {
		st, err := os.Stat(leasesPath)
		return err == nil && leasesSize >= 0 && st.Size() > leasesSize
	}
	for _, k := range Kinds {
		vf := &verifyFile{path: filepath.Join(dir, k.FileName()), kind: k, key: key, extra: opts.Line, prepare: opts.Prepare, decodeAudit: opts.DecodeAudit, cv: cv, dirID: dirID}
		if kept != nil {
			vf.probe = newHeadProbe(kept.Files[k])
			vf.headDir = kept.Dir
		}
		fr, breaks := vf.run()
		if k == Leases {
			leasesSize = fr.Bytes
		}
		r.Files = append(r.Files, fr)
		r.Breaks = append(r.Breaks, breaks...)
		r.Notices = append(r.Notices, vf.notices...)
	}
	r.Breaks = append(r.Breaks, cv.finish(&r)...)
	if opts.Finish != nil {
		r.Breaks = append(r.Breaks, opts.Finish()...)
	}
	return r
}
