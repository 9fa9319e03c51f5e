package tui

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/leasedeck/leasedeck/journal"
	"github.com/leasedeck/leasedeck/registry"
)

// journalMsg carries journal lines to the program: first the whole
// journal (Reset set; also after a truncation or a rotation, when the
// fold must start over), then what was appended, in batches.
type journalMsg struct {
	Reset   bool
	Entries []entry
	Heads   [2]uint64 // seq of the last line read, per file
	Breaks  []string  // chain breaks found in these lines
	MACs    bool      // macs were checked (the workspace key was readable)
	Err     string    // the journal cannot be followed right now, and why
	// Start, on a Reset, is the snapshot the fold starts from; Entries
	// are then the lines after its position.
	Start *registry.SnapshotStart
}

// feeder follows a journal directory and hands what it reads to the
// program: the single bus of UI rule 3. It reads and checks lines on its
// own goroutine and calls Send at most once per Interval, however fast
// the journal grows, so a burst of thousands of lines costs a few
// redraws rather than thousands.
type feeder struct {
	Dir string
	Key []byte // the workspace key, to check macs; nil skips them
	// Snapshots, when set, is where the load looks for a snapshot to start
	// from (see registry.ReadSnapshot).
	Snapshots *registry.SnapshotSource
	Send      func(tea.Msg)
	Interval  time.Duration // least time between sends; default 33 ms (≤ 30 a second)
	Retry     time.Duration // wait before retrying after an error; default 2 s
}

var errRestart = errors.New("journal reset")

// Run follows the journal until ctx ends.
func (f *feeder) Run(ctx context.Context) error {
	if f.Interval <= 0 {
		f.Interval = 33 * time.Millisecond
	}
	if f.Retry <= 0 {
		f.Retry = 2 * time.Second
	}
	for {
		err := f.cycle(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if errors.Is(err, errRestart) {
			continue
		}
		if err != nil {
			f.Send(journalMsg{Err: err.Error(), MACs: f.Key != nil})
		}
		t := time.NewTimer(f.Retry)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// cycle loads both files, sends them, then follows them until a reset
// (errRestart), an error, or ctx's end.
func (f *feeder) cycle(ctx context.Context) error {
	ck := newChainCheck(f.Key)
	first, from, err := f.load(ck)
	if err != nil {
		return err
	}
	f.Send(first)

	tctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch := make(chan journal.Batch, 16)
	tailErr := make(chan error, 1)
	go func() {
		tailErr <- journal.Tail(tctx, f.Dir, journal.TailOptions{From: from, Key: f.Key, Checkers: ck.check}, ch)
	}()

	var pend journalMsg
	var timer *time.Timer
	var timerC <-chan time.Time
	var last time.Time
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-tailErr:
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		case b := <-ch:
			if b.Reset != "" {
				// The file was truncated or replaced: what was folded no
				// longer describes it. Start over from both files.
				return errRestart
			}
			ck.batch(&pend, b)
			if timerC == nil {
				wait := f.Interval - time.Since(last)
				if wait < 0 {
					wait = 0
				}
				timer = time.NewTimer(wait)
				timerC = timer.C
			}
		case <-timerC:
			timerC = nil
			pend.Heads, pend.MACs = ck.seq, f.Key != nil
			f.Send(pend)
			last = time.Now()
			pend = journalMsg{}
		}
	}
}

// load reads both files from the start, leases first (the audit journal
// refers to it), as the registry replays them.
func (f *feeder) load(ck *chainCheck) (journalMsg, map[journal.Kind]int64, error) {
	msg := journalMsg{Reset: true, MACs: f.Key != nil}
	from := map[journal.Kind]int64{}
	if f.Snapshots != nil {
		if start, _ := registry.ReadSnapshot(*f.Snapshots); start != nil {
			// The snapshot's lines were checked when it was folded and are
			// still the same bytes (ReadSnapshot walked them); the chain
			// checks continue after its position.
			msg.Start = start
			for _, k := range journal.Kinds {
				ck.check[k] = journal.NewCheckerAt(k, f.Key, start.Files[k])
				ck.seq[k], from[k] = start.Files[k].Seq, start.Files[k].End
			}
		}
	}
	for _, k := range journal.Kinds {
		path := filepath.Join(f.Dir, k.FileName())
		next, err := journal.Scan(path, from[k], func(l *journal.Line) error {
			msg.Breaks = append(msg.Breaks, ck.line(k, l)...)
			msg.Entries = append(msg.Entries, entry{Kind: k, Seq: l.Seq, Value: l.Value})
			return nil
		})
		var re *journal.ReadError
		switch {
		case errors.As(err, &re):
			for _, p := range re.Problems {
				msg.Breaks = append(msg.Breaks, fmt.Sprintf("%s line %d: %s", k.FileName(), p.Number, p.Reason))
			}
		case errors.Is(err, fs.ErrNotExist):
			next = 0 // not written yet: follow it from its creation
		case err != nil:
			return msg, nil, fmt.Errorf("reading %s: %w", path, err)
		}
		from[k] = next
	}
	msg.Heads = ck.seq
	return msg, from, nil
}

// chainCheck follows each file's hash chain as lines arrive, with the
// journal's own Checker: the rules `journal verify` applies offline, so
// the status bar can say "verified" for everything on screen without
// re-reading the files. The tailer continues the same Checkers.
type chainCheck struct {
	check [2]*journal.Checker
	seq   [2]uint64
}

func newChainCheck(key []byte) *chainCheck {
	c := &chainCheck{}
	for _, k := range journal.Kinds {
		c.check[k] = journal.NewChecker(k, key)
	}
	return c
}

func (c *chainCheck) line(k journal.Kind, l *journal.Line) []string {
	c.seq[k] = l.Seq
	return breakStrings(c.check[k].Check(l))
}

func breakStrings(bs []journal.Break) []string {
	var out []string
	for _, b := range bs {
		out = append(out, b.String())
	}
	return out
}

// batch adds a tail batch to the message being gathered.
func (c *chainCheck) batch(m *journalMsg, b journal.Batch) {
	for _, p := range b.Problems {
		m.Breaks = append(m.Breaks, fmt.Sprintf("%s line %d: %s", b.Kind.FileName(), p.Number, p.Reason))
	}
	m.Breaks = append(m.Breaks, breakStrings(b.Breaks)...)
	for i := range b.Lines {
		l := &b.Lines[i]
		c.seq[b.Kind] = l.Seq
		m.Entries = append(m.Entries, entry{Kind: b.Kind, Seq: l.Seq, Value: l.Value})
	}
}
