package journal

import (
	"fmt"
	"sort"
	"strings"
)

// Break is one place where a journal file is not what its writer wrote.
type Break struct {
	File string // the file's base name
	// Seq is the line's seq, or 0 when the line is too damaged to say
	// (then Line identifies it, and Reason says which seq was expected).
	Seq    uint64
	Line   int   // 1-based line number
	Offset int64 // byte offset of the line
	Reason string
}

func (b Break) String() string {
	if b.Seq > 0 {
		return fmt.Sprintf("%s seq %d: %s", b.File, b.Seq, b.Reason)
	}
	return fmt.Sprintf("%s line %d: %s", b.File, b.Line, b.Reason)
}

// BreakError is returned by Append to a file with a break: leasedeck
// stops recording decisions there until a person has looked.
type BreakError struct {
	Break
	More int // further breaks in the same file
}

func (e *BreakError) Error() string {
	more := ""
	if e.More > 0 {
		more = fmt.Sprintf(" (and %d more)", e.More)
	}
	return fmt.Sprintf("journal %s is broken at %s%s; refusing to append until it is repaired (see leasedeck journal verify)",
		e.File, strings.TrimPrefix(e.Break.String(), e.File+" "), more)
}

// ringSize is how far back, in seq, the checker remembers line hashes. It
// bounds memory whatever the journal's size; lines reordered further apart
// than this are still reported, only less precisely.
const ringSize = 4096

// tracking caps how many open gaps and pending links the checker follows,
// so that a file of garbage cannot make it grow without bound.
const tracking = 10000

type ringEntry struct {
	seq     uint64
	hash    [32]byte
	line    int
	suspect bool
}

// gap is a run of seqs not yet seen, found at the line that skipped them.
type gap struct {
	from, to uint64
	line     int
	offset   int64
	seq      uint64 // the seq of the line that skipped them
	after    uint64 // the seq before the skip
}

type pendingLink struct {
	want   [32]byte
	line   int
	offset int64
	seq    uint64
}

// chainChecker applies the rules that relate lines — seq counts up by one,
// prev is the hash of the line with the previous seq — in file order, on
// lines already analysed one by one. It reports one break per damaged line
// and explains damage once: a line that was altered breaks the link to the
// next line too, but only the altered line is reported.
type chainChecker struct {
	file      string
	breaks    map[int]*Break
	order     []int
	ring      [ringSize]ringEntry
	maxSeq    uint64
	prevSeq   uint64 // the seq of the previous line, as reported
	gaps      []gap
	pending   map[uint64]pendingLink
	lines     int
	headSeq   uint64
	headHash  [32]byte
	extraLine func(*analysed) []string // caller's own rules, for intact lines
	// live reports a forward jump in seq at once, as a gap, rather than
	// waiting to see whether a later line fills it: a live reader must
	// say what it sees now.
	live bool
	// midFile: reading starts after the file's first line, so the first
	// line seen sets where seq counts from and its prev is not checked.
	midFile bool
	touched []int // lines reported since the last takeTouched
}

func newChainChecker(file string) *chainChecker {
	return &chainChecker{file: file, breaks: map[int]*Break{}, pending: map[uint64]pendingLink{}}
}

func (c *chainChecker) report(line int, off int64, seq uint64, reason string) {
	c.touched = append(c.touched, line)
	if b, ok := c.breaks[line]; ok {
		b.Reason += "; " + reason
		return
	}
	c.breaks[line] = &Break{File: c.file, Seq: seq, Line: line, Offset: off, Reason: reason}
	c.order = append(c.order, line)
}

func (c *chainChecker) get(seq uint64) *ringEntry {
	e := &c.ring[seq%ringSize]
	if e.seq != seq || seq == 0 {
		return nil
	}
	return e
}

// add takes the next line of the file and reports whether it is intact:
// readable, untouched and in its place.
func (c *chainChecker) add(a *analysed) bool {
	c.lines++
	reasons, suspect := lineReasons(a)

	var seq uint64
	reportSeq := a.Seq
	if c.midFile && c.lines == 1 && !suspect {
		// The first line continues a file read from the middle: its
		// predecessor is not here to compare with.
		c.maxSeq, c.prevSeq = a.Seq, a.Seq
		c.ring[a.Seq%ringSize] = ringEntry{seq: a.Seq, hash: a.hash, line: a.Number}
		c.headSeq, c.headHash = a.Seq, a.hash
		if len(reasons) > 0 {
			c.report(a.Number, a.Offset, reportSeq, strings.Join(reasons, "; "))
			return false
		}
		return true
	}
	if suspect {
		// The line's own seq cannot be trusted: it takes the place its
		// position implies, and is reported by seq only when the two agree.
		seq = c.maxSeq + 1
		c.maxSeq = seq
		if a.Seq != seq {
			reportSeq = 0
			if a.Seq != 0 {
				reasons = append(reasons, fmt.Sprintf("it claims seq %d where seq %d was expected", a.Seq, seq))
			} else {
				reasons = append(reasons, fmt.Sprintf("seq %d was expected here", seq))
			}
		}
	} else {
		seq = a.Seq
		switch {
		case seq == c.maxSeq+1:
			c.maxSeq = seq
		case seq > c.maxSeq+1 && c.live:
			reasons = append(reasons, fmt.Sprintf("%s: seq %d follows seq %d", missingText(c.maxSeq+1, seq-1), seq, c.maxSeq))
			c.maxSeq = seq
		case seq > c.maxSeq+1:
			if len(c.gaps) < tracking {
				c.gaps = append(c.gaps, gap{from: c.maxSeq + 1, to: seq - 1, line: a.Number, offset: a.Offset, seq: seq, after: c.maxSeq})
			} else {
				reasons = append(reasons, fmt.Sprintf("seq jumps from %d to %d", c.maxSeq, seq))
			}
			c.maxSeq = seq
		default:
			if c.fillGap(seq) {
				reasons = append(reasons, fmt.Sprintf("out of order: seq %d comes after seq %d", seq, c.prevSeq))
			} else if e := c.get(seq); e != nil {
				reasons = append(reasons, fmt.Sprintf("seq %d repeated (first at line %d)", seq, e.line))
			} else {
				reasons = append(reasons, fmt.Sprintf("seq %d repeated or out of order: it comes after seq %d", seq, c.prevSeq))
			}
		}
		if a.prevErr == "" {
			c.checkLink(a, seq, &reasons)
		}
		if p, ok := c.pending[seq]; ok {
			delete(c.pending, seq)
			if p.want != a.hash {
				c.report(p.line, p.offset, p.seq, fmt.Sprintf("prev does not match the hash of seq %d (line %d)", seq, a.Number))
			}
		}
	}
	if len(reasons) == 0 && c.extraLine != nil {
		reasons = append(reasons, c.extraLine(a)...)
	}
	c.ring[seq%ringSize] = ringEntry{seq: seq, hash: a.hash, line: a.Number, suspect: suspect}
	c.prevSeq = seq
	c.headSeq, c.headHash = seq, a.hash
	if len(reasons) > 0 {
		c.report(a.Number, a.Offset, reportSeq, strings.Join(reasons, "; "))
		return false
	}
	return true
}

