package journal

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/leasedeck/leasedeck/schemas"
)

// Options tune Open. The zero value is what leasedeck uses.
type Options struct {
	// LockPath is the lock file that makes the Writer the journal's only
	// writer; default <dir>/writer.lock. A registry that owns the whole
	// workspace passes its own (e.g. <dir>/../registry.lock).
	LockPath string
	// Now stamps recovery audit lines and .torn file names; default
	// time.Now.
	Now func() time.Time
	// Replay, when set, is called during Open for each intact line
	// (readable, schema-valid, mac and chain good), leases.jsonl first and
	// then audit.jsonl, each in file order, so that a registry can rebuild
	// its state in the same pass that checks the chain. An error from it
	// aborts Open. As with Scan, l.Value may be kept but l and l.Raw not
	// (copy Raw to keep it). Lines Open writes itself (recovery records)
	// are not replayed.
	Replay func(k Kind, l *Line) error
}

// Appended says where an appended line went.
type Appended struct {
	Seq    uint64
	Hash   string // SHA-256 hex of the line: the next line's prev
	Offset int64  // byte offset of the line in its file
}

// Recovery is a torn last line that Open moved aside.
type Recovery struct {
	File    string // base name of the journal file
	Offset  int64  // where the torn bytes began (the file's new size)
	Bytes   int64  // how many bytes were moved
	MovedTo string // path of the .torn file holding them
	// Recorded is true once the leasedeck.journal.recovered audit line is
	// durable; false when audit.jsonl itself is broken and refuses it.
	Recorded bool
}

// InvalidRecordError is a record refused before anything was written.
type InvalidRecordError struct {
	Kind   Kind
	Errors []schemas.Error // JSON-pointer violations of the file's schema
}

func (e *InvalidRecordError) Error() string {
	return fmt.Sprintf("journal: record refused for %s: not a valid %s: %s", e.Kind.FileName(), e.Kind.Shape(), schemaSummary(e.Errors))
}

// WriteError is a failed write or fsync. Every caller of the batch gets it,
// and the Writer takes no more appends until reopened.
type WriteError struct {
	File        string // base name
	Op          string // "write" or "fsync"
	Err         error
	Size        int64 // the size the file was cut back to
	RollbackErr error // non-nil when cutting back failed too
}

func (e *WriteError) Error() string {
	msg := fmt.Sprintf("journal: %s of %s failed: %v", e.Op, e.File, e.Err)
	if e.RollbackErr != nil {
		return msg + fmt.Sprintf("; cutting it back to %d bytes failed too (%v): it may end with a partial line, which the next Open moves aside", e.Size, e.RollbackErr)
	}
	return msg + fmt.Sprintf("; the batch was cut back to %d bytes, so nothing of it remains", e.Size)
}

func (e *WriteError) Unwrap() error { return e.Err }

var (
	// ErrClosed is returned by Append after Close.
	ErrClosed = errors.New("journal: writer is closed")
	// ErrStopped is wrapped by every append refused because an earlier
	// write or fsync failed: after an I/O error nobody can say what is on
	// disk, so the Writer stops until it is reopened and the files checked.
	ErrStopped = errors.New("journal: writer stopped after a failed write; reopen it")
)

// maxBatchLines bounds one group commit, so a flood of appenders cannot
// grow a single write without limit.
const maxBatchLines = 8192

// Writer is the one writer of a journal directory. Its methods are safe
// for concurrent use; concurrent Appends share writes and fsyncs.
type Writer struct {
	dir     string
	key     []byte
	opts    Options
	lock    *writerLock
	files   [2]*fileState
	mac     hash.Hash // used by the commit goroutine only
	reqs    chan *request
	done    chan struct{} // closed when the commit goroutine has exited
	openMu  sync.RWMutex  // held shared while sending to reqs; exclusive to close it
	closed  bool
	stateMu sync.Mutex // guards the fileState fields that change and stopped
	stopped error
	recov   []Recovery
}

type fileState struct {
	kind   Kind
	path   string
	f      *os.File
	size   int64
	seq    uint64
	head   [32]byte
	breaks []Break // found by Open; a file with any takes no appends
}

type request struct {
	kind Kind
	body []byte
	res  Appended
	err  error
	done chan struct{}
}

