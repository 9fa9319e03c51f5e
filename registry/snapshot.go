package registry

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/leasedeck/leasedeck/journal"
	"github.com/leasedeck/leasedeck/registry/record"
)

// Snapshots make a start O(tail): the registry writes its folded state,
// bound to the journal position it is the fold of, every SnapshotEvery
// lines, at most SnapshotInterval apart while lines are written, after a
// start that replayed a long journal, and at Close. Open loads the newest
// snapshot that checks (mac, workspace, journal), has the journal check
// that the lines before its position are still the same bytes and that
// the kept head acknowledged them (journal.Resume), and replays only the
// lines after it, with every check a full replay makes. Anything that does
// not match — a snapshot changed, foreign, truncated, of another format,
// newer than the journal, or a journal rewritten, cut or changed before
// the position — falls back to a full replay, recorded in the audit
// journal (EventSnapshotRefused): a snapshot can make a start faster,
// never make it end in another state.

// EventSnapshotRefused records a start that did not use a snapshot there
// was, and why; the registry then replayed the whole journal.
const EventSnapshotRefused = "leasedeck.snapshot.refused"

// Snapshot defaults (Config.SnapshotEvery, Config.SnapshotInterval).
const (
	DefaultSnapshotEvery    = 20_000
	DefaultSnapshotInterval = 10 * time.Minute
)

// StartInfo says how Open rebuilt the state.
type StartInfo struct {
	// FromSnapshot: the state was loaded from Snapshot, taken at At, and
	// only the lines after it were replayed.
	FromSnapshot bool
	Snapshot     string
	At           string
	Replayed     int // journal lines replayed (the tail, or every line)
	// Refused says why snapshots there were could not be used.
	Refused []string
}

// snapshotter writes snapshots while the service runs.
type snapshotter struct {
	store    snapshotStore
	every    int64
	interval time.Duration
	lines    atomic.Int64 // lines folded since the last snapshot
	kick     chan struct{}
	stop     chan struct{}
	done     chan struct{}
	lastErr  atomic.Value // string: why the last attempt failed, "" after a success
	writeMu  sync.Mutex   // one write at a time; guards last
	last     string       // the snapshot written before, kept beside the next
}

func newSnapshotter(cfg Config) *snapshotter {
	if cfg.SnapshotDir == "" {
		return nil
	}
	every := int64(cfg.SnapshotEvery)
	if every == 0 {
		every = DefaultSnapshotEvery
	}
	interval := cfg.SnapshotInterval
	if interval <= 0 {
		interval = DefaultSnapshotInterval
	}
	return &snapshotter{
		store: snapshotStore{dir: cfg.SnapshotDir, key: cfg.Key, workspace: cfg.Workspace, journalDir: cfg.JournalDir},
		every: every, interval: interval,
		kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
	}
}

// folded counts lines folded while serving and wakes the writer when
// enough have been.
func (sn *snapshotter) folded(n int) {
	if sn == nil || sn.every < 0 {
		return
	}
	if now := sn.lines.Add(int64(n)); now >= sn.every && now-int64(n) < sn.every {
		sn.wake()
	}
}

func (sn *snapshotter) wake() {
	select {
	case sn.kick <- struct{}{}:
	default:
	}
}

// loadSnapshot finds the newest usable snapshot and prepares the journal
// resume from it; the state it holds replaces s.st and s.book only if
// the journal agrees (Decided, before any line is replayed).
func (s *Service) loadSnapshot() *journal.Resume {
	if s.snaps == nil {
		return nil
	}
	snap, problems := s.snaps.store.newest()
	s.start.Refused = append(s.start.Refused, problems...)
	if snap == nil {
		return nil
	}
	st, book, err := snap.state.restore()
	if err != nil {
		s.start.Refused = append(s.start.Refused, fmt.Sprintf("snapshot %s: %v", snap.path, err))
		return nil
	}
	return &journal.Resume{Files: snap.header.Files, CheckpointSeq: snap.header.CheckpointSeq,
		Decided: func(used bool, why string) {
			if !used {
				s.start.Refused = append(s.start.Refused, fmt.Sprintf("snapshot %s (%s) does not match the journal: %s", snap.path, snap.header, why))
				return
			}
			s.st, s.book = st, book
			s.start.FromSnapshot, s.start.Snapshot, s.start.At = true, snap.path, snap.header.String()
		}}
}

