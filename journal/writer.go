package journal

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/leasedeck/leasedeck/durable"
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
		if err := durable.SyncDir(filepath.Dir(dir)); err != nil {
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
		if err := durable.SyncDir(dir); err != nil {
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
