package journal

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/leasedeck/leasedeck/termtext"
)

// faultState is why the writer is not writing.
type faultState struct {
	err       error
	since     time.Time
	attempts  int
	next      time.Time // when the next retry runs (zero when none will)
	permanent bool      // the files are not the writer's any more: no retry
	unacked   []UnackedRange
}

// FileChangedError is a journal file (or its directory, or the kept head)
// that is no longer what the writer holds open: removed, replaced by
// another file, cut, grown or rewritten by someone else. Writing on would
// put acknowledged lines where nobody reads them, so the writer stops for
// good; restart the registry after a person has looked.
type FileChangedError struct {
	File string // base name, or the head's path
	What string
}

func (e *FileChangedError) Error() string {
	return fmt.Sprintf("journal: %s: %s while the registry held it open; writing stopped (fail closed) — run leasedeck journal verify, then restart the registry", e.File, e.What)
}

// Status says whether the writer is writing.
type Status struct {
	State    string // "ok", "retrying" (a write failed; retries run) or "stopped"
	Err      error  // the error, when not ok
	Since    time.Time
	Attempts int       // retries so far
	Next     time.Time // when the next retry runs
	Unacked  []UnackedRange
}

// Status reports the writer's state for health answers and the cockpit.
func (w *Writer) Status() Status {
	w.checkPaths()
	w.stateMu.Lock()
	defer w.stateMu.Unlock()
	f := w.fault
	if f == nil {
		return Status{State: "ok"}
	}
	st := Status{State: "retrying", Err: f.err, Since: f.since, Attempts: f.attempts, Next: f.next, Unacked: f.unacked}
	if f.permanent {
		st.State = "stopped"
	}
	return st
}

// Err is nil while the writer writes; otherwise what stopped it, and
// whether it is retrying. It also notices, at once, a journal file or
// directory removed or replaced while nothing was being written.
func (w *Writer) Err() error {
	st := w.Status()
	switch st.State {
	case "ok":
		return nil
	case "stopped":
		return st.Err
	}
	return fmt.Errorf("%w (failing closed; retry %d at %s, writing since %s)",
		st.Err, st.Attempts+1, st.Next.UTC().Format(time.TimeOnly), st.Since.UTC().Format(time.TimeOnly))
}

func (w *Writer) faultErr() error {
	w.stateMu.Lock()
	defer w.stateMu.Unlock()
	if w.fault == nil {
		return nil
	}
	return w.fault.err
}

func (w *Writer) stoppedErr() error {
	if err := w.faultErr(); err != nil {
		return fmt.Errorf("%w: %w", ErrStopped, err)
	}
	return nil
}

// setFault records why writing stopped and, unless it is permanent,
// schedules a retry (commitMu held), which the commit goroutine runs.
func (w *Writer) setFault(err error, permanent bool) {
	now := w.opts.Now()
	w.stateMu.Lock()
	f := w.fault
	if f == nil {
		f = &faultState{since: now}
		w.fault = f
	} else {
		f.attempts++
	}
	f.err = err
	var we *WriteError
	if errors.As(err, &we) && len(we.Unacked) > 0 {
		f.unacked = we.Unacked
	}
	f.permanent = f.permanent || permanent
	f.next = time.Time{}
	var wait time.Duration
	if !f.permanent {
		wait = w.opts.RetryMin << min(f.attempts, 16)
		if wait > w.opts.RetryMax || wait <= 0 {
			wait = w.opts.RetryMax
		}
		f.next = now.Add(wait)
	}
	w.stateMu.Unlock()
	if wait > 0 {
		if w.retry != nil {
			w.retry.Stop()
		}
		w.retry = time.NewTimer(wait)
		w.wake() // the commit goroutine may be waiting without this timer
	}
}

// tryResume is one retry: cut back what a failed batch left, check that
// each file's tail is exactly what was acknowledged, check that the disk
// takes writes again, and record the resumption — the first real write.
func (w *Writer) tryResume() {
	w.stateMu.Lock()
	if w.fault == nil {
		w.stateMu.Unlock()
		return
	}
	f := *w.fault
	w.stateMu.Unlock()
	if f.permanent {
		return
	}
	// Only a file whose cut-back failed is cut here: anything else past
	// its end was not written by this writer and must stay as evidence.
	for _, u := range f.unacked {
		k, _ := KindOf(u.File)
		if err := rollback(w.files[k]); err != nil {
			w.setFault(&WriteError{File: u.File, Op: "cut back", Err: err, Unacked: f.unacked}, false)
			return
		}
	}
	if err := w.checkFiles(true); err != nil {
		w.setFault(err, true)
		return
	}
	for _, k := range Kinds {
		if err := probe(w.files[k]); err != nil {
			w.setFault(&WriteError{File: k.FileName(), Op: "write", Err: err}, false)
			return
		}
	}
	// The resumption is recorded — unless audit.jsonl is broken and takes
	// no lines; the probes above have shown the disk writes again.
	if len(w.files[Audit].breaks) == 0 {
		body, err := w.prepare(Audit, w.resumedRecord(f))
		if err != nil {
			w.setFault(err, true)
			return
		}
		r := &request{kind: Audit, body: body, done: make(chan struct{})}
		if werr := w.writeBatch([]*request{r}); werr != nil {
			w.setFault(werr, false)
			return
		}
	}
	w.stateMu.Lock()
	w.fault = nil
	w.stateMu.Unlock()
}

