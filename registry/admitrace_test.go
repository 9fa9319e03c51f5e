package registry

import (
	"sync"
	"testing"
)

// Copilot CLI starts a session's hooks without waiting for one another:
// its SessionStart and its first prompt reach the registry at the same
// moment, each as a session the registry has not seen. The session gets
// one lease, never two (the second would leave the first live and
// orphaned, outside every later close).
func TestConcurrentAdmitsOfANewSessionIssueOneLease(t *testing.T) {
	f := newFixture(t)
	man := agentManifest("copilot", 100, nil)
	for round := 0; round < 20; round++ {
		session := "copilot-session-" + string(rune('a'+round))
		var wg sync.WaitGroup
		leases := make([]string, 8)
		errs := make([]error, 8)
		for i := range leases {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				res, err := f.svc.Admit(AdmitRequest{Client: "copilot", Session: session, Manifest: man, NoTurn: i%2 == 0, Prompt: "go"})
				leases[i], errs[i] = res.LeaseID, err
			}(i)
		}
		wg.Wait()
		seen := map[string]bool{}
		for i, l := range leases {
			if errs[i] == nil && l != "" {
				seen[l] = true
			}
		}
		if len(seen) != 1 {
			t.Fatalf("round %d: %d leases for one session: %v (errors %v)", round, len(seen), seen, errs)
		}
	}
}
