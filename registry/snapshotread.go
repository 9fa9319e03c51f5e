package registry

import (
	"fmt"

	"github.com/leasedeck/leasedeck/approvals"
	"github.com/leasedeck/leasedeck/journal"
	"github.com/leasedeck/leasedeck/registry/record"
)

// A reader that follows the journal without writing it (the cockpit)
// starts from the registry's snapshots too: the newest one whose mac,
// workspace and journal check, if the journal's files and kept head agree
// with its position (journal.CheckResume, the same checks Open makes);
// then it reads only the lines after the position. Closed leases come out
// of a snapshot compacted; their history is read back from the journal
// when someone looks (History).

// SnapshotSource says where a reader finds the snapshots of a workspace.
type SnapshotSource struct {
	Dir        string // the state directory's snapshots/
	Key        Key
	Workspace  string
	JournalDir string
	HeadPath   string // the kept journal head; "" when there is none
}

// SnapshotStart is a snapshot a reader can start from: the state, the
// approval book, and where in each file to read on.
type SnapshotStart struct {
	State *State
	Book  *approvals.Book
	Files [2]journal.Position
	Path  string
	At    string // "leases seq N, audit seq M"
}

// ReadSnapshot returns the newest snapshot the journal agrees with, or
// nil and why none could be used (nothing when there is none at all).
func ReadSnapshot(src SnapshotSource) (*SnapshotStart, []string) {
	store := snapshotStore{dir: src.Dir, key: src.Key, workspace: src.Workspace, journalDir: src.JournalDir}
	snap, problems := store.newest()
	if snap == nil {
		return nil, problems
	}
	r := &journal.Resume{Files: snap.header.Files, CheckpointSeq: snap.header.CheckpointSeq}
	if why := journal.CheckResume(src.JournalDir, src.HeadPath, src.Key.Bytes(), r); why != "" {
		return nil, append(problems, fmt.Sprintf("snapshot %s (%s) does not match the journal: %s", snap.path, snap.header, why))
	}
	st, book, err := snap.state.restore()
	if err != nil {
		return nil, append(problems, fmt.Sprintf("snapshot %s: %v", snap.path, err))
	}
	return &SnapshotStart{State: st, Book: book, Files: snap.header.Files, Path: snap.path, At: snap.header.String()}, problems
}

// HistoryRef is where a compacted lease's history is in the journal,
// taken while its state is held so that it can be read elsewhere.
type HistoryRef struct {
	id    string
	where lineRange
}

// HistoryOf names a lease's history; ok is false when the lease is not
// compacted (its history is in memory).
func HistoryOf(l *LeaseState) (HistoryRef, bool) {
	return HistoryRef{id: l.ID, where: l.where}, l.Compacted
}

// History is what a compacted lease dropped from memory.
type History struct {
	Lease, Declared map[string]any
	Granted         *Manifest // the grant with its raw manifest; nil for a refusal
	Activity        []GateEvent
}

// Read reads the history back from the journal, every line checked
// (seq, prev, mac) on the way.
func (h HistoryRef) Read(journalDir string, key Key) (History, error) {
	lease, declared, events, err := readHistory(journalDir, key, h.id, h.where)
	if err != nil {
		return History{}, err
	}
	out := History{Lease: lease, Declared: declared, Activity: events}
	if lease != nil {
		if g, err := ParseManifest(record.ParseSignedLease(lease).Manifest); err == nil {
			out.Granted = g
		}
	}
	return out, nil
}

// Expand puts a history read back into a reader's own copy of the lease,
// which is then shown as if it had never been compacted.
func (l *LeaseState) Expand(h History) {
	l.Lease, l.Declared, l.Activity = h.Lease, h.Declared, h.Activity
	if h.Granted != nil {
		l.Granted = h.Granted
	}
	l.Compacted = false
}