// Open opens (creating if needed) the journal in dir as its only writer.
//
// It takes the lock (a *LockedError names the holder's pid), reads both
// files and checks every line, recovers the chain heads, and moves a torn
// last line aside (see Recovery), recording that as an audit line written
// after the cut. Damage anywhere else is never cut: Open still succeeds,
// Breaks lists it, and Append refuses that file with a *BreakError, so the
// caller can show the damage and stop issuing.
func Open(dir string, key []byte, opts Options) (*Writer, error) {
	if len(key) == 0 {
		return nil, errors.New("journal: no key")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	_, statErr := os.Stat(dir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	if errors.Is(statErr, fs.ErrNotExist) {
		// The new directory's own entry must be durable too.
		if err := syncDir(filepath.Dir(dir)); err != nil {
			return nil, err
		}
	}
	lockPath := opts.LockPath
	if lockPath == "" {
		lockPath = filepath.Join(dir, "writer.lock")
	}
	lk, err := acquireLock(lockPath)
	if err != nil {
		return nil, err
	}
	w := &Writer{
		dir:  dir,
		key:  append([]byte(nil), key...),
		opts: opts,
		lock: lk,
		mac:  hmac.New(sha256.New, key),
		reqs: make(chan *request, 1024),
		done: make(chan struct{}),
	}
	ok := false
	defer func() {
		if !ok {
			w.closeFiles()
			lk.release()
		}
	}()

	created := false
	for _, k := range Kinds {
		path := filepath.Join(dir, k.FileName())
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			created = true
		} else if errors.Is(err, fs.ErrExist) {
			f, err = os.OpenFile(path, os.O_RDWR, 0)
		}
		if err != nil {
			return nil, fmt.Errorf("journal: opening %s: %w", path, err)
		}
		w.files[k] = &fileState{kind: k, path: path, f: f}
	}
	if created {
		// A file whose directory entry is not durable can vanish with
		// every line acknowledged in it.
		if err := syncDir(dir); err != nil {
			return nil, err
		}
	}

	torn := [2]int64{-1, -1}
	for _, k := range Kinds {
		if torn[k], err = w.load(w.files[k]); err != nil {
			return nil, err
		}
	}
	for _, k := range Kinds {
		if torn[k] >= 0 {
			if err := w.cutTail(w.files[k], torn[k]); err != nil {
				return nil, err
			}
		}
	}

	go w.commitLoop()
	ok = true
	// Recorded only now: the record must describe a cut already made.
	for i := range w.recov {
		rec := w.recoveryRecord(w.recov[i])
		if _, err := w.Append(Audit, rec); err != nil {
			var be *BreakError
			if errors.As(err, &be) {
				continue // audit.jsonl is broken; Recoveries still tells
			}
			w.Close()
			return nil, fmt.Errorf("journal: recording the recovery of %s: %w", w.recov[i].File, err)
		}
		w.recov[i].Recorded = true
	}
	return w, nil
}

// load reads and checks one file, setting its chain head. It returns the
// offset where a torn tail begins, or -1.
func (w *Writer) load(fsx *fileState) (int64, error) {
	st, err := fsx.f.Stat()
	if err != nil {
		return -1, err
	}
	size := st.Size()
	c := newChainChecker(fsx.kind.FileName())
	var replayErr error
	feed := func(a *analysed) {
		if c.add(a) && w.opts.Replay != nil && replayErr == nil {
			replayErr = w.opts.Replay(fsx.kind, &a.Line)
		}
	}
	// Hold the last line back: a last line that is not JSON is torn, not
	// damage, and must not be checked as a line.
	var held *analysed
	next, err := scan(io.NewSectionReader(fsx.f, 0, size), 0, 0,
		analyseOpts{kind: fsx.kind, key: w.key, validate: true, hash: true}, true,
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
	if tornAt >= 0 {
		fsx.size = tornAt
	}
	return tornAt, nil
}

// cutTail moves the bytes from off to the end of the file into a .torn
// file, then cuts the journal there. The copy is durable before the cut, so
// a crash in between loses nothing.
func (w *Writer) cutTail(fsx *fileState, off int64) error {
	st, err := fsx.f.Stat()
	if err != nil {
		return err
	}
	n := st.Size() - off
	stamp := w.opts.Now().UTC().Format("20060102T150405.000000000Z")
	var tf *os.File
	var tornPath string
	for i := 1; ; i++ {
		tornPath = fmt.Sprintf("%s.torn-%s", fsx.path, stamp)
		if i > 1 {
			tornPath += fmt.Sprintf("-%d", i)
		}
		tf, err = os.OpenFile(tornPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil || !errors.Is(err, fs.ErrExist) || i > 100 {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("journal: moving the torn tail of %s aside: %w", fsx.path, err)
	}
	_, err = io.Copy(tf, io.NewSectionReader(fsx.f, off, n))
	if err == nil {
		err = tf.Sync()
	}
	if cerr := tf.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = syncDir(w.dir)
	}
	if err != nil {
		return fmt.Errorf("journal: moving the torn tail of %s to %s: %w", fsx.path, tornPath, err)
	}
	if err := fsx.f.Truncate(off); err != nil {
		return fmt.Errorf("journal: cutting the torn tail of %s: %w", fsx.path, err)
	}
	if err := fsx.f.Sync(); err != nil {
		return fmt.Errorf("journal: cutting the torn tail of %s: %w", fsx.path, err)
	}
	if err := syncDir(w.dir); err != nil {
		return err
	}
	fsx.size = off
	w.recov = append(w.recov, Recovery{File: fsx.kind.FileName(), Offset: off, Bytes: n, MovedTo: tornPath})
	return nil
}

func (w *Writer) recoveryRecord(r Recovery) map[string]any {
	return map[string]any{
		"schema_version": "1.2",
		"timestamp":      w.opts.Now().UTC().Format("2006-01-02T15:04:05.000Z"),
		"event_type":     "leasedeck.journal.recovered",
		"actor":          map[string]any{"kind": "system"},
		"outcome":        "success",
		"summary": fmt.Sprintf("torn last line of %s (%d bytes at offset %d) moved to %s",
			r.File, r.Bytes, r.Offset, filepath.Base(r.MovedTo)),
		// "file" would be the natural key, but the audit schema refuses
		// member names with that word (it filters content-like keys).
		"details": map[string]any{
			"journal":  r.File,
			"bytes":    r.Bytes,
			"offset":   r.Offset,
			"moved_to": filepath.Base(r.MovedTo),
		},
	}
}

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

// Close waits for every append already accepted to be answered, closes the
// files and releases the lock. It is safe to call more than once.
func (w *Writer) Close() error {
	w.openMu.Lock()
	if w.closed {
		w.openMu.Unlock()
		return nil
	}
	w.closed = true
	close(w.reqs)
	w.openMu.Unlock()
	<-w.done
	err := w.closeFiles()
	if lerr := w.lock.release(); err == nil {
		err = lerr
	}
	return err
}

func (w *Writer) closeFiles() error {
	var first error
	for _, fsx := range w.files {
		if fsx != nil && fsx.f != nil {
			if err := fsx.f.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

// Dir is the journal directory.
func (w *Writer) Dir() string { return w.dir }

// Head is a file's chain head: the seq and hash of its last line (0 and
// ZeroHash for an empty file), and its size, where the next line will go.
func (w *Writer) Head(k Kind) (seq uint64, hash string, size int64) {
	w.stateMu.Lock()
	defer w.stateMu.Unlock()
	fsx := w.files[k]
	return fsx.seq, hex.EncodeToString(fsx.head[:]), fsx.size
}

// Breaks lists the damage Open found, both files, in file and line order.
// Appends to a file with any break are refused.
func (w *Writer) Breaks() []Break {
	var out []Break
	for _, k := range Kinds {
		out = append(out, w.files[k].breaks...)
	}
	return out
}

// Broken is a *BreakError for the first break Open found, or nil.
func (w *Writer) Broken() error {
	b := w.Breaks()
	if len(b) == 0 {
		return nil
	}
	return &BreakError{Break: b[0], More: len(b) - 1}
}

// Recoveries lists the torn tails Open moved aside.
func (w *Writer) Recoveries() []Recovery {
	return append([]Recovery(nil), w.recov...)
}

// Err is the write error that stopped the writer, or nil.
func (w *Writer) Err() error {
	w.stateMu.Lock()
	defer w.stateMu.Unlock()
	return w.stopped
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("journal: syncing %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("journal: syncing %s: %w", dir, err)
	}
	return nil
}
