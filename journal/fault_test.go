package journal

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// faultyFile is a journal file whose writes, fsyncs and truncations fail
// on demand with the errors the kernel gives (EIO, ENOSPC, EPERM) — the
// ones a test cannot always make a real disk produce.
type faultyFile struct {
	*os.File
	mu                        sync.Mutex
	writeErr, syncErr, cutErr error
}

func (f *faultyFile) fail(write, sync, cut error) {
	f.mu.Lock()
	f.writeErr, f.syncErr, f.cutErr = write, sync, cut
	f.mu.Unlock()
}

func (f *faultyFile) errs() (error, error, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.writeErr, f.syncErr, f.cutErr
}

func (f *faultyFile) WriteAt(b []byte, off int64) (int, error) {
	if err, _, _ := f.errs(); err != nil {
		return 0, &os.PathError{Op: "write", Path: f.Name(), Err: err}
	}
	return f.File.WriteAt(b, off)
}

func (f *faultyFile) Datasync() error {
	if _, err, _ := f.errs(); err != nil {
		return &os.PathError{Op: "fdatasync", Path: f.Name(), Err: err}
	}
	return syncData(f.File)
}

func (f *faultyFile) Truncate(n int64) error {
	if _, _, err := f.errs(); err != nil {
		return &os.PathError{Op: "truncate", Path: f.Name(), Err: err}
	}
	return f.File.Truncate(n)
}

// withFaults opens an anchored journal whose files are faultyFiles.
func (a *anchored) withFaults(t *testing.T) (*Writer, *[2]*faultyFile) {
	t.Helper()
	var ff [2]*faultyFile
	opts := a.opts
	opts.RetryMin, opts.RetryMax = 5*time.Millisecond, 20*time.Millisecond
	opts.wrap = func(k Kind, f *os.File) file {
		ff[k] = &faultyFile{File: f}
		return ff[k]
	}
	w, err := Open(a.dir, testKey, opts)
	if err != nil {
		t.Fatal(err)
	}
	return w, &ff
}

