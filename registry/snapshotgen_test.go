package registry_test

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/leasedeck/leasedeck/journal"
	"github.com/leasedeck/leasedeck/registry"
	"github.com/leasedeck/leasedeck/registry/journalgen"
)

// On a generated journal (thousands of lines: leases issued, refused,
// narrowed, children, revoked, expired and completed, turns, gate
// decisions, reports, usage), a snapshot taken at any of many positions
// plus the replay of the lines after it rebuilds exactly the state of a
// full replay. The positions are those a registry can be at: a replay
// folds leases.jsonl before audit.jsonl, so a snapshot of the whole lease
// file and any prefix of the audit file, or of a prefix of the lease file
// and no audit line, is one some registry could have taken.
func TestSnapshotOfAGeneratedJournalAtManyPositions(t *testing.T) {
	g := generate(t, journalgen.Options{Lines: 3000, Seed: 3})
	cfg := func(snapDir string) registry.Config {
		return registry.Config{Workspace: g.dir, JournalDir: g.journal, LockPath: filepath.Join(g.dir, "registry.lock"),
			Key: g.key, Root: journalgen.RootPolicy(), SnapshotDir: snapDir, SnapshotEvery: -1}
	}
	full, err := registry.FoldForTest(cfg(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	lease := uint64(g.stats.LeaseLines)
	audit := uint64(g.stats.AuditLines)
	rng := rand.New(rand.NewSource(11))
	positions := [][2]uint64{{0, 0}, {lease, 0}, {lease, audit}, {1, 0}, {lease, 1}}
	for i := 0; i < 8; i++ {
		positions = append(positions, [2]uint64{lease, 1 + uint64(rng.Int63n(int64(audit)))})
		positions = append(positions, [2]uint64{1 + uint64(rng.Int63n(int64(lease))), 0})
	}
	for _, p := range positions {
		t.Run(fmt.Sprintf("leases %d audit %d", p[journal.Leases], p[journal.Audit]), func(t *testing.T) {
			dir := t.TempDir()
			if _, err := registry.WritePrefixSnapshot(cfg(dir), p); err != nil {
				t.Fatal(err)
			}
			got, err := registry.FoldForTest(cfg(dir))
			if err != nil {
				t.Fatal(err)
			}
			want := int(lease-p[journal.Leases]) + int(audit-p[journal.Audit])
			if !got.Start.FromSnapshot || got.Start.Replayed != want {
				t.Fatalf("start %+v, want %d lines replayed from the snapshot", got.Start, want)
			}
			if !reflect.DeepEqual(full.State, got.State) || !reflect.DeepEqual(full.Book, got.Book) {
				t.Fatal("the state from the snapshot and the tail differs from the full replay's")
			}
		})
	}
}
