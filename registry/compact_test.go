package registry_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/approvals"
	"github.com/leasedeck/leasedeck/journal"
	"github.com/leasedeck/leasedeck/registry"
	"github.com/leasedeck/leasedeck/registry/journalgen"
)

type generated struct {
	dir, journal string
	key          registry.Key
	stats        journalgen.Stats
}

func generate(t testing.TB, opt journalgen.Options) generated {
	t.Helper()
	dir := t.TempDir()
	kb, err := registry.NewRandomKey()
	if err != nil {
		t.Fatal(err)
	}
	key, err := registry.NewKey(kb, false)
	if err != nil {
		t.Fatal(err)
	}
	g := generated{dir: dir, journal: filepath.Join(dir, "journal"), key: key}
	if g.stats, err = journalgen.Generate(g.journal, key, opt); err != nil {
		t.Fatal(err)
	}
	return g
}

func (g generated) open(t testing.TB) *registry.Service {
	t.Helper()
	svc, err := registry.Open(registry.Config{Workspace: g.dir, JournalDir: g.journal, LockPath: filepath.Join(g.dir, "registry.lock"),
		Key: g.key, Root: journalgen.RootPolicy()})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Health(); err != nil {
		t.Fatal(err)
	}
	return svc
}

// foldInMemory folds the journal as a reader that does not know where
// its lines are (the cockpit): nothing is compacted.
func (g generated) foldInMemory(t testing.TB) *registry.State {
	t.Helper()
	st, book := registry.NewState(), approvals.New()
	for _, k := range journal.Kinds {
		_, err := journal.Scan(filepath.Join(g.journal, k.FileName()), 0, func(l *journal.Line) error {
			return registry.Fold(st, book, k, l.Value)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return st
}

func heap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// A closed lease keeps its status, spend and summary in memory and
// nothing else: what it did is read back from the journal on demand.
func TestClosedLeasesAreCompacted(t *testing.T) {
	g := generate(t, journalgen.Options{Lines: 10_000, Leases: 50, Seed: 7})

	before := heap()
	full := g.foldInMemory(t)
	fullBytes := heap() - before

	before = heap()
	svc := g.open(t)
	defer svc.Close()
	compactBytes := heap() - before

	closed := 0
	svc.Snapshot(func(st *registry.State) {
		for _, l := range st.Leases {
			if l.Status != registry.Granted {
				closed++
				if !l.Compacted || l.Lease != nil || l.Declared != nil || l.Activity != nil {
					t.Fatalf("closed lease %s is not compacted", l.ID)
				}
			} else if l.Compacted {
				t.Fatalf("open lease %s is compacted", l.ID)
			}
		}
	})
	perFull, perCompact := fullBytes/uint64(closed), compactBytes/uint64(closed)
	t.Logf("%d closed leases: %d bytes each in memory whole, %d compacted", closed, perFull, perCompact)
	if closed < 35 || perCompact*4 > perFull {
		t.Fatalf("compaction saves too little: %d bytes a closed lease whole, %d compacted", perFull, perCompact)
	}
	runtime.KeepAlive(full)

	// The history read back is the history folded in memory.
	for i, id := range full.Order {
		if i%5 != 0 {
			continue // a sample: each read is a real read of the files
		}
		want := full.View(full.Leases[id], time.Now(), true)
		got, ok := svc.View(id)
		if !ok || got.HistoryError != "" {
			t.Fatalf("%s: %v %s", id, ok, got.HistoryError)
		}
		for _, pair := range [][2]any{{want.Lease, got.Lease}, {want.Declared, got.Declared}, {want.LastDecisions, got.LastDecisions},
			{want.Agent, got.Agent}, {want.Purpose, got.Purpose}, {want.Spent, got.Spent}} {
			a, _ := json.Marshal(pair[0])
			b, _ := json.Marshal(pair[1])
			if string(a) != string(b) {
				t.Fatalf("%s: read back\n%s\nwant\n%s", id, b, a)
			}
		}
	}
}

// History read back from a file changed after it was written is not
// shown: the view says why instead.
func TestCompactedHistoryIsChecked(t *testing.T) {
	g := generate(t, journalgen.Options{Lines: 4_000, Leases: 20, Seed: 3})
	if r := registry.VerifyJournal(g.journal, &g.key, journal.VerifyOptions{}); !r.OK() {
		t.Fatalf("the generated journal does not verify: %v", r.Breaks)
	}
	svc := g.open(t)
	defer svc.Close()
	var id string
	svc.Snapshot(func(st *registry.State) {
		for _, l := range st.Sorted() {
			if l.Compacted && l.Decisions > 5 {
				id = l.ID
				break
			}
		}
	})
	if v, _ := svc.View(id); id == "" || len(v.LastDecisions) == 0 || v.HistoryError != "" {
		t.Fatalf("no compacted lease with history to tamper with (%s): %+v", id, v.HistoryError)
	}
	path := filepath.Join(g.journal, journal.AuditFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Rewrite every "within the lease" reason: same length, valid JSON,
	// but no longer what was maced.
	n := 0
	for i := 0; i+len("within the lease") <= len(b); i++ {
		if string(b[i:i+len("within the lease")]) == "within the lease" {
			copy(b[i:], "WITHIN THE LEASE")
			n++
		}
	}
	if n == 0 {
		t.Fatal("nothing to tamper with")
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	v, _ := svc.View(id)
	if v.HistoryError == "" || len(v.LastDecisions) != 0 {
		t.Fatalf("a tampered history was shown: %d decisions, error %q", len(v.LastDecisions), v.HistoryError)
	}
}