// startSnapshots records a refused snapshot and starts the writer; a
// start that replayed much of the journal is followed by a snapshot at
// once, so that the next start need not do it again.
func (s *Service) startSnapshots() {
	if s.snaps == nil {
		return
	}
	if len(s.start.Refused) > 0 {
		what := "the registry replayed the whole journal: "
		if s.start.FromSnapshot {
			what = fmt.Sprintf("the registry started from %s (%s); not used: ", s.start.Snapshot, s.start.At)
		}
		s.appendAudit(record.NewAudit(EventSnapshotRefused, s.Now(), what+strings.Join(s.start.Refused, "; "),
			record.Details{IssuerSession: s.cfg.SessionID}))
	}
	go s.snapshotLoop()
	if s.snaps.every >= 0 && (s.start.Replayed >= 1000 || len(s.start.Refused) > 0) {
		s.snaps.wake()
	}
}

func (s *Service) snapshotLoop() {
	sn := s.snaps
	defer close(sn.done)
	tick := time.NewTicker(sn.interval)
	defer tick.Stop()
	for {
		select {
		case <-sn.stop:
			return
		case <-sn.kick:
		case <-tick.C:
			if sn.lines.Load() == 0 || sn.every < 0 {
				continue
			}
		}
		s.recordSnapshot()
	}
}

func (s *Service) recordSnapshot() {
	if _, err := s.WriteSnapshot(); err != nil {
		s.snaps.lastErr.Store(err.Error())
		return
	}
	s.snaps.lastErr.Store("")
}

// stopSnapshots ends the writer and, when lines were folded since the
// last snapshot, writes one more.
func (s *Service) stopSnapshots() {
	if s.snaps == nil {
		return
	}
	close(s.snaps.stop)
	<-s.snaps.done
	if s.snaps.lines.Load() > 0 && s.snaps.every >= 0 {
		s.recordSnapshot()
	}
}

// ErrNoSnapshots: the service keeps no snapshots (no SnapshotDir).
var ErrNoSnapshots = errors.New("this registry keeps no snapshots")

// WriteSnapshot writes a snapshot of the state now and returns its path.
// Appends wait while the state is copied (not while it is written): the
// copy is then exactly the fold of the journal up to its position.
func (s *Service) WriteSnapshot() (string, error) {
	if s.snaps == nil {
		return "", ErrNoSnapshots
	}
	if err := s.Health(); err != nil {
		return "", err
	}
	s.foldGate.Lock()
	s.mu.Lock()
	files, cp := s.w.Position()
	st, err := snapshotOf(s.st, s.book)
	s.snaps.lines.Store(0)
	s.mu.Unlock()
	s.foldGate.Unlock()
	if err != nil {
		return "", fmt.Errorf("snapshot: %w", err)
	}
	s.snaps.writeMu.Lock()
	defer s.snaps.writeMu.Unlock()
	path, err := s.snaps.store.write(snapshotHeader{TakenAt: s.Now().UTC(), Files: files, CheckpointSeq: cp}, st, s.snaps.last)
	if err != nil {
		return "", fmt.Errorf("snapshot: %w", err)
	}
	s.snaps.last = path
	return path, nil
}

// Start says how Open rebuilt the state.
func (s *Service) Start() StartInfo {
	out := s.start
	out.Refused = append([]string(nil), s.start.Refused...)
	return out
}

// SnapshotError is why the last snapshot could not be written, or "".
func (s *Service) SnapshotError() string {
	if s.snaps == nil {
		return ""
	}
	v, _ := s.snaps.lastErr.Load().(string)
	return v
}
