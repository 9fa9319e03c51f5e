package journal

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// Append writes one record as the next line of a file and returns once the
// line is durable (written and fsync'd). The record must not carry seq,
// prev or mac; it is written in canonical member order, and must be valid
// against the file's schema with those three members added — an invalid
// record is refused with an *InvalidRecordError and nothing is written.
//
// A file with a break refuses with a *BreakError. A failed write or fsync
// returns a *WriteError to every caller of the batch, and every later
// Append an error wrapping ErrStopped.
func (w *Writer) Append(k Kind, record map[string]any) (Appended, error) {
	if !k.valid() {
		return Appended{}, fmt.Errorf("journal: unknown file kind %d", int(k))
	}
	body, err := w.prepare(k, record)
	if err != nil {
		return Appended{}, err
	}
	if b := w.files[k].breaks; len(b) > 0 {
		return Appended{}, &BreakError{Break: b[0], More: len(b) - 1}
	}
	if err := w.stoppedErr(); err != nil {
		return Appended{}, err
	}
	reqs := []*request{{kind: k, body: body, done: make(chan struct{})}}
	if err := w.submit(reqs); err != nil {
		return Appended{}, err
	}
	<-reqs[0].done
	return reqs[0].res, reqs[0].err
}

// submit hands requests, in order, to be written. When no batch is being
// written and none is waiting, the caller writes them itself, at once:
// the same checks, write, fsync and head as the commit goroutine's, but
// without two goroutine hand-offs (each a thread woken) on every line.
// Otherwise they queue for the commit goroutine, which takes everything
// waiting as one batch: group commit under contention. Either way only
// the holder of commitMu writes, so lines and the chain stay in order.
func (w *Writer) submit(reqs []*request) error {
	w.openMu.RLock()
	if w.closed {
		w.openMu.RUnlock()
		return ErrClosed
	}
	if len(w.reqs) == 0 && w.commitMu.TryLock() {
		// A checkpoint due is the commit goroutine's to write first: a
		// caller that wrote past it would put it off line after line.
		if len(w.reqs) == 0 && !w.checkpointDue() {
			w.openMu.RUnlock()
			for len(reqs) > 0 {
				n := min(len(reqs), maxBatchLines)
				w.commit(reqs[:n])
				reqs = reqs[n:]
			}
			due := w.checkpointDue()
			w.commitMu.Unlock()
			if due {
				// The commit goroutine writes the checkpoint, after this
				// caller has its answer; lines submitted meanwhile queue
				// behind it.
				w.wake()
			}
			return nil
		}
		w.commitMu.Unlock()
	}
	for _, r := range reqs {
		w.reqs <- r
	}
	w.openMu.RUnlock()
	return nil
}

// wake tells the commit goroutine to look again at what it waits for: a
// retry armed, or a checkpoint due, by a caller that wrote inline.
func (w *Writer) wake() {
	select {
	case w.kick <- struct{}{}:
	default: // a wake-up is already pending
	}
}

// commitLoop is the group commit: it takes every request waiting, writes
// them with one write and one fsync per file, and answers them all. While
// it waits for the disk, new requests queue up for the next batch, so the
// busier the writer, the more lines each fsync carries. After a failed
// write it also runs the retries that let the writer resume by itself,
// and it writes the checkpoints that lines written inline made due.
func (w *Writer) commitLoop() {
	defer close(w.done)
	batch := make([]*request, 0, 64)
	for {
		var retry <-chan time.Time
		w.commitMu.Lock()
		if w.retry != nil {
			retry = w.retry.C
		}
		w.commitMu.Unlock()
		select {
		case <-retry:
			w.commitMu.Lock()
			w.retry = nil
			w.tryResume()
			w.commitMu.Unlock()
			continue
		case <-w.kick:
			w.commitMu.Lock()
			w.checkpointIfDue()
			w.commitMu.Unlock()
			continue
		case r, ok := <-w.reqs:
			if !ok {
				w.commitMu.Lock()
				w.finish()
				w.commitMu.Unlock()
				return
			}
			batch = append(batch[:0], r)
		}
	more:
		for len(batch) < maxBatchLines {
			select {
			case r, ok := <-w.reqs:
				if !ok {
					break more
				}
				batch = append(batch, r)
			default:
				break more
			}
		}
		w.commitMu.Lock()
		w.checkpointIfDue() // made due by lines written inline: it goes first
		w.commit(batch)
		w.checkpointIfDue()
		w.commitMu.Unlock()
		for i := range batch {
			batch[i] = nil
		}
	}
}