// lineReasons is what is wrong with a line on its own. suspect: the
// line's bytes are not the writer's, so neither its seq nor its hash can
// be relied on.
func lineReasons(a *analysed) (reasons []string, suspect bool) {
	if a.jsonErr != nil {
		return []string{"not JSON: " + a.jsonErr.Error()}, true
	}
	switch a.mac {
	case macMissing:
		reasons = append(reasons, `no mac: the line does not end with a ,"mac":"<64 hex>" member`)
		suspect = true
	case macBad:
		reasons = append(reasons, "mac mismatch: the line was changed after it was written (or written under another key)")
		suspect = true
	}
	if a.seqErr != "" {
		reasons = append(reasons, a.seqErr)
		suspect = true
	}
	if a.prevErr != "" {
		reasons = append(reasons, a.prevErr)
	}
	if a.schemaErr != nil {
		reasons = append(reasons, "cannot be validated: "+a.schemaErr.Error())
	} else if len(a.schema) > 0 {
		reasons = append(reasons, "schema: "+schemaSummary(a.schema))
	}
	return reasons, suspect
}

// checkLink compares a line's prev with the hash of the line holding the
// previous seq, wherever that line is; when it has not been seen yet (the
// two were swapped) the check waits for it.
func (c *chainChecker) checkLink(a *analysed, seq uint64, reasons *[]string) {
	if seq == 1 {
		if a.prev != [32]byte{} {
			*reasons = append(*reasons, "prev of seq 1 is not 64 zeros")
		}
		return
	}
	if e := c.get(seq - 1); e != nil {
		// A suspect predecessor is reported already; its hash proves nothing.
		if !e.suspect && e.hash != a.prev {
			*reasons = append(*reasons, fmt.Sprintf("prev does not match the hash of seq %d (line %d)", seq-1, e.line))
		}
		return
	}
	if c.inGap(seq-1) && len(c.pending) < tracking {
		c.pending[seq-1] = pendingLink{want: a.prev, line: a.Number, offset: a.Offset, seq: seq}
	}
}

func (c *chainChecker) inGap(seq uint64) bool {
	for _, g := range c.gaps {
		if seq >= g.from && seq <= g.to {
			return true
		}
	}
	return false
}

// fillGap removes seq from the open gaps, reporting whether it was in one.
func (c *chainChecker) fillGap(seq uint64) bool {
	for i, g := range c.gaps {
		if seq < g.from || seq > g.to {
			continue
		}
		switch {
		case g.from == g.to:
			c.gaps = append(c.gaps[:i], c.gaps[i+1:]...)
		case seq == g.from:
			c.gaps[i].from++
		case seq == g.to:
			c.gaps[i].to--
		default:
			rest := g
			rest.from = seq + 1
			c.gaps[i].to = seq - 1
			c.gaps = append(c.gaps, rest)
		}
		return true
	}
	return false
}

// finish reports the gaps no later line filled and returns every break in
// line order.
func (c *chainChecker) finish() []Break {
	for _, g := range c.gaps {
		if g.from == 1 && g.line == 1 {
			c.report(g.line, g.offset, g.seq, fmt.Sprintf("%d line(s) removed at the start: the file begins at seq %d", g.to, g.seq))
			continue
		}
		c.report(g.line, g.offset, g.seq, fmt.Sprintf("%s: seq %d follows seq %d", missingText(g.from, g.to), g.seq, g.after))
	}
	c.gaps = nil
	sort.Ints(c.order)
	out := make([]Break, 0, len(c.order))
	for _, n := range c.order {
		out = append(out, *c.breaks[n])
	}
	return out
}

func missingText(from, to uint64) string {
	if to > from {
		return fmt.Sprintf("seqs %d to %d are missing (%d lines)", from, to, to-from+1)
	}
	return fmt.Sprintf("seq %d is missing", from)
}

// takeTouched returns the breaks reported (or added to) since the last
// call, in line order.
func (c *chainChecker) takeTouched() []Break {
	if len(c.touched) == 0 {
		return nil
	}
	sort.Ints(c.touched)
	out := make([]Break, 0, len(c.touched))
	for i, n := range c.touched {
		if i > 0 && c.touched[i-1] == n {
			continue
		}
		out = append(out, *c.breaks[n])
	}
	c.touched = c.touched[:0]
	return out
}
