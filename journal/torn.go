package journal

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/leasedeck/leasedeck/durable"
	"github.com/leasedeck/leasedeck/termtext"
)

// cutTail moves the bytes from off to the end of the file into a file
// beside it (<file>.<what>-<UTC time>), then cuts the journal there. The
// copy is durable before the cut, so a crash in between loses nothing.
func (w *Writer) cutTail(fsx *fileState, off int64, what string) (Recovery, error) {
	st, err := fsx.f.Stat()
	if err != nil {
		return Recovery{}, err
	}
	n := st.Size() - off
	stamp := w.opts.Now().UTC().Format("20060102T150405.000000000Z")
	var tf *os.File
	var movedTo string
	for i := 1; ; i++ {
		movedTo = fmt.Sprintf("%s.%s-%s", fsx.path, what, stamp)
		if i > 1 {
			movedTo += fmt.Sprintf("-%d", i)
		}
		tf, err = os.OpenFile(movedTo, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil || !errors.Is(err, fs.ErrExist) || i > 100 {
			break
		}
	}
	if err != nil {
		return Recovery{}, fmt.Errorf("journal: moving the end of %s aside: %w", fsx.path, err)
	}
	_, err = io.Copy(tf, io.NewSectionReader(fsx.f, off, n))
	if err == nil {
		err = tf.Sync()
	}
	if cerr := tf.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = durable.SyncDir(w.dir)
	}
	if err != nil {
		return Recovery{}, fmt.Errorf("journal: moving the end of %s to %s: %w", fsx.path, movedTo, err)
	}
	if err := fsx.f.Truncate(off); err != nil {
		return Recovery{}, fmt.Errorf("journal: cutting the end of %s: %w", fsx.path, err)
	}
	if err := syncFile(fsx.f); err != nil {
		return Recovery{}, fmt.Errorf("journal: cutting the end of %s: %w", fsx.path, err)
	}
	if err := durable.SyncDir(w.dir); err != nil {
		return Recovery{}, err
	}
	fsx.size = off
	return Recovery{File: fsx.kind.FileName(), Offset: off, Bytes: n, MovedTo: movedTo}, nil
}

func (w *Writer) recoveryRecord(r Recovery) map[string]any {
	if r.Unacknowledged {
		return systemRecord(w.opts.Now(), EventUnacknowledged, "failure",
			fmt.Sprintf("%s seq %s were written but never acknowledged (no caller was told yes); moved to %s, never counted",
				r.File, seqRange(r.FromSeq, r.ToSeq), filepath.Base(r.MovedTo)),
			map[string]any{
				"journal":  r.File,
				"from_seq": r.FromSeq,
				"to_seq":   r.ToSeq,
				"bytes":    r.Bytes,
				"offset":   r.Offset,
				"moved_to": filepath.Base(r.MovedTo),
			})
	}
	// "file" would be the natural key, but the audit schema refuses
	// member names with that word (it filters content-like keys).
	return systemRecord(w.opts.Now(), EventRecovered, "success",
		fmt.Sprintf("torn last line of %s (%d bytes at offset %d) moved to %s",
			r.File, r.Bytes, r.Offset, filepath.Base(r.MovedTo)),
		map[string]any{
			"journal":  r.File,
			"bytes":    r.Bytes,
			"offset":   r.Offset,
			"moved_to": filepath.Base(r.MovedTo),
		})
}

// Audit event types the journal writes about itself.
const (
	EventRecovered      = "leasedeck.journal.recovered"
	EventUnacknowledged = "leasedeck.journal.unacknowledged"
	EventHeadStarted    = "leasedeck.journal.head_started"
	EventResumed        = "leasedeck.journal.resumed"
	EventCheckpoint     = "leasedeck.journal.checkpoint"
)

// systemRecord is an audit event the journal writes about itself.
func systemRecord(now time.Time, event, outcome, summary string, details map[string]any) map[string]any {
	return map[string]any{
		"schema_version": "1.2",
		"timestamp":      now.UTC().Format("2006-01-02T15:04:05.000Z"),
		"event_type":     event,
		"actor":          map[string]any{"kind": "system"},
		"outcome":        outcome,
		"summary":        termtext.Clip(termtext.Clean(summary), 290),
		"details":        details,
	}
}

func seqRange(from, to uint64) string {
	if from == to {
		return fmt.Sprint(from)
	}
	return fmt.Sprintf("%d–%d", from, to)
}