// waitStatus waits, bounded, for the writer to reach a state.
func waitStatus(t *testing.T, w *Writer, state string) Status {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		st := w.Status()
		if st.State == state {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("writer is %q (%v), want %q", st.State, st.Err, state)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// After EIO, ENOSPC or EPERM from a write or an fsync the writer fails
// closed while the error lasts, retries, and resumes by itself once the
// disk takes writes again, recording that it did.
func TestWriterResumesAfterTransientErrors(t *testing.T) {
	for _, tc := range []struct {
		name             string
		write, sync, cut error
	}{
		{"write EIO", syscall.EIO, nil, nil},
		{"write ENOSPC", syscall.ENOSPC, nil, nil},
		{"write EPERM", syscall.EPERM, nil, nil},
		{"fsync EIO", nil, syscall.EIO, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newAnchored(t)
			a.fill(t, 1, 2)
			w, ff := a.withFaults(t)
			defer w.Close()
			ff[Leases].fail(tc.write, tc.sync, tc.cut)
			_, err := w.Append(Leases, heartbeat(3))
			var we *WriteError
			if !errors.As(err, &we) || we.File != LeasesFile {
				t.Fatalf("append: %v", err)
			}
			st := waitStatus(t, w, "retrying")
			if _, err := w.Append(Audit, gateAllowed(3)); !errors.Is(err, ErrStopped) {
				t.Fatalf("append while failing: %v", err)
			}
			if w.Err() == nil || !strings.Contains(w.Err().Error(), "failing closed; retry") {
				t.Fatalf("Err while retrying: %v", w.Err())
			}
			_ = st
			ff[Leases].fail(nil, nil, nil)
			waitStatus(t, w, "ok")
			if a := appendT(t, w, Leases, heartbeat(3)); a.Seq != 3 {
				t.Fatalf("after resuming: %+v", a)
			}
			w.Close()
			r := a.verify(t, testKey, a.pub(t))
			if !r.OK() {
				t.Fatalf("verify: %s", breaksString(r.Breaks))
			}
			if !strings.Contains(strings.Join(r.Notices, "\n"), "(resumed): writing resumed") {
				t.Fatalf("no resumption recorded: %q", r.Notices)
			}
		})
	}
}

// fsync fails and cutting the batch back fails too: the line stays in the
// file, never acknowledged. It must never count: the next Open moves it
// aside, records its seq, and does not replay it; verify reports it.
func TestUnacknowledgedLineNeverCounts(t *testing.T) {
	a := newAnchored(t)
	a.fill(t, 1, 3)
	w, ff := a.withFaults(t)
	ff[Leases].fail(nil, syscall.EIO, syscall.EIO)
	_, err := w.Append(Leases, heartbeat(4))
	var we *WriteError
	if !errors.As(err, &we) || we.RollbackErr == nil || len(we.Unacked) != 1 || we.Unacked[0].FromSeq != 4 {
		t.Fatalf("append: %#v", err)
	}
	if !strings.Contains(err.Error(), "seq 4 may remain, never acknowledged") {
		t.Fatalf("message: %v", err)
	}
	st := waitStatus(t, w, "retrying")
	if len(st.Unacked) != 1 {
		t.Fatalf("status: %+v", st)
	}
	w.Close() // the process ends with the line still in the file
	if lines, _, _ := ReadFrom(journalPath(a.dir, Leases), 0); len(lines) != 4 {
		t.Fatalf("the unacknowledged line should still be in the file: %d lines", len(lines))
	}

	var replayed []uint64
	opts := a.opts
	opts.Replay = func(k Kind, l *Line) error {
		if k == Leases {
			replayed = append(replayed, l.Seq)
		}
		return nil
	}
	w2, err := Open(a.dir, testKey, opts)
	if err != nil {
		t.Fatal(err)
	}
	rec := w2.Recoveries()
	if len(rec) != 1 || !rec[0].Unacknowledged || rec[0].FromSeq != 4 || rec[0].ToSeq != 4 || !rec[0].Recorded {
		t.Fatalf("recoveries: %+v", rec)
	}
	if len(replayed) != 3 {
		t.Fatalf("replayed %v: the unacknowledged seq 4 must not be", replayed)
	}
	if !strings.Contains(filepath.Base(rec[0].MovedTo), "leases.jsonl.unacked-") {
		t.Fatalf("moved to %s", rec[0].MovedTo)
	}
	if a := appendT(t, w2, Leases, heartbeat(5)); a.Seq != 4 {
		t.Fatalf("seq 4 is reused by the next acknowledged line: %+v", a)
	}
	w2.Close()
	r := a.verify(t, testKey, a.pub(t))
	if !r.OK() {
		t.Fatalf("verify: %s", breaksString(r.Breaks))
	}
	if n := strings.Join(r.Notices, "\n"); !strings.Contains(n, "leases.jsonl seq 4 were written but never acknowledged") {
		t.Fatalf("verify does not report it: %q", r.Notices)
	}
}

// The writer notices at once when its files are no longer the ones it
// holds, and stops for good instead of writing where nobody reads.
func TestWriterNoticesItsFilesChanging(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, a *anchored)
		want   string
	}{
		{"directory removed", func(t *testing.T, a *anchored) { os.RemoveAll(a.dir) }, "journal directory "},
		{"file removed", func(t *testing.T, a *anchored) { os.Remove(journalPath(a.dir, Audit)) }, "the file was removed"},
		{"file replaced", func(t *testing.T, a *anchored) {
			p := journalPath(a.dir, Leases)
			b, _ := os.ReadFile(p)
			os.WriteFile(p+".x", b, 0o600)
			os.Rename(p+".x", p)
		}, "replaced by another"},
		{"file cut", func(t *testing.T, a *anchored) {
			p := journalPath(a.dir, Leases)
			lines := fileLines(t, p)
			f, _ := os.OpenFile(p, os.O_RDWR, 0)
			st, _ := f.Stat()
			f.Truncate(st.Size() - int64(len(lines[len(lines)-2])))
			f.Close()
		}, "the file was cut"},
		{"file grown", func(t *testing.T, a *anchored) {
			f, _ := os.OpenFile(journalPath(a.dir, Audit), os.O_WRONLY|os.O_APPEND, 0)
			f.WriteString("{}\n")
			f.Close()
		}, "bytes the registry did not write"},
		{"head removed", func(t *testing.T, a *anchored) { os.Remove(a.opts.HeadPath) }, "journal head"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newAnchored(t)
			w := a.open(t)
			defer w.Close()
			appendT(t, w, Leases, heartbeat(1))
			appendT(t, w, Audit, gateAllowed(1))
			tc.change(t, a)
			_, err := w.Append(Leases, heartbeat(2))
			var fc *FileChangedError
			if !errors.As(err, &fc) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("append: %v", err)
			}
			if st := w.Status(); st.State != "stopped" || !errors.As(w.Err(), &fc) {
				t.Fatalf("status %+v, Err %v", st, w.Err())
			}
		})
	}
}

// Removed while idle: Err says so before anything is appended.
func TestErrNoticesRemovalWhileIdle(t *testing.T) {
	a := newAnchored(t)
	w := a.open(t)
	defer w.Close()
	appendT(t, w, Leases, heartbeat(1))
	if w.Err() != nil {
		t.Fatal(w.Err())
	}
	os.RemoveAll(a.dir)
	if err := w.Err(); err == nil || !strings.Contains(err.Error(), "was removed") {
		t.Fatalf("Err after removing the directory: %v", err)
	}
}