// checkpointDue reports whether enough lines were written since the last
// signed checkpoint for the next (commitMu held).
func (w *Writer) checkpointDue() bool {
	return w.signer != nil && w.sinceCP >= w.opts.CheckpointEvery
}

// checkpointIfDue writes the checkpoint due, unless writing has stopped
// meanwhile (commitMu held).
func (w *Writer) checkpointIfDue() {
	if w.checkpointDue() && w.faultErr() == nil {
		w.checkpoint()
	}
}

// finish runs when the writer closes: the last checkpoint signs
// everything written since the one before.
func (w *Writer) finish() {
	if w.retry != nil {
		w.retry.Stop()
		w.retry = nil
	}
	if w.signer != nil && w.sinceCP > 0 && w.faultErr() == nil {
		w.checkpoint()
	}
}

// commit writes one batch and answers it (commitMu held).
func (w *Writer) commit(batch []*request) {
	if err := w.stoppedErr(); err != nil {
		answer(batch, err)
		return
	}
	// The files must still be the ones the writer holds, as it left them:
	// a line written into a removed or replaced file is a line nobody
	// will ever read.
	if err := w.checkFiles(true); err != nil {
		w.setFault(err, true)
		answer(batch, fmt.Errorf("%w: %w", ErrStopped, err))
		return
	}
	if werr := w.writeBatch(batch); werr != nil {
		w.setFault(werr, false)
		answer(batch, werr)
		return
	}
	answer(batch, nil)
	w.sinceCP += len(batch)
}

// checkpoint writes a signed checkpoint of the current heads. A broken
// audit file takes no lines, checkpoints included.
func (w *Writer) checkpoint() {
	if len(w.files[Audit].breaks) > 0 {
		return
	}
	body, err := w.prepare(Audit, w.checkpointRecord())
	if err != nil {
		w.setFault(err, true) // our own record is invalid: a bug, stop
		return
	}
	cp := &request{kind: Audit, body: body, done: make(chan struct{})}
	if werr := w.writeBatch([]*request{cp}); werr != nil {
		w.setFault(werr, false)
		return
	}
	w.sinceCP = 0
}

