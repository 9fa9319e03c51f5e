package journal

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
)

// verifyFile checks one file for Verify.
type verifyFile struct {
	path    string
	kind    Kind
	key     []byte
	extra   func(Kind, *Line) []string
	prepare func(Kind, *Line) any
	// decodeAudit: see VerifyOptions.DecodeAudit.
	decodeAudit bool
	cv          *checkpointVerifier
	probe       *headProbe // nil without a kept head
	dirID       string
	headDir     string
	notices     []string
}

func (v *verifyFile) run() (FileReport, []Break) {
	fr := FileReport{File: v.kind.FileName()}
	f, err := os.Open(v.path)
	if errors.Is(err, fs.ErrNotExist) {
		fr.Missing = true
		if v.probe != nil && v.probe.want.Seq > 0 {
			return fr, []Break{{File: fr.File, Reason: fmt.Sprintf("the file was removed: the registry acknowledged up to seq %d of it (the kept head)", v.probe.want.Seq)}}
		}
		return fr, nil
	}
	if err != nil {
		return fr, []Break{{File: fr.File, Reason: "cannot be read: " + err.Error()}}
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fr, []Break{{File: fr.File, Reason: "cannot be read: " + err.Error()}}
	}
	size := st.Size()
	c := newChainChecker(fr.File)
	c.extraLine = func(a *analysed) []string {
		var reasons []string
		if v.extra != nil {
			reasons = v.extra(v.kind, &a.Line)
		}
		return append(reasons, v.cv.see(v.kind, a)...)
	}
	add := func(a *analysed) {
		if c.add(a) && v.probe != nil {
			v.probe.see(a)
		}
	}
	// The last complete line is held back one step: if it is not JSON, it
	// is a torn write rather than damage, and is reported as such.
	var held *analysed
	next, err := scan(io.NewSectionReader(f, 0, size), 0, 0, analyseOpts{kind: v.kind, key: v.key, validate: true, hash: true, prepare: v.prepare, decodeAudit: v.decodeAudit}, true, func(a *analysed) error {
		if held != nil {
			add(held)
		}
		held = a
		return nil
	})
	if err != nil {
		return fr, []Break{{File: fr.File, Reason: "cannot be read: " + err.Error()}}
	}
	// Bytes past the last newline are a torn write — unless the file has
	// grown since, in which case a writer was in the middle of a batch.
	growing := false
	if st2, err := f.Stat(); err == nil && st2.Size() > size {
		growing = true
	}
	tornAt := int64(-1)
	var torn *Break
	switch {
	case size > next:
		if held != nil {
			add(held)
		}
		tornAt = next
		if !growing {
			torn = &Break{File: fr.File, Seq: c.maxSeq + 1, Line: c.lines + 1, Offset: next,
				Reason: fmt.Sprintf("torn last line: %d bytes without a newline (a write cut short; opening the journal moves them aside)", size-next)}
		}
	case held != nil && held.jsonErr != nil && !growing:
		tornAt = held.Offset
		torn = &Break{File: fr.File, Seq: c.maxSeq + 1, Line: held.Number, Offset: held.Offset,
			Reason: fmt.Sprintf("torn last line: not JSON (%v); opening the journal moves it aside", held.jsonErr)}
		fr.Lines++
	case held != nil:
		add(held)
	}
	breaks := c.finish()
	breaks = v.compareHead(breaks, c, tornAt, size, torn, st)
	fr.Bytes = size
	fr.Lines += c.lines
	fr.LastSeq = c.headSeq
	if c.lines > 0 {
		fr.Head = hex.EncodeToString(c.headHash[:])
	}
	return fr, breaks
}

// compareHead adds what the kept head shows: a torn last line that was in
// fact acknowledged is damage; a file that no longer reaches its head was
// cut, replaced or rewritten.
func (v *verifyFile) compareHead(breaks []Break, c *chainChecker, tornAt, size int64, torn *Break, st fs.FileInfo) []Break {
	if v.probe == nil {
		if torn != nil {
			breaks = append(breaks, *torn)
		}
		return breaks
	}
	facts := headFacts{file: v.kind.FileName(), lastSeq: c.headSeq, lines: c.lines, tornAt: tornAt, size: size, dir: v.dirID, headDir: v.headDir}
	if id, ok := idOf(st); ok {
		facts.id = id.String()
	}
	verdict := v.probe.verdict(facts)
	switch {
	case verdict.replaced != "" && len(breaks) > 0:
		// The head line survived, but lines before it did not: say how.
		breaks = append(breaks, Break{File: facts.file, Reason: verdict.replaced + ", and lines of it were changed"})
	case verdict.notice != "":
		v.notices = append(v.notices, verdict.notice)
	}
	if verdict.broken != nil {
		return append(breaks, *verdict.broken)
	}
	if torn != nil {
		breaks = append(breaks, *torn)
	}
	if p := v.probe; p.afterLines > 0 {
		v.notices = append(v.notices, fmt.Sprintf("%s seq %s lie past the kept head: never acknowledged (the next start moves them aside), or a batch being written right now",
			v.kind.FileName(), seqRange(p.afterFrom, p.afterTo)))
	}
	return breaks
}

// journalNotice turns an audit line the journal wrote about itself into
// a notice for Verify's reader, or "".
func journalNotice(a *analysed) string {
	et, _ := a.Value["event_type"].(string)
	if !strings.HasPrefix(et, "leasedeck.journal.") || et == EventCheckpoint {
		return ""
	}
	summary, _ := a.Value["summary"].(string)
	return fmt.Sprintf("audit seq %d (%s): %s", a.Seq, strings.TrimPrefix(et, "leasedeck.journal."), summary)
}