func (w *Writer) resumedRecord(f faultState) map[string]any {
	var un []string
	for _, u := range f.unacked {
		un = append(un, fmt.Sprintf("%s seq %s", u.File, seqRange(u.FromSeq, u.ToSeq)))
	}
	what := fmt.Sprintf("writing resumed after %d retries: writes failed from %s (%v); both files' tails were checked",
		f.attempts+1, f.since.UTC().Format(time.RFC3339), f.err)
	if len(un) > 0 {
		what += "; the unacknowledged " + strings.Join(un, ", ") + " were cut back"
	}
	d := map[string]any{
		"failed_since": f.since.UTC().Format("2006-01-02T15:04:05.000Z"),
		"attempts":     f.attempts + 1,
		"error":        termtext.Clip(termtext.Clean(f.err.Error()), 190),
	}
	if len(un) > 0 {
		d["unacknowledged"] = termtext.Clip(termtext.Clean(strings.Join(un, ", ")), 190)
	}
	return systemRecord(w.opts.Now(), EventResumed, "success", what, d)
}

// probeSize is how much a retry writes (and cuts back) past the end of a
// file to learn whether the disk takes writes again: about a batch.
const probeSize = 4096

// probe writes spaces past the end of a file, fsyncs, and cuts them back.
// No newline: a reader sees at most a partial line, and a crash leaves a
// torn tail that the next Open moves aside.
func probe(fsx *fileState) error {
	buf := bytes.Repeat([]byte{' '}, probeSize)
	_, err := fsx.f.WriteAt(buf, fsx.size)
	if err == nil {
		err = syncFile(fsx.f)
	}
	if rerr := rollback(fsx); err == nil {
		err = rerr
	}
	return err
}

// checkPaths notices, from any goroutine, that a journal file's path or
// the journal directory no longer names what the writer holds open. It
// only records the fault: the commit goroutine acts on it.
func (w *Writer) checkPaths() {
	if w.fi() == nil {
		return
	}
	var changed error
	for _, k := range Kinds {
		if err := w.pathChanged(w.files[k]); err != nil {
			changed = err
			break
		}
	}
	if changed == nil && w.headFile != nil {
		if what := w.headFile.moved(); what != "" {
			changed = &FileChangedError{File: w.headFile.path, What: what}
		}
	}
	if changed == nil {
		return
	}
	w.stateMu.Lock()
	defer w.stateMu.Unlock()
	if w.fault == nil || !w.fault.permanent {
		since := w.opts.Now()
		if w.fault != nil {
			since = w.fault.since
		}
		w.fault = &faultState{err: changed, since: since, permanent: true}
	}
}

// fi is the directory's identity, nil before Open has noted it.
func (w *Writer) fi() fs.FileInfo { return w.dirFI }

func (w *Writer) pathChanged(fsx *fileState) error {
	st, err := os.Stat(fsx.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		what := "the file was removed"
		if _, derr := os.Stat(w.dir); errors.Is(derr, fs.ErrNotExist) {
			what = "the journal directory " + w.dir + " was removed"
		}
		return &FileChangedError{File: fsx.kind.FileName(), What: what}
	case err != nil:
		return nil // transient (a permission flap): the next check sees it
	case !os.SameFile(st, fsx.fi):
		what := "the file was replaced by another (a new inode has its name)"
		if dst, derr := os.Stat(w.dir); derr == nil && !os.SameFile(dst, w.dirFI) {
			what = "the journal directory " + w.dir + " was replaced by another"
		}
		return &FileChangedError{File: fsx.kind.FileName(), What: what}
	}
	return nil
}

// checkFiles is the check before each batch (commitMu held): the
// paths still name the open files, and each file ends exactly where the
// writer left it, with the line it last wrote (deep).
func (w *Writer) checkFiles(deep bool) error {
	for _, k := range Kinds {
		fsx := w.files[k]
		if err := w.pathChanged(fsx); err != nil {
			return err
		}
		if !deep {
			continue
		}
		if err := tailChanged(fsx); err != nil {
			return err
		}
	}
	if w.headFile != nil {
		if what := w.headFile.moved(); what != "" {
			return &FileChangedError{File: w.headFile.path, What: what}
		}
	}
	return nil
}

func tailChanged(fsx *fileState) error {
	st, err := fsx.f.Stat()
	if err != nil {
		return nil // the write that follows will say what is wrong
	}
	name := fsx.kind.FileName()
	switch {
	case st.Size() < fsx.size:
		return &FileChangedError{File: name, What: fmt.Sprintf("the file was cut from %d to %d bytes", fsx.size, st.Size())}
	case st.Size() > fsx.size:
		return &FileChangedError{File: name, What: fmt.Sprintf("%d bytes the registry did not write were added at its end", st.Size()-fsx.size)}
	case fsx.seq == 0:
		return nil
	}
	n := fsx.size - fsx.lastOff
	if n <= 1 || n > maxLineSize {
		return nil
	}
	buf := make([]byte, n)
	if _, err := fsx.f.ReadAt(buf, fsx.lastOff); err != nil {
		return nil
	}
	if buf[n-1] != '\n' || sha256.Sum256(buf[:n-1]) != fsx.head {
		return &FileChangedError{File: name, What: fmt.Sprintf("its last line (seq %d) was rewritten in place", fsx.seq)}
	}
	return nil
}
