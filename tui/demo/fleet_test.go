package demo

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/journal"
	"github.com/leasedeck/leasedeck/registry"
	"github.com/leasedeck/leasedeck/workspace"
)

// The fleet against a real registry over a real socket: every kind of
// decision the demo promises shows up in the journal, and calls that need
// a human wait until one decides.
func TestFleetDrivesTheRealProtocol(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "cfg"))
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	res, err := workspace.Init(dir)
	if err != nil {
		t.Fatal(err)
	}
	w := res.Workspace
	settings, _ := w.LoadSettings()
	key, _ := w.LoadKey()
	svc, err := registry.Open(registry.Config{Workspace: w.Root, JournalDir: w.JournalDir(), LockPath: w.LockPath(),
		Key: key, Root: settings.Root, ApprovalTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	l, err := registry.Listen(w.SocketPath())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); registry.NewHandler(svc, "tok").Serve(ctx, l) }()
	var errs []string
	var mu sync.Mutex
	f := &Fleet{Socket: w.SocketPath(), Agents: 4, Pace: 15 * time.Millisecond,
		Manifest: func(c string) (map[string]any, error) {
			v, err := w.LoadAgent(c)
			m, _ := v.(map[string]any)
			return m, err
		},
		Errorf: func(format string, args ...any) {
			mu.Lock()
			defer mu.Unlock()
			if ctx.Err() == nil {
				errs = append(errs, format)
			}
		}}
	go func() { defer wg.Done(); f.Run(ctx) }()

	// Requests wait for a human; approve each one that appears.
	approved := 0
	deadline := time.Now().Add(20 * time.Second)
	for approved < 4 && time.Now().Before(deadline) {
		for _, a := range svc.PendingApprovals() {
			if _, err := svc.DecideApproval(a.ID, "approved", "once", "", "test"); err == nil {
				approved++
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	cancel()
	wg.Wait()
	if approved < 4 {
		t.Errorf("only %d approval requests in 20 s", approved)
	}
	if len(errs) > 0 {
		t.Errorf("fleet errors: %v", errs)
	}

	seen := map[string]int{}
	for _, k := range journal.Kinds {
		lines, _, err := journal.ReadFrom(filepath.Join(w.JournalDir(), k.FileName()), 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, ln := range lines {
			v := ln.Value
			if k == journal.Leases {
				ev := v["event"].(string)
				seen["lease:"+ev]++
				if ev == "refused" && strings.Contains(v["reason"].(string), "R2") {
					seen["refused R2"]++
				}
				if ev == "revoked" && strings.Contains(v["reason"].(string), "scope violation") {
					seen["scope violation revoked"]++
				}
				if ev == "granted" {
					if lease := v["lease"].(map[string]any); lease["parent_lease_id"] != nil {
						seen["child lease"]++
					}
				}
				continue
			}
			et := v["event_type"].(string)
			seen[et]++
			if d, _ := v["details"].(map[string]any); d != nil && et == registry.EventBudgetSpent && d["accurate"] == false {
				seen["estimate"]++
			}
		}
	}
	for _, want := range []string{"lease:granted", "lease:narrowed", "child lease", "refused R2", "scope violation revoked",
		"lease:completed", registry.EventGateAllowed, registry.EventGateDenied, registry.EventApprovalAsked,
		registry.EventApprovalDecided, registry.EventBudgetSpent, "estimate", registry.EventToolReported,
		registry.EventSessionBegun, registry.EventSessionFinalized} {
		if seen[want] == 0 {
			t.Errorf("the demo produced no %s", want)
		}
	}
	t.Logf("%v", seen)
}
