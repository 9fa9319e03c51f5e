package registry

import (
	"fmt"

	"github.com/leasedeck/leasedeck/approvals"
	"github.com/leasedeck/leasedeck/journal"
	"github.com/leasedeck/leasedeck/registry/record"
)

// Folded is what a start rebuilds: the state, the approval book's
// content, and how it was rebuilt.
type Folded struct {
	State *State
	Book  approvals.State
	Start StartInfo
}

// FoldForTest rebuilds the state exactly as Open does (the newest
// matching snapshot in cfg.SnapshotDir, then the tail; or every line),
// without writing anything to the journal.
func FoldForTest(cfg Config) (Folded, error) {
	cfg.CheckpointKeyPath = "" // a checkpoint at Close would add a line
	s := &Service{cfg: cfg, st: NewState(), book: approvals.New(), snaps: newSnapshotter(cfg)}
	w, bad, err := s.openJournal()
	if err != nil {
		return Folded{}, err
	}
	defer w.Close()
	if len(bad) > 0 {
		return Folded{}, fmt.Errorf("does not fold: %v", bad)
	}
	if b := w.Breaks(); len(b) > 0 {
		return Folded{}, fmt.Errorf("breaks: %v", b)
	}
	return Folded{State: s.st, Book: s.book.Export(), Start: s.start}, nil
}

// WritePrefixSnapshot folds the lines up to seq upTo[k] of each file (as
// a registry that had written only those would hold them) and writes the
// state as a snapshot at that position into cfg.SnapshotDir.
func WritePrefixSnapshot(cfg Config, upTo [2]uint64) (string, error) {
	st, book := NewState(), approvals.New()
	var pos [2]journal.Position
	for _, k := range journal.Kinds {
		pos[k] = journal.Position{Hash: journal.ZeroHash}
	}
	var foldErr error
	w, err := journal.Open(cfg.JournalDir, cfg.Key.Bytes(), journal.Options{LockPath: cfg.LockPath, HeadPath: cfg.HeadPath,
		Replay: func(k journal.Kind, jl *journal.Line) error {
			if jl.Seq > upTo[k] {
				return nil
			}
			pos[k] = journal.Position{Seq: jl.Seq, Hash: jl.Hash(), Offset: jl.Offset, End: jl.End()}
			l := record.Parse(k, jl.Value)
			l.Offset, l.Seq, l.Located = jl.Offset, jl.Seq, true
			if err := FoldLine(st, book, &l); err != nil && foldErr == nil {
				foldErr = err
			}
			return nil
		}})
	if err != nil {
		return "", err
	}
	_, cp := w.Position()
	w.Close()
	if foldErr != nil {
		return "", foldErr
	}
	ss, err := snapshotOf(st, book)
	if err != nil {
		return "", err
	}
	if cp > pos[journal.Audit].Seq {
		cp = 0 // the prefix's own last checkpoint is not known here; 0 claims none
	}
	store := newSnapshotter(cfg).store
	return store.write(snapshotHeader{Files: pos, CheckpointSeq: cp}, ss, "")
}

// Fold applies one journal value to a state and an approval book.
func Fold(st *State, book *approvals.Book, k journal.Kind, v map[string]any) error {
	l := record.Parse(k, v)
	return FoldLine(st, book, &l)
}

// Mode is the enforcement mode in force: "enforce" unless the policy says
// "observe".
func (s *Service) Mode() string { return s.PolicyInfo().Mode }

// Snapshot runs fn with the state under the lock. fn must not keep
// references past its return, nor call back into the service.
func (s *Service) Snapshot(fn func(st *State)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn(s.st)
}

// Report records a tool's outcome (its result only as a hash and a
// redacted summary made by the caller) and checks scope: a change outside
// the grant (a write outside write_paths) revokes the lease.
func (s *Service) Report(admissionID string, call ToolCall, status, resultHash, summary string) (ReportResult, error) {
	return s.ReportCall(admissionID, call, status, resultHash, "")
}

// VerifyJournalGeneric is VerifyJournal with every audit line read through
// the generic tree, as before the direct decoder: the reference the
// direct path is compared with.
func VerifyJournalGeneric(dir string, key *Key, anchors journal.VerifyOptions) journal.Report {
	return verifyJournal(dir, key, anchors, false)
}
