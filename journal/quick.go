package journal

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// QuickFile is what QuickCheck found of one file.
type QuickFile struct {
	File    string
	Missing bool
	Size    int64
	HeadSeq uint64 // the seq the kept head acknowledges (0: none)
	// Checked counts the lines read: the ones just before the head and the
	// ones after it, within the windows below.
	Checked int
	LastSeq uint64 // seq of the last complete line read
	After   int    // complete lines after the head (written, not yet acknowledged)
}

// QuickReport is the outcome of QuickCheck.
type QuickReport struct {
	Files       []QuickFile
	HeadChecked bool // a head was kept and its mac checked
	Problems    []string
	Notes       []string
}

// How much QuickCheck reads: the bytes before the acknowledged end (the
// head's last line and a few before it) and after it (lines written since).
const (
	quickBack    = 256 << 10
	quickForward = 4 << 20
)

// QuickCheck is a check of a journal that costs the same for ten lines as
// for ten million: it compares each file with the head its writer keeps
// (headPath, with key) — the file still exists, is the same file (device
// and inode), is at least as long, and the line that ends where the head
// says has the head's seq and SHA-256 — and runs the line rules (JSON,
// schema, seq, prev, mac) over the last lines before that point and every
// line after it, up to a few MiB. It does not read the rest of the file:
// a line rewritten in the middle is found only by Verify.
func QuickCheck(dir, headPath string, key []byte) QuickReport {
	var r QuickReport
	head, err := ReadHead(headPath, key)
	switch {
	case err == nil:
		r.HeadChecked = true
	case errors.Is(err, ErrNoHead):
		r.Notes = append(r.Notes, "no head is kept for this journal yet (no registry has written it): only its last lines are checked")
	default:
		r.Problems = append(r.Problems, err.Error())
	}
	for _, k := range Kinds {
		var fh *FileHead
		if head != nil {
			fh = &head.Files[k]
		}
		qf, problems, notes := quickFile(filepath.Join(dir, k.FileName()), k, fh, key)
		r.Files = append(r.Files, qf)
		r.Problems = append(r.Problems, problems...)
		r.Notes = append(r.Notes, notes...)
	}
	return r
}

func quickFile(path string, k Kind, fh *FileHead, key []byte) (qf QuickFile, problems, notes []string) {
	qf.File = k.FileName()
	if fh != nil {
		qf.HeadSeq = fh.Seq
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		qf.Missing = true
		if fh != nil && fh.Seq > 0 {
			problems = append(problems, fmt.Sprintf("%s is missing, but the registry acknowledged it up to seq %d", qf.File, fh.Seq))
		}
		return qf, problems, nil
	}
	if err != nil {
		return qf, []string{fmt.Sprintf("%s: %v", qf.File, err)}, nil
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return qf, []string{fmt.Sprintf("%s: %v", qf.File, err)}, nil
	}
	qf.Size = st.Size()
	end := qf.Size
	if fh != nil {
		if id, ok := idOf(st); ok && fh.ID != "" && id.String() != fh.ID {
			problems = append(problems, fmt.Sprintf("%s is not the file the registry wrote (device:inode %s, the head says %s): it was replaced", qf.File, id, fh.ID))
		}
		if qf.Size < fh.Size {
			return qf, append(problems, fmt.Sprintf("%s is %d bytes, shorter than the %d the registry acknowledged (seq %d): lines were removed at its end", qf.File, qf.Size, fh.Size, fh.Seq)), nil
		}
		end = fh.Size
	}
	start := max(0, end-quickBack)
	stop := qf.Size
	if fh != nil && stop-end > quickForward {
		stop = end + quickForward
		notes = append(notes, fmt.Sprintf("%s has more than %d MiB after its head; only the first %d MiB of it were read", qf.File, quickForward>>20, quickForward>>20))
	}
	window := make([]byte, stop-start)
	if _, err := f.ReadAt(window, start); err != nil && !errors.Is(err, io.EOF) {
		return qf, append(problems, fmt.Sprintf("%s: %v", qf.File, err)), notes
	}
	p, n := checkWindow(window, start, end, k, fh, key, &qf)
	return qf, append(problems, p...), append(notes, n...)
}

// checkWindow checks the lines of window (the file's bytes from start),
// where end is the acknowledged end of the file.
func checkWindow(window []byte, start, end int64, k Kind, fh *FileHead, key []byte, qf *QuickFile) (problems, notes []string) {
	if start > 0 {
		i := bytes.IndexByte(window, '\n')
		if i < 0 {
			return []string{fmt.Sprintf("%s: no line ends in the %d KiB before offset %d", qf.File, quickBack>>10, end)}, nil
		}
		window, start = window[i+1:], start+int64(i+1)
	}
	if fh != nil && fh.Seq > 0 {
		if p := checkHeadLine(window, start, end, fh, qf.File); p != "" {
			problems = append(problems, p)
		}
	}
	ch := NewCheckerMidFile(k, key)
	an := newAnalyser(analyseOpts{kind: k, validate: true})
	off := start
	for len(window) > 0 {
		i := bytes.IndexByte(window, '\n')
		if i < 0 {
			notes = append(notes, fmt.Sprintf("%s ends with %d bytes of an unfinished line (being written, or torn by a crash)", qf.File, len(window)))
			break
		}
		a := analysed{Line: Line{Raw: window[:i], Offset: off}}
		an.analyse(&a)
		if lp := lineProblem(qf.File, &a); lp != nil {
			problems = append(problems, fmt.Sprintf("%s at offset %d: %s", qf.File, off, lp.Reason))
		}
		if a.jsonErr == nil {
			for _, b := range ch.Check(&a.Line) {
				problems = append(problems, b.String())
			}
		}
		qf.Checked++
		qf.LastSeq = a.Seq
		if fh != nil && off >= end {
			qf.After++
		}
		off += int64(i + 1)
		window = window[i+1:]
	}
	if qf.After > 0 {
		notes = append(notes, fmt.Sprintf("%s has %d line(s) after its head: written, not yet acknowledged (normal while a registry writes; a stopped registry moves them aside at its next start)", qf.File, qf.After))
	}
	return problems, notes
}

// checkHeadLine finds the line that ends at end and compares it with the
// head: "" when it agrees.
func checkHeadLine(window []byte, start, end int64, fh *FileHead, file string) string {
	upto := end - start
	if upto <= 0 || upto > int64(len(window)) || window[upto-1] != '\n' {
		return fmt.Sprintf("%s: no line ends at offset %d, where the registry's head (seq %d) says its last acknowledged line ends", file, end, fh.Seq)
	}
	body := window[:upto-1]
	line := body[bytes.LastIndexByte(body, '\n')+1:]
	sum := sha256.Sum256(line)
	if hex.EncodeToString(sum[:]) != fh.Hash {
		return fmt.Sprintf("%s: the line that ends at offset %d is not the one the registry acknowledged (seq %d): its SHA-256 differs (rewritten)", file, end, fh.Seq)
	}
	return ""
}
