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
	"strings"
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
	// DecodeAudit, when set, has the audit lines Replay sees decoded
	// directly into l.Audit where they have the usual shape (l.Value nil),
	// as VerifyOptions.DecodeAudit.
	DecodeAudit bool
	// Resume, when set, lets Replay start after a position a snapshot of
	// the fold was taken at, once the lines before it are found to be the
	// same bytes (see resume.go); otherwise Replay sees every line.
	Resume *Resume

	// HeadPath, when set, is where the writer keeps the journal's head
	// (see Head): outside the journal directory, in the per-user state
	// directory, so that whoever can write the journal cannot make the
	// registry forget what it acknowledged. Open compares the files with
	// it, and every batch is acknowledged only once the head names it.
	HeadPath string
	// SigningKeyPath, when set, is the Ed25519 private key (created on
	// first use) that signs a checkpoint every CheckpointEvery lines and
	// at Close, so that a journal can be proven to someone who holds only
	// the public key (see PublicKeyText).
	SigningKeyPath string
	// CheckpointEvery is the number of lines between signed checkpoints;
	// default 1000.
	CheckpointEvery int
	// RetryMin and RetryMax bound the wait between attempts to resume
	// after a failed write or fsync; defaults 100 ms and 5 s.
	RetryMin, RetryMax time.Duration

	// wrap, in tests, stands between the writer and a journal file.
	wrap func(Kind, *os.File) file
}

// Appended says where an appended line went.
type Appended struct {
	Seq    uint64
	Hash   string // SHA-256 hex of the line: the next line's prev
	Offset int64  // byte offset of the line in its file
}

