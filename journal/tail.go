package journal

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Batch is what Tail delivers: new complete lines of one file.
type Batch struct {
	Kind Kind
	Path string
	// Reset is set when the lines do not continue the previous batch of
	// this file: "truncated" (the file shrank below where reading had got
	// to, or was rewritten) or "replaced" (a new file — a new inode — now
	// has the name, as after rotation). Lines then start from offset 0;
	// a consumer folding state from them should start that file over.
	Reset string
	Lines []Line
	// Problems are complete lines that could not be used (not JSON, not
	// schema-valid), in the same range as Lines.
	Problems []*LineError
	// Breaks are what the file's Checker found in Lines: a seq out of
	// step, a prev that does not match, a bad mac (with a key).
	Breaks []Break
	From   int64 // offset reading started at
	Next   int64 // offset after the last complete line: resume here
}

// Tail timing. Bursts of appends arrive as bursts of events; waiting a
// moment after the first turns them into one read. The poll catches what
// events can miss (an overflowed event queue, a file system that does not
// report changes); it is a stat per file, so idle costs next to nothing.
var (
	tailSettle = 15 * time.Millisecond
	tailPoll   = 2 * time.Second
)

// maxBatchSize bounds the lines of one Batch, so catching up on a large
// file delivers it in pieces rather than in one huge allocation.
const maxBatchSize = 4096

// TailOptions says where Tail starts and how it checks.
type TailOptions struct {
	// From gives where to start in each file (missing: 0).
	From map[Kind]int64
	// Key, when set, is the deployment key lines' macs are checked with.
	Key []byte
	// Checkers continue a reader's own checks (from its catch-up read) so
	// the chain is followed across the hand-over. A nil one is made by
	// Tail: from the first line, or mid-file when From is past 0.
	Checkers [2]*Checker
}

// Tail follows both files of a journal directory until ctx is done,
// delivering new complete lines on out, per file, in file order, each line
// exactly once, checked by the file's Checker (Batch.Breaks). It
// watches the directory with fsnotify, so it also sees a file created,
// rotated (renamed away and replaced) or truncated; lines appended to a
// rotated file before the replacement was noticed are still delivered,
// from the old file, before the new one. A partial last line waits until
// it is complete. It returns ctx.Err() when ctx ends, or an error if the
// directory cannot be watched.
func Tail(ctx context.Context, dir string, opts TailOptions, out chan<- Batch) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("journal: watching %s: %w", dir, err)
	}
	defer w.Close()
	if err := w.Add(dir); err != nil {
		return fmt.Errorf("journal: watching %s: %w", dir, err)
	}
	t := &tailer{ctx: ctx, out: out, key: opts.Key}
	for _, k := range Kinds {
		tf := &tailFile{kind: k, path: filepath.Join(dir, k.FileName()), offset: opts.From[k], check: opts.Checkers[k]}
		if tf.check == nil {
			tf.check = t.newChecker(k, tf.offset)
		}
		t.files[k] = tf
	}
	defer t.closeAll()

	// Catch up first; events from now on are queued by the watcher.
	for _, f := range t.files {
		if err := t.check(f); err != nil {
			return err
		}
	}
	settle := time.NewTimer(time.Hour)
	settle.Stop()
	armed := false
	poll := time.NewTicker(tailPoll)
	defer poll.Stop()
	var dirty [2]bool
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev, ok := <-w.Events:
			if !ok {
				return errors.New("journal: directory watch ended")
			}
			if k, ok := kindOfName(filepath.Base(ev.Name)); ok {
				dirty[k] = true
				if !armed {
					settle.Reset(tailSettle)
					armed = true
				}
			}
		case err, ok := <-w.Errors:
			if !ok {
				return errors.New("journal: directory watch ended")
			}
			// Lost events (queue overflow) or a passing error: read
			// everything now rather than trust what was missed.
			_ = err
			dirty = [2]bool{true, true}
			if !armed {
				settle.Reset(tailSettle)
				armed = true
			}
		case <-settle.C:
			armed = false
			for _, k := range Kinds {
				if dirty[k] {
					dirty[k] = false
					if err := t.check(t.files[k]); err != nil {
						return err
					}
				}
			}
		case <-poll.C:
			for _, f := range t.files {
				if err := t.check(f); err != nil {
					return err
				}
			}
		}
	}
}

// kindOfName matches the live file names only; rotated copies and .torn
// files in the same directory are not followed.
func kindOfName(base string) (Kind, bool) {
	switch base {
	case LeasesFile:
		return Leases, true
	case AuditFile:
		return Audit, true
	}
	return 0, false
}

type tailer struct {
	ctx   context.Context
	out   chan<- Batch
	key   []byte
	files [2]*tailFile
}

func (t *tailer) newChecker(k Kind, offset int64) *Checker {
	if offset > 0 {
		return NewCheckerMidFile(k, t.key)
	}
	return NewChecker(k, t.key)
}

