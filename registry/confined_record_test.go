package registry

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/leasedeck/leasedeck/approvals"
	"github.com/leasedeck/leasedeck/journal"
	"github.com/leasedeck/leasedeck/registry/wire"
)

// How a run is confined is journaled: a restarted registry, and a reader
// folding the journal (the cockpit), show it for the run's lease and the
// leases beneath it; the end of the run is kept too.
func TestConfinementSurvivesARestart(t *testing.T) {
	for _, c := range []struct {
		name string
		rec  wire.Confinement
	}{
		{"landlock and namespace", wire.Confinement{Confined: true, LandlockABI: 6, MountNamespace: true, Narrowed: 2, Network: "proxy 127.0.0.1:4000 (Landlock TCP)"}},
		{"allow-unconfined", wire.Confinement{Reason: "--allow-unconfined: this kernel has no Landlock", Network: "proxy offered, not enforced"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, _ := snapshotted(t)
			sock := served(t, f)
			ctx := context.Background()
			op := dialTest(t, sock, testToken)
			run, err := op.RunBegin(ctx, wire.RunBeginParams{Client: "claude-code", Manifest: wire.DocOf(agentManifest("run", 100, nil))})
			if err != nil || run.Ticket == "" {
				t.Fatalf("run begin: %+v %v", run, err)
			}
			lease := run.Issue.LeaseID
			if v, _ := f.svc.View(lease); v.Confinement == nil || v.Confinement.Confined {
				t.Fatalf("before the run reports: %+v", v.Confinement)
			}
			if err := op.RunConfined(ctx, wire.RunConfinedParams{LeaseID: lease, Confinement: c.rec}); err != nil {
				t.Fatal(err)
			}
			child := f.issue(agentManifest("inner", 10, nil), lease)
			want := c.rec
			want.RunLeaseID = lease
			check := func(when string, ended bool) {
				t.Helper()
				w := want
				w.Ended = ended
				for _, id := range []string{lease, child} {
					v, ok := f.svc.View(id)
					if !ok || v.Confinement == nil || *v.Confinement != w {
						t.Errorf("%s, lease %s: %+v, want %+v", when, id[:8], v.Confinement, w)
					}
				}
				// A reader of the files folds the same record.
				st, book := NewState(), approvals.New()
				dir := filepath.Join(f.dir, ".leasedeck", "journal")
				for _, k := range journal.Kinds {
					journal.Scan(filepath.Join(dir, k.FileName()), 0, func(l *journal.Line) error {
						Fold(st, book, k, l.Value)
						return nil
					})
				}
				if got := st.ConfinementOf(child); got == nil || *got != w {
					t.Errorf("%s, folded from the journal: %+v, want %+v", when, got, w)
				}
			}
			check("while serving", false)
			f.restart()
			check("after a restart", false)
			// A start from a snapshot keeps it too.
			if _, err := f.svc.WriteSnapshot(); err != nil {
				t.Fatal(err)
			}
			f.restart()
			check("after a start from a snapshot", false)
			sock = served(t, f)
			op = dialTest(t, sock, testToken)
			// The restarted registry serves no run: the run cannot report.
			if err := op.RunEnd(ctx, wire.RunEndParams{LeaseID: lease, Reason: "done"}); wire.CodeOf(err) != wire.UnknownLease {
				t.Fatalf("run end after a restart: %v", err)
			}
		})
	}
}

// The end of a run is folded: the record says the run ended.
func TestConfinementRecordsTheEndOfARun(t *testing.T) {
	f := newFixture(t)
	sock := served(t, f)
	ctx := context.Background()
	op := dialTest(t, sock, testToken)
	run, err := op.RunBegin(ctx, wire.RunBeginParams{Client: "claude-code", Manifest: wire.DocOf(agentManifest("run", 100, nil))})
	if err != nil {
		t.Fatal(err)
	}
	lease := run.Issue.LeaseID
	op.RunConfined(ctx, wire.RunConfinedParams{LeaseID: lease, Confinement: wire.Confinement{Confined: true, LandlockABI: 4}})
	if err := op.RunEnd(ctx, wire.RunEndParams{LeaseID: lease, Reason: "the client exited"}); err != nil {
		t.Fatal(err)
	}
	f.restart()
	v, _ := f.svc.View(lease)
	if v.Confinement == nil || !v.Confinement.Ended || !v.Confinement.Confined || v.Confinement.LandlockABI != 4 {
		t.Fatalf("after the run ended and a restart: %+v", v.Confinement)
	}
}
