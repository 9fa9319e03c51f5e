package tui

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/registry"
	"github.com/leasedeck/leasedeck/workspace"
)

// snapshotJournal has a registry write leases and decisions, a snapshot,
// then more lines after it. It returns the journal and where its
// snapshots are.
func snapshotJournal(t *testing.T) (dir string, src registry.SnapshotSource, revoked string) {
	t.Helper()
	ws, state := t.TempDir(), t.TempDir()
	dir = filepath.Join(ws, ".leasedeck", "journal")
	clk := &clock{t: t0}
	root, err := registry.ParseManifest(workspace.DefaultPolicy()["root"])
	if err != nil {
		t.Fatal(err)
	}
	src = registry.SnapshotSource{Dir: filepath.Join(state, "snapshots"), Key: testKey(t), Workspace: ws, JournalDir: dir,
		HeadPath: filepath.Join(state, "journal.head")}
	svc, err := registry.Open(registry.Config{Workspace: ws, JournalDir: dir, LockPath: filepath.Join(ws, ".leasedeck", "registry.lock"),
		Key: testKey(t), Root: root, Now: clk.Now, HeadPath: src.HeadPath, SnapshotDir: src.Dir, SnapshotEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	issue := func(name, parent string) string {
		res, err := svc.Issue(declared("claude-code", name, "work on "+name, nil), parent)
		if err != nil {
			t.Fatal(err)
		}
		return res.LeaseID
	}
	gate := func(lease, path string) {
		svc.Gate(context.Background(), registry.GateRequest{LeaseID: lease, Call: registry.ToolCall{Tool: "Read", Input: map[string]any{"file_path": path}}, Client: "claude-code"})
	}
	a := issue("first", "")
	b := issue("second", a)
	for i := 0; i < 5; i++ {
		clk.Set(t0.Add(time.Duration(i) * time.Second))
		gate(a, "src/a.go")
		gate(b, "src/b.go")
	}
	if _, err := svc.Revoke(b, "", "no longer needed"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.WriteSnapshot(); err != nil {
		t.Fatal(err)
	}
	c := issue("third, after the snapshot", "")
	gate(c, "src/c.go")
	gate(a, "src/a2.go")
	return dir, src, b
}

func loadWith(t *testing.T, dir string, src *registry.SnapshotSource) *model {
	t.Helper()
	f := &feeder{Dir: dir, Key: testKeyBytes, Snapshots: src}
	msg, _, err := f.load(newChainCheck(testKeyBytes))
	if err != nil {
		t.Fatal(err)
	}
	if len(msg.Breaks) > 0 {
		t.Fatalf("breaks: %v", msg.Breaks)
	}
	if (msg.Start != nil) != (src != nil) {
		t.Fatalf("start %v with source %v", msg.Start, src)
	}
	if src != nil && len(msg.Entries) > 6 {
		t.Fatalf("from a snapshot the load read %d lines, not only the tail", len(msg.Entries))
	}
	k := testKey(t)
	m := newModel(Options{JournalDir: dir, Key: &k, now: func() time.Time { return t0 }})
	m.Update(msg)
	return m
}

// The cockpit started from a snapshot shows the tree a full load shows
// (every lease, its status, spend and place), having read only the lines
// after the snapshot; a closed lease's history is read back from the
// journal when it is selected and is then what the full load has.
func TestCockpitStartsFromTheSnapshot(t *testing.T) {
	dir, src, revoked := snapshotJournal(t)
	full := loadWith(t, dir, nil)
	snap := loadWith(t, dir, &src)
	if !reflect.DeepEqual(full.deck.St.Order, snap.deck.St.Order) || !reflect.DeepEqual(full.deck.Roots(), snap.deck.Roots()) {
		t.Fatalf("tree: %v / %v", full.deck.St.Order, snap.deck.St.Order)
	}
	for _, id := range full.deck.St.Order {
		f, s := full.deck.St.Leases[id], snap.deck.St.Leases[id]
		if f.Status != s.Status || f.Spent != s.Spent || f.Decisions != s.Decisions || !reflect.DeepEqual(full.deck.Children(id), snap.deck.Children(id)) {
			t.Fatalf("lease %s: %+v / %+v", id, f, s)
		}
		// The Budget tab's spend over time starts at the issue, not at the
		// snapshot's position.
		now := t0.Add(10 * time.Second)
		fv, sv := computeBudget(full.deck, f, now, 40), computeBudget(snap.deck, s, now, 40)
		if !reflect.DeepEqual(fv.Sparkline, sv.Sparkline) || !reflect.DeepEqual(fv.Tokens, sv.Tokens) {
			t.Fatalf("lease %s spend over time: full %v, from the snapshot %v", id, fv.Sparkline, sv.Sparkline)
		}
		if total(sv.Sparkline) != f.Spent.Steps-childSteps(full.deck.St, id) {
			t.Fatalf("lease %s: the sparkline holds %v steps, its own charges are %v", id, total(sv.Sparkline), f.Spent.Steps-childSteps(full.deck.St, id))
		}
	}
	l := snap.deck.St.Leases[revoked]
	if !l.Compacted || l.Activity != nil {
		t.Fatalf("the revoked lease came out of the snapshot whole: %+v", l)
	}
	cmd := snap.ensureHistory(revoked)
	if cmd == nil {
		t.Fatal("no history read for a compacted lease")
	}
	snap.Update(cmd())
	want := full.deck.St.Leases[revoked]
	if l.Compacted || !reflect.DeepEqual(l.Activity, want.Activity) || !reflect.DeepEqual(l.Lease, want.Lease) || len(l.Activity) != 5 {
		t.Fatalf("history: %d decisions, lease %v", len(l.Activity), l.Lease != nil)
	}
	if snap.ensureHistory(revoked) != nil {
		t.Fatal("the history was asked for twice")
	}
}

// A snapshot the journal does not agree with is not used: the cockpit
// loads every line, as without one.
func TestCockpitIgnoresASnapshotOfAnotherJournal(t *testing.T) {
	dir, src, _ := snapshotJournal(t)
	other := src
	other.Key = registry.Key{}
	if k, err := registry.NewKey([]byte("another-key-another-workspace-00"), false); err == nil {
		other.Key = k
	}
	f := &feeder{Dir: dir, Key: testKeyBytes, Snapshots: &other}
	msg, _, err := f.load(newChainCheck(testKeyBytes))
	if err != nil || msg.Start != nil || len(msg.Entries) < 20 {
		t.Fatalf("start %v, %d lines, %v", msg.Start, len(msg.Entries), err)
	}
}

func total(v []float64) (n float64) {
	for _, x := range v {
		n += x
	}
	return n
}

// childSteps is what a lease's children charged up to it.
func childSteps(st *registry.State, id string) (n float64) {
	for _, c := range st.Leases[id].Children {
		n += st.Leases[c].Spent.Steps
	}
	return n
}
