package journal

import (
	"encoding/hex"
	"fmt"
	"io"
	"os"
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
	req := &request{kind: k, body: body, done: make(chan struct{})}
	w.openMu.RLock()
	if w.closed {
		w.openMu.RUnlock()
		return Appended{}, ErrClosed
	}
	w.reqs <- req
	w.openMu.RUnlock()
	<-req.done
	return req.res, req.err
}

func (w *Writer) stoppedErr() error {
	w.stateMu.Lock()
	defer w.stateMu.Unlock()
	if w.stopped != nil {
		return fmt.Errorf("%w: %w", ErrStopped, w.stopped)
	}
	return nil
}

// commitLoop is the group commit: it takes every request waiting, writes
// them with one write and one fsync per file, and answers them all. While
// it waits for the disk, new requests queue up for the next batch, so the
// busier the writer, the more lines each fsync carries.
func (w *Writer) commitLoop() {
	defer close(w.done)
	batch := make([]*request, 0, 64)
	var bufs [2][]byte
	for {
		r, ok := <-w.reqs
		if !ok {
			return
		}
		batch = append(batch[:0], r)
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
		w.commit(batch, &bufs)
		for i := range batch {
			batch[i] = nil
		}
	}
}

func (w *Writer) commit(batch []*request, bufs *[2][]byte) {
	if err := w.stoppedErr(); err != nil {
		answer(batch, err)
		return
	}
	type tentative struct {
		seq  uint64
		head [32]byte
	}
	var t [2]tentative
	for _, k := range Kinds {
		bufs[k] = bufs[k][:0]
		t[k] = tentative{w.files[k].seq, w.files[k].head}
	}
	for _, r := range batch {
		fsx := w.files[r.kind]
		tk := &t[r.kind]
		off := fsx.size + int64(len(bufs[r.kind]))
		tk.seq++
		var h [32]byte
		bufs[r.kind], h = appendLine(bufs[r.kind], r.body, tk.seq, &tk.head, w.mac)
		tk.head = h
		r.res = Appended{Seq: tk.seq, Hash: hex.EncodeToString(h[:]), Offset: off}
	}

	var failed *WriteError
	var touched [2]bool
	for _, k := range Kinds {
		if len(bufs[k]) == 0 {
			continue
		}
		fsx := w.files[k]
		touched[k] = true
		n, err := fsx.f.WriteAt(bufs[k], fsx.size)
		if err == nil && n != len(bufs[k]) {
			err = io.ErrShortWrite
		}
		if err != nil {
			failed = &WriteError{File: k.FileName(), Op: "write", Err: err}
			break
		}
	}
	if failed == nil {
		for _, k := range Kinds {
			if touched[k] {
				if err := syncData(w.files[k].f); err != nil {
					failed = &WriteError{File: k.FileName(), Op: "fsync", Err: err}
					break
				}
			}
		}
	}
	if failed != nil {
		// Cut every file of the batch back: no caller was told yes, so no
		// line of it may remain, whole or partial.
		for _, k := range Kinds {
			if !touched[k] {
				continue
			}
			fsx := w.files[k]
			err := rollback(fsx)
			if k.FileName() == failed.File {
				failed.Size = fsx.size
			}
			if err != nil && failed.RollbackErr == nil {
				failed.RollbackErr = fmt.Errorf("%s: %w", k.FileName(), err)
			}
		}
		w.stateMu.Lock()
		w.stopped = failed
		w.stateMu.Unlock()
		answer(batch, failed)
		return
	}
	w.stateMu.Lock()
	for _, k := range Kinds {
		fsx := w.files[k]
		fsx.size += int64(len(bufs[k]))
		fsx.seq, fsx.head = t[k].seq, t[k].head
	}
	w.stateMu.Unlock()
	answer(batch, nil)
}

// rollback cuts a file back to its size before the failed batch.
func rollback(fsx *fileState) error {
	if st, err := fsx.f.Stat(); err == nil && st.Size() == fsx.size {
		return nil // nothing of the batch reached the file
	}
	err := fsx.f.Truncate(fsx.size)
	if err != nil {
		// The descriptor may be the problem (a file reopened read-only
		// under us); the path may still work.
		if perr := os.Truncate(fsx.path, fsx.size); perr == nil {
			err = nil
		}
	}
	if err == nil {
		err = syncData(fsx.f)
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
