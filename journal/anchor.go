package journal

import (
	"encoding/hex"
	"fmt"
	"strings"
)

// headProbe watches one file's lines, as Open or Verify scans them, for
// the line the kept head names, and the lines after it.
type headProbe struct {
	want     FileHead
	wantHash [32]byte
	found    bool // the line with the head's seq was seen intact
	hash     [32]byte
	end      int64
	line     int
	// Intact lines after the head: written, never acknowledged.
	afterFrom, afterTo uint64
	afterLines         int
}

func newHeadProbe(fh FileHead) *headProbe {
	p := &headProbe{want: fh}
	if b, err := hex.DecodeString(fh.Hash); err == nil && len(b) == 32 {
		copy(p.wantHash[:], b)
	}
	if fh.Seq == 0 {
		p.found, p.end = true, 0
	}
	return p
}

// see takes an intact line, and reports whether it lies within the head
// (acknowledged): a line after the head must not be replayed.
func (p *headProbe) see(a *analysed) bool {
	switch {
	case a.Seq == p.want.Seq && !p.found:
		p.found, p.hash, p.end, p.line = true, a.hash, a.End(), a.Number
		return true
	case a.Seq > p.want.Seq && p.found:
		if p.afterLines == 0 {
			p.afterFrom = a.Seq
		}
		p.afterTo = a.Seq
		p.afterLines++
		return false
	}
	return a.Seq <= p.want.Seq
}

// headFacts is what a scan found of a file, for comparing with its head.
type headFacts struct {
	file    string
	lastSeq uint64 // seq of the last intact line
	lines   int
	tornAt  int64 // where unusable bytes at the end begin, or -1
	size    int64
	id, dir string // identities now ("" where unknown)
	headDir string // the head's directory identity
}

// headVerdict: ok, with what lies past the head (cutAt ≥ 0: bytes from
// there on were never acknowledged), or a break saying what happened.
type headVerdict struct {
	cutAt    int64
	broken   *Break
	replaced string // the file or directory is not the one the head names
	notice   string // … with the acknowledged lines intact
}

func (p *headProbe) verdict(f headFacts) headVerdict {
	v := headVerdict{cutAt: -1}
	replaced := replacedText(f, p.want)
	fail := func(seq uint64, line int, off int64, why string) headVerdict {
		if replaced != "" {
			why = replaced + "; " + why
		}
		v.broken = &Break{File: f.file, Seq: seq, Line: line, Offset: off, Reason: why}
		return v
	}
	acked := p.want.Seq
	switch {
	case f.tornAt >= 0 && f.tornAt < p.want.Size:
		return fail(0, f.lines+1, f.tornAt, fmt.Sprintf(
			"the last line is damaged, not torn: its bytes (from offset %d) were acknowledged and fsync'd, up to seq %d at byte %d, so no crash can explain them; nothing was moved aside",
			f.tornAt, acked, p.want.Size))
	case p.found && p.hash != p.wantHash:
		return fail(acked, p.line, p.end, fmt.Sprintf(
			"the line at seq %d is not the one the registry wrote (its hash is %s, the kept head's %s): the file was rewritten",
			acked, hex.EncodeToString(p.hash[:8]), p.want.Hash[:min(16, len(p.want.Hash))]))
	case !p.found && f.lastSeq < acked:
		n := acked - f.lastSeq
		return fail(f.lastSeq+1, f.lines+1, f.size, fmt.Sprintf(
			"%d line(s) removed at the end: the file ends at seq %d, but the registry acknowledged up to seq %d (the kept head)",
			n, f.lastSeq, acked))
	case !p.found:
		return fail(acked, 0, 0, fmt.Sprintf("the line the kept head names (seq %d) is not intact", acked))
	case p.end != p.want.Size:
		return fail(acked, p.line, p.end, fmt.Sprintf(
			"seq %d ends at byte %d, but the kept head says %d", acked, p.end, p.want.Size))
	}
	if f.size > p.want.Size {
		v.cutAt = p.want.Size
	}
	if replaced != "" {
		v.replaced = replaced
		v.notice = f.file + ": " + replaced + ", with the acknowledged lines intact"
	}
	return v
}

// replacedText says which identities differ from the head's, or "".
func replacedText(f headFacts, fh FileHead) string {
	var parts []string
	if f.headDir != "" && f.dir != "" && f.dir != f.headDir {
		parts = append(parts, fmt.Sprintf("the journal directory was replaced (it is %s, the kept head's %s)", f.dir, f.headDir))
	}
	if fh.ID != "" && f.id != "" && f.id != fh.ID {
		parts = append(parts, fmt.Sprintf("the file was replaced (it is %s, the kept head's %s)", f.id, fh.ID))
	}
	return strings.Join(parts, "; ")
}