type tailFile struct {
	kind   Kind
	path   string
	f      *os.File    // the file being followed, nil before it exists
	fi     os.FileInfo // its identity, to notice a replacement
	offset int64
	lines  int // complete lines before offset
	check  *Checker
	// The last line delivered, to notice a file rewritten in place to at
	// least its old length, which a size check alone would miss.
	lastOff  int64
	lastLen  int
	lastHash [32]byte
	haveLast bool
	counted  bool // lines is valid for offset
}

func (t *tailer) closeAll() {
	for _, f := range t.files {
		if f != nil && f.f != nil {
			f.f.Close()
		}
	}
}

// check brings one file up to date: drain what is left in the file being
// followed, then switch to a replacement if the name now points elsewhere.
func (t *tailer) check(tf *tailFile) error {
	if tf.f != nil {
		if err := t.drain(tf); err != nil {
			return err
		}
	}
	st, err := os.Stat(tf.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // removed or not yet created; keep what we have
	}
	if err != nil {
		return nil // transient; the poll will come back
	}
	if tf.f != nil && os.SameFile(st, tf.fi) {
		return nil
	}
	f, err := os.Open(tf.path)
	if err != nil {
		return nil
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil
	}
	reset := ""
	if tf.f != nil {
		// The old file may have grown between the drain above and the
		// stat: read it to its end before leaving it.
		if err := t.drain(tf); err != nil {
			f.Close()
			return err
		}
		tf.f.Close()
		tf.offset, tf.lines, tf.counted, tf.haveLast = 0, 0, true, false
		tf.check = t.newChecker(tf.kind, 0)
		reset = "replaced"
	}
	tf.f, tf.fi = f, fi
	return t.read(tf, reset)
}

// drain reads what was appended to the open file, after checking that it
// still continues what was delivered.
func (t *tailer) drain(tf *tailFile) error {
	st, err := tf.f.Stat()
	if err != nil {
		return nil
	}
	reset := ""
	if st.Size() < tf.offset || (tf.haveLast && !t.lastStillThere(tf)) {
		tf.offset, tf.lines, tf.counted, tf.haveLast = 0, 0, true, false
		tf.check = t.newChecker(tf.kind, 0)
		reset = "truncated"
	}
	if st.Size() == tf.offset && reset == "" {
		return nil
	}
	return t.read(tf, reset)
}

func (t *tailer) lastStillThere(tf *tailFile) bool {
	buf := make([]byte, tf.lastLen+1)
	n, err := tf.f.ReadAt(buf, tf.lastOff)
	if n < len(buf) || (err != nil && !errors.Is(err, io.EOF)) {
		return false
	}
	return buf[tf.lastLen] == '\n' && sha256.Sum256(buf[:tf.lastLen]) == tf.lastHash
}

// read delivers the complete lines from the file's offset, in batches.
func (t *tailer) read(tf *tailFile, reset string) error {
	if !tf.counted {
		st, err := tf.f.Stat()
		if err == nil && st.Size() < tf.offset {
			// Asked to start past the end: the file is not what the
			// caller last saw.
			tf.offset, reset = 0, "truncated"
			tf.check = t.newChecker(tf.kind, 0)
		}
		n, err := countLines(tf.f, tf.offset)
		if err != nil {
			return nil
		}
		tf.lines, tf.counted = n, true
	}
	b := Batch{Kind: tf.kind, Path: tf.path, Reset: reset, From: tf.offset, Next: tf.offset}
	flush := func() error {
		if len(b.Lines) == 0 && len(b.Problems) == 0 && len(b.Breaks) == 0 && b.Reset == "" {
			return nil
		}
		select {
		case t.out <- b:
		case <-t.ctx.Done():
			return t.ctx.Err()
		}
		b = Batch{Kind: tf.kind, Path: tf.path, From: b.Next, Next: b.Next}
		return nil
	}
	next, err := scan(tf.f, tf.offset, tf.lines, analyseOpts{kind: tf.kind, key: t.key, validate: true, hash: true}, false, func(a *analysed) error {
		if p := lineProblem(tf.path, a); p != nil {
			b.Problems = append(b.Problems, p)
		} else {
			b.Lines = append(b.Lines, a.Line)
			b.Breaks = append(b.Breaks, tf.check.check(a)...)
		}
		b.Next = a.End()
		tf.offset, tf.lines = a.End(), a.Number
		tf.lastOff, tf.lastLen, tf.lastHash, tf.haveLast = a.Offset, len(a.Raw), a.hash, true
		if len(b.Lines)+len(b.Problems) >= maxBatchSize {
			return flush()
		}
		return nil
	})
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		// A read error (the file went away under us): keep the offset and
		// let the next check try again.
		return nil
	}
	tf.offset = next
	return flush()
}
