package journal

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
)

// openAnchors reads the kept head and the signing key, when configured.
func (w *Writer) openAnchors() error {
	if p := w.opts.SigningKeyPath; p != "" {
		s, err := loadSigner(p)
		if err != nil {
			return err
		}
		w.signer = s
	}
	if w.opts.HeadPath == "" {
		return nil
	}
	h, err := ReadHead(w.opts.HeadPath, w.key)
	var gen uint64
	switch {
	case err == nil:
		w.kept, gen = h, h.Gen
		w.lastCP = h.CheckpointSeq
	case errors.Is(err, ErrNoHead):
	default:
		// A head that cannot be believed is kept for a person to look at,
		// and the journal is not written against it.
		return fmt.Errorf("journal: %w; move it aside only after checking the journal (leasedeck journal verify)", err)
	}
	hf, err := openHeadFile(w.opts.HeadPath, w.key, gen)
	if err != nil {
		return err
	}
	w.headFile = hf
	return nil
}

// loadAll loads both files, compares them with the kept head, and moves
// aside what lies past it: a torn last line, or lines never acknowledged.
func (w *Writer) loadAll() error {
	var cuts [2]int64
	var probes [2]*headProbe
	from := w.decideResume()
	for _, k := range Kinds {
		if w.kept != nil {
			probes[k] = newHeadProbe(w.kept.Files[k])
		}
		var start *Position
		if from != nil {
			start = &from[k]
			if probes[k] != nil {
				probes[k].seedProbe(*start)
			}
		}
		var err error
		if cuts[k], err = w.load(w.files[k], probes[k], start); err != nil {
			return err
		}
	}
	for _, k := range Kinds {
		if cuts[k] < 0 {
			continue
		}
		fsx := w.files[k]
		what := "torn"
		p := probes[k]
		if p != nil && p.afterLines > 0 {
			what = "unacked"
		}
		r, err := w.cutTail(fsx, cuts[k], what)
		if err != nil {
			return err
		}
		if what == "unacked" {
			r.Unacknowledged, r.FromSeq, r.ToSeq = true, p.afterFrom, p.afterTo
		}
		w.recov = append(w.recov, r)
	}
	if w.headFile != nil {
		return w.headFile.write(w.currentHead(nil))
	}
	return nil
}

// load reads and checks one file, setting its chain head. With a kept
// head, lines past it are not replayed. From a start position (Resume),
// only the lines after it are read. It returns the offset from which the
// file's end must be moved aside, or -1.
func (w *Writer) load(fsx *fileState, probe *headProbe, start *Position) (int64, error) {
	st, err := fsx.f.Stat()
	if err != nil {
		return -1, err
	}
	size := st.Size()
	c := newChainChecker(fsx.kind.FileName())
	var from int64
	if start != nil {
		c.seed(*start)
		from, fsx.lastOff = start.End, start.Offset
	}
	var replayErr error
	feed := func(a *analysed) {
		if !c.add(a) {
			return
		}
		inHead := probe == nil || probe.see(a)
		if inHead {
			fsx.lastOff = a.Offset
		}
		if inHead && w.opts.Replay != nil && replayErr == nil {
			replayErr = w.opts.Replay(fsx.kind, &a.Line)
		}
	}
	// Hold the last line back: a last line that is not JSON is torn, not
	// damage, and must not be checked as a line.
	var held *analysed
	next, err := scan(io.NewSectionReader(fsx.f, 0, size), from, c.lines,
		analyseOpts{kind: fsx.kind, key: w.key, validate: true, hash: true, decodeAudit: w.opts.DecodeAudit}, true,
		func(a *analysed) error {
			if held != nil {
				feed(held)
			}
			held = a
			return replayErr
		})
	if err != nil {
		return -1, fmt.Errorf("journal: reading %s: %w", fsx.path, err)
	}
	tornAt := int64(-1)
	switch {
	case next < size:
		if held != nil {
			feed(held)
		}
		tornAt = next
	case held != nil && held.jsonErr != nil:
		tornAt = held.Offset
	case held != nil:
		feed(held)
	}
	if replayErr != nil {
		return -1, replayErr
	}
	fsx.breaks = c.finish()
	fsx.seq, fsx.head = c.headSeq, c.headHash
	fsx.size = size
	if probe == nil {
		if tornAt >= 0 {
			fsx.size = tornAt
		}
		return tornAt, nil
	}
	v := probe.verdict(w.facts(fsx, c, tornAt, size))
	if v.notice != "" {
		w.notices = append(w.notices, v.notice)
	}
	if v.broken != nil {
		fsx.breaks = append(fsx.breaks, *v.broken)
		return -1, nil
	}
	if v.cutAt >= 0 {
		fsx.size = v.cutAt
		fsx.seq, fsx.head = probe.want.Seq, probe.wantHash
	}
	return v.cutAt, nil
}