// writeBatch writes the lines of a batch, fsyncs them, makes the kept head
// name them, and only then updates the writer's state. On any failure it
// cuts every file back to where it was, so no line of the batch remains,
// and returns the *WriteError every caller gets.
func (w *Writer) writeBatch(batch []*request) *WriteError {
	var next [2]FileHead
	var lastOff [2]int64
	var heads [2][32]byte
	for _, k := range Kinds {
		fsx := w.files[k]
		w.bufs[k] = w.bufs[k][:0]
		next[k] = FileHead{Seq: fsx.seq, Size: fsx.size}
		heads[k], lastOff[k] = fsx.head, fsx.lastOff
	}
	cpSeq := w.lastCP
	for _, r := range batch {
		fsx := w.files[r.kind]
		nk := &next[r.kind]
		off := fsx.size + int64(len(w.bufs[r.kind]))
		nk.Seq++
		var h [32]byte
		w.bufs[r.kind], h = appendLine(w.bufs[r.kind], r.body, nk.Seq, &heads[r.kind], w.mac)
		heads[r.kind], lastOff[r.kind] = h, off
		r.res = Appended{Seq: nk.Seq, Hash: hex.EncodeToString(h[:]), Offset: off}
		if r.kind == Audit && isCheckpointBody(r.body) {
			cpSeq = nk.Seq
		}
	}
	for _, k := range Kinds {
		next[k].Size += int64(len(w.bufs[k]))
		next[k].Hash = hex.EncodeToString(heads[k][:])
	}
	werr := w.writeAndSync()
	if werr == nil && w.headFile != nil {
		h := w.currentHead(&next)
		h.CheckpointSeq = cpSeq
		if err := w.headFile.write(h); err != nil {
			werr = &WriteError{File: filepathBase(w.headFile.path), Op: "head write", Err: err}
		}
	}
	if werr != nil {
		w.rollbackAll(werr, next)
		return werr
	}
	w.stateMu.Lock()
	for _, k := range Kinds {
		fsx := w.files[k]
		fsx.size, fsx.seq, fsx.head, fsx.lastOff = next[k].Size, next[k].Seq, heads[k], lastOff[k]
	}
	w.lastCP = cpSeq
	w.stateMu.Unlock()
	return nil
}

// writeAndSync writes each file's buffer at its end and fsyncs it.
func (w *Writer) writeAndSync() *WriteError {
	for _, k := range Kinds {
		if len(w.bufs[k]) == 0 {
			continue
		}
		fsx := w.files[k]
		n, err := fsx.f.WriteAt(w.bufs[k], fsx.size)
		if err == nil && n != len(w.bufs[k]) {
			err = io.ErrShortWrite
		}
		if err != nil {
			return &WriteError{File: k.FileName(), Op: "write", Err: err}
		}
	}
	for _, k := range Kinds {
		if len(w.bufs[k]) == 0 {
			continue
		}
		if err := syncFile(w.files[k].f); err != nil {
			return &WriteError{File: k.FileName(), Op: "fsync", Err: err}
		}
	}
	return nil
}

// rollbackAll cuts every file the batch touched back: no caller was told
// yes, so no line of it may remain, whole or partial. What cannot be cut
// back now is remembered, for the retries and, past a crash, for the next
// Open (the kept head does not name those lines).
func (w *Writer) rollbackAll(werr *WriteError, next [2]FileHead) {
	for _, k := range Kinds {
		if len(w.bufs[k]) == 0 {
			continue
		}
		fsx := w.files[k]
		err := rollback(fsx)
		if k.FileName() == werr.File {
			werr.Size = fsx.size
		}
		if err != nil {
			if werr.RollbackErr == nil {
				werr.RollbackErr = fmt.Errorf("%s: %w", k.FileName(), err)
			}
			werr.Unacked = append(werr.Unacked, UnackedRange{File: k.FileName(), FromSeq: fsx.seq + 1, ToSeq: next[k].Seq})
		}
	}
}

func isCheckpointBody(body []byte) bool {
	return bytes.Contains(body, []byte(`"event_type":"`+EventCheckpoint+`"`))
}

func filepathBase(p string) string { return filepath.Base(p) }

// rollback cuts a file back to its size before the failed batch.
func rollback(fsx *fileState) error {
	if st, err := fsx.f.Stat(); err == nil && st.Size() == fsx.size {
		return nil // nothing of the batch reached the file
	}
	err := fsx.f.Truncate(fsx.size)
	if _, real := fsx.f.(*os.File); err != nil && real {
		// The descriptor may be the problem (a file reopened read-only
		// under us); the path may still work.
		if perr := os.Truncate(fsx.path, fsx.size); perr == nil {
			err = nil
		}
	}
	if err == nil {
		err = syncFile(fsx.f)
	}
	return err
}

func answer(batch []*request, err error) {
	for _, r := range batch {
		if err != nil {
			r.err = err
			r.res = Appended{}
		}
		close(r.done)
	}
}