// Recovery is the end of a file that Open moved aside: a torn last line,
// or (with a kept head) lines that were written but never acknowledged.
type Recovery struct {
	File    string // base name of the journal file
	Offset  int64  // where the moved bytes began (the file's new size)
	Bytes   int64  // how many bytes were moved
	MovedTo string // path of the file holding them
	// Unacknowledged: complete lines, FromSeq to ToSeq, past the kept
	// head — written, never answered yes, so they must never count.
	Unacknowledged bool
	FromSeq, ToSeq uint64
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

// WriteError is a failed write or fsync. Every caller of the batch gets
// it, and the Writer takes no more appends until a retry has found the
// file's tail as it left it and written again (see Status).
type WriteError struct {
	File        string // base name
	Op          string // "write", "fsync" or "head write"
	Err         error
	Size        int64 // the size the file was cut back to
	RollbackErr error // non-nil when cutting back failed too
	// Unacked are the lines that cutting back could not remove: written,
	// never acknowledged. Retries keep cutting; past a crash, the next
	// Open moves them aside and records them (with a kept head).
	Unacked []UnackedRange
}

// UnackedRange is a run of lines written but never acknowledged.
type UnackedRange struct {
	File           string
	FromSeq, ToSeq uint64
}

func (e *WriteError) Error() string {
	msg := fmt.Sprintf("journal: %s of %s failed: %v", e.Op, e.File, e.Err)
	if e.RollbackErr != nil {
		var un []string
		for _, u := range e.Unacked {
			un = append(un, fmt.Sprintf("%s seq %s", u.File, seqRange(u.FromSeq, u.ToSeq)))
		}
		return msg + fmt.Sprintf("; cutting it back failed too (%v): %s may remain, never acknowledged, and will never count", e.RollbackErr, strings.Join(un, ", "))
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
	ErrStopped = errors.New("journal: writer stopped")
)

// maxBatchLines bounds one group commit, so a flood of appenders cannot
// grow a single write without limit.
const maxBatchLines = 8192

// Writer is the one writer of a journal directory. Its methods are safe
// for concurrent use; concurrent Appends share writes and fsyncs.
type Writer struct {
	dir    string
	key    []byte
	opts   Options
	lock   *writerLock
	files  [2]*fileState
	mac    hash.Hash // used by commitMu's holder only
	reqs   chan *request
	kick   chan struct{} // wakes the commit goroutine (see wake)
	done   chan struct{} // closed when the commit goroutine has exited
	openMu sync.RWMutex  // held shared while submitting; exclusive to close
	// commitMu is held by whoever writes: the commit goroutine, or a
	// caller writing its own lines when nothing else is (see submit).
	commitMu sync.Mutex
	closed   bool
	stateMu  sync.Mutex // guards the fileState fields that change and fault
	fault    *faultState
	recov    []Recovery
	notices  []string

	dirFI    fs.FileInfo // the journal directory as opened
	headFile *headFile   // nil without Options.HeadPath
	kept     *Head       // the head as read at Open (nil: none kept)
	signer   *signer     // nil without Options.SigningKeyPath
	sinceCP  int         // lines since the last checkpoint (commitMu)
	lastCP   uint64      // audit seq of the last checkpoint
	retry    *time.Timer // armed while a fault waits to be retried (commitMu)
	bufs     [2][]byte   // reused by commitMu's holder
}

type fileState struct {
	kind    Kind
	path    string
	f       file
	fi      fs.FileInfo // the file as opened: the path must keep naming it
	size    int64
	seq     uint64
	head    [32]byte
	lastOff int64   // offset of the last line
	breaks  []Break // found by Open; a file with any takes no appends
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
// after the cut. With a kept head (Options.HeadPath) it also checks that
// each file still reaches the head (a file cut, replaced or rewritten is a
// break), moves lines written past the head — never acknowledged — aside
// and records their seqs, and reports damage to an acknowledged last line
// as damage rather than a torn write. Damage is never cut: Open still
// succeeds, Breaks lists it, and Append refuses that file with a
// *BreakError, so the caller can show the damage and stop issuing.
func Open(dir string, key []byte, opts Options) (*Writer, error) {
	if len(key) == 0 {
		return nil, errors.New("journal: no key")
	}
	opts = withDefaults(opts)
	if err := makeDir(dir); err != nil {
		return nil, err
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
		kick: make(chan struct{}, 1),
		done: make(chan struct{}),
	}
	ok := false
	defer func() {
		if !ok {
			w.closeFiles()
			lk.release()
		}
	}()
	if err := w.openFiles(); err != nil {
		return nil, err
	}
	if err := w.openAnchors(); err != nil {
		return nil, err
	}
	if err := w.loadAll(); err != nil {
		return nil, err
	}
	go w.commitLoop()
	ok = true
	if err := w.recordOpen(); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

func withDefaults(opts Options) Options {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.CheckpointEvery <= 0 {
		opts.CheckpointEvery = 1000
	}
	if opts.RetryMin <= 0 {
		opts.RetryMin = 100 * time.Millisecond
	}
	if opts.RetryMax < opts.RetryMin {
		opts.RetryMax = max(5*time.Second, opts.RetryMin)
	}
	return opts
}

// makeDir creates the journal directory, durably when it is new.
func makeDir(dir string) error {
	_, statErr := os.Stat(dir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if errors.Is(statErr, fs.ErrNotExist) {
		// The new directory's own entry must be durable too.
		return durable.SyncDir(filepath.Dir(dir))
	}
	return nil
}

// openFiles opens (creating) both files and notes their identities.
func (w *Writer) openFiles() error {
	created := false
	for _, k := range Kinds {
		path := filepath.Join(w.dir, k.FileName())
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			created = true
		} else if errors.Is(err, fs.ErrExist) {
			f, err = os.OpenFile(path, os.O_RDWR, 0)
		}
		if err != nil {
			return fmt.Errorf("journal: opening %s: %w", path, err)
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			return fmt.Errorf("journal: opening %s: %w", path, err)
		}
		var jf file = f
		if w.opts.wrap != nil {
			jf = w.opts.wrap(k, f)
		}
		w.files[k] = &fileState{kind: k, path: path, f: jf, fi: fi}
	}
	if created {
		// A file whose directory entry is not durable can vanish with
		// every line acknowledged in it.
		if err := durable.SyncDir(w.dir); err != nil {
			return err
		}
	}
	fi, err := os.Stat(w.dir)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	w.dirFI = fi
	return nil
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
	first := w.headFile.close()
	for _, fsx := range w.files {
		if fsx != nil && fsx.f != nil {
			if err := fsx.f.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

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
