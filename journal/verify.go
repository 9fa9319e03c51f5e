package journal

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
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
	// Finish, when set, is called after both files and may add breaks of
	// its own (for rules over the whole journal).
	Finish func() []Break
}

// Verify checks both files of a journal directory offline: every line is
// complete, JSON, valid against its schema, carries seq counting up from 1
// without gaps or repeats, a prev equal to the SHA-256 of the line with the
// previous seq, and a mac that key confirms. Every break is listed with its
// file, seq (or line) and reason; damage is explained once, at the line
// that was damaged, rather than again at each line after it.
//
// A nil key skips the macs (Report.MACsChecked says so). Verify needs no
// lock and may run while a Writer appends; it reads what is complete.
func Verify(dir string, key []byte) Report {
	return VerifyWith(dir, key, VerifyOptions{})
}

// VerifyWith is Verify with the caller's own rules added.
func VerifyWith(dir string, key []byte, opts VerifyOptions) Report {
	r := Report{Dir: dir, MACsChecked: key != nil}
	for _, k := range Kinds {
		fr, breaks := verifyFile(filepath.Join(dir, k.FileName()), k, key, opts.Line)
		r.Files = append(r.Files, fr)
		r.Breaks = append(r.Breaks, breaks...)
	}
	if opts.Finish != nil {
		r.Breaks = append(r.Breaks, opts.Finish()...)
	}
	return r
}

func verifyFile(path string, k Kind, key []byte, extra func(Kind, *Line) []string) (FileReport, []Break) {
	fr := FileReport{File: k.FileName()}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		fr.Missing = true
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
	if extra != nil {
		c.extraLine = func(a *analysed) []string { return extra(k, &a.Line) }
	}
	// The last complete line is held back one step: if it is not JSON, it
	// is a torn write rather than damage, and is reported as such.
	var held *analysed
	next, err := scan(io.NewSectionReader(f, 0, size), 0, 0, analyseOpts{kind: k, key: key, validate: true, hash: true}, true, func(a *analysed) error {
		if held != nil {
			c.add(held)
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
	var torn *Break
	switch {
	case size > next:
		if held != nil {
			c.add(held)
		}
		if !growing {
			torn = &Break{File: fr.File, Seq: c.maxSeq + 1, Line: c.lines + 1, Offset: next,
				Reason: fmt.Sprintf("torn last line: %d bytes without a newline (a write cut short; opening the journal moves them aside)", size-next)}
		}
	case held != nil && held.jsonErr != nil && !growing:
		torn = &Break{File: fr.File, Seq: c.maxSeq + 1, Line: held.Number, Offset: held.Offset,
			Reason: fmt.Sprintf("torn last line: not JSON (%v); opening the journal moves it aside", held.jsonErr)}
		fr.Lines++
	case held != nil:
		c.add(held)
	}
	breaks := c.finish()
	if torn != nil {
		breaks = append(breaks, *torn)
	}
	fr.Bytes = size
	fr.Lines += c.lines
	fr.LastSeq = c.headSeq
	if c.lines > 0 {
		fr.Head = hex.EncodeToString(c.headHash[:])
	}
	return fr, breaks
}