// facts gathers what a head is compared with.
func (w *Writer) facts(fsx *fileState, c *chainChecker, tornAt, size int64) headFacts {
	f := headFacts{file: fsx.kind.FileName(), lastSeq: c.headSeq, lines: c.lines, tornAt: tornAt, size: size, headDir: w.kept.Dir}
	if id, ok := idOf(fsx.fi); ok {
		f.id = id.String()
	}
	if id, ok := idOf(w.dirFI); ok {
		f.dir = id.String()
	}
	return f
}

// currentHead is the head as the writer holds it, with the entries of
// broken files left as they were kept (their damage must stay visible
// after a restart). next, when set, overrides the seq, hash and size.
func (w *Writer) currentHead(next *[2]FileHead) *Head {
	h := &Head{CheckpointSeq: w.lastCP}
	if id, ok := idOf(w.dirFI); ok {
		h.Dir = id.String()
	}
	for _, k := range Kinds {
		fsx := w.files[k]
		if len(fsx.breaks) > 0 && w.kept != nil {
			h.Files[k] = w.kept.Files[k]
			continue
		}
		fh := FileHead{Seq: fsx.seq, Hash: hex.EncodeToString(fsx.head[:]), Size: fsx.size}
		if next != nil {
			fh = next[k]
		}
		if id, ok := idOf(fsx.fi); ok {
			fh.ID = id.String()
		}
		h.Files[k] = fh
	}
	return h
}

// recordOpen writes, once the commit loop runs, what Open found: the
// recoveries (each describing a cut already made), and that no head had
// been kept before, so the files were taken as found.
func (w *Writer) recordOpen() error {
	for i := range w.recov {
		rec := w.recoveryRecord(w.recov[i])
		if _, err := w.Append(Audit, rec); err != nil {
			var be *BreakError
			if errors.As(err, &be) {
				continue // audit.jsonl is broken; Recoveries still tells
			}
			return fmt.Errorf("journal: recording the recovery of %s: %w", w.recov[i].File, err)
		}
		w.recov[i].Recorded = true
	}
	if w.headFile == nil || w.kept != nil {
		return nil
	}
	ls, _, _ := w.Head(Leases)
	as, _, _ := w.Head(Audit)
	if ls == 0 && as == 0 {
		return nil // a new journal: nothing to take on trust
	}
	rec := systemRecord(w.opts.Now(), EventHeadStarted, "success",
		fmt.Sprintf("no head was kept for this journal before: its files were taken as found (leases seq %d, audit seq %d); from here on a cut, replaced or rewritten file is detected", ls, as),
		map[string]any{"leases_seq": ls, "audit_seq": as})
	if _, err := w.Append(Audit, rec); err != nil {
		var be *BreakError
		if !errors.As(err, &be) {
			return fmt.Errorf("journal: recording the new head: %w", err)
		}
	}
	w.notices = append(w.notices, "no head was kept for this journal before; its files were taken as found")
	return nil
}

// Notices are things Open found worth saying that are not damage: a file
// or directory replaced by an identical copy, a head started on an
// existing journal.
func (w *Writer) Notices() []string { return append([]string(nil), w.notices...) }
