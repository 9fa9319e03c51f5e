package registry

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/registry/wire"
)

// twentyGlobs makes a lease whose allow lists hold 20 globs.
func twentyGlobs(m map[string]any) {
	var globs []any
	for i := 0; i < 19; i++ {
		globs = append(globs, fmt.Sprintf("pkg%02d/**", i))
	}
	globs = append(globs, "src/**")
	a := m["allow"].(map[string]any)
	a["write_paths"], a["read_paths"] = globs, globs
}

// BenchmarkGateInProcess is the decision Gate takes for a Write under a
// lease with 20 globs — the call's facts (size, summary, secret scan,
// resources) and the lease and call rules — without the journal.
func BenchmarkGateInProcess(b *testing.B) {
	f := newFixture(b)
	id := f.issue(agentManifest("bench", 1<<40, twentyGlobs), "")
	call := ToolCall{Tool: "Write", Input: map[string]any{"file_path": "src/pkg/file.go", "content": "x"}}
	now := f.clk.Now()
	b.ReportAllocs()
	for b.Loop() {
		facts := f.svc.factsOf(call)
		f.svc.mu.Lock()
		res := f.svc.cfg.Calls.decide(f.svc.st, id, call, facts, now, f.svc.book.Covered)
		f.svc.mu.Unlock()
		if res.Verdict != VerdictAllow {
			b.Fatal(res.Reason)
		}
	}
}

// BenchmarkGateInProcessBash is the same for a Bash command line.
func BenchmarkGateInProcessBash(b *testing.B) {
	f := newFixture(b)
	id := f.issue(agentManifest("bench", 1<<40, twentyGlobs), "")
	call := ToolCall{Tool: "Bash", Input: map[string]any{"command": "git status"}}
	now := f.clk.Now()
	b.ReportAllocs()
	for b.Loop() {
		facts := f.svc.factsOf(call)
		f.svc.mu.Lock()
		res := f.svc.cfg.Calls.decide(f.svc.st, id, call, facts, now, f.svc.book.Covered)
		f.svc.mu.Unlock()
		if res.Verdict != VerdictAllow {
			b.Fatal(res.Reason)
		}
	}
}

func serveFixture(b *testing.B, f *fixture) string {
	sock := filepath.Join(b.TempDir(), "r.sock")
	l, err := Listen(sock)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := NewHandler(f.svc, "tok")
	go h.Serve(ctx, l)
	b.Cleanup(cancel)
	return sock
}

// BenchmarkGateOverSocket is a full gate: socket round trip, decision,
// the audit line written and fsync'd, the answer.
func BenchmarkGateOverSocket(b *testing.B) {
	f := newFixture(b)
	id := f.issue(agentManifest("bench", 1<<40, twentyGlobs), "")
	c, err := wire.Dial(serveFixture(b, f), time.Second)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	c.SetToken("tok")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		ans, err := c.Gate(ctx, wire.GateParams{LeaseID: id, Tool: "Write",
			Input: wire.DocOf(map[string]any{"file_path": "src/a.go", "content": "x"})})
		if err != nil || ans.Verdict != wire.VerdictAllow {
			b.Fatal(err, ans)
		}
	}
}

// BenchmarkCascadeRevoke10k revokes the root of a 10,000-lease subtree
// (a root with 8 children, each a chain of 1,249 leases... built as a
// wide tree within the depth and fan-out ceilings is impossible, so the
// tree is loaded into the state directly and only the revocation — the
// subtree walk, 10,000 records, the journal batch — is measured).
func BenchmarkCascadeRevoke10k(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		f := newFixture(b)
		root := f.issue(agentManifest("root", 1<<40, nil), "")
		f.svc.mu.Lock()
		parents := []string{root}
		n := 1
		for n < 10000 {
			var next []string
			for _, p := range parents {
				for k := 0; k < 8 && n < 10000; k++ {
					id := NewLeaseID()
					pl := f.svc.st.Leases[p]
					l := &LeaseState{ID: id, ParentID: p, Status: Granted, Granted: pl.Granted, IssuedAt: pl.IssuedAt, ExpiresAt: pl.ExpiresAt}
					f.svc.st.add(l)
					next = append(next, id)
					n++
				}
			}
			parents = next
		}
		f.svc.mu.Unlock()
		b.StartTimer()
		res, err := f.svc.Revoke(root, "issuer", "bench")
		if err != nil || len(res.Revoked) != 10000 {
			b.Fatal(err, len(res.Revoked))
		}
		b.StopTimer()
		f.svc.Close()
		b.StartTimer()
	}
}

// BenchmarkSubtreeWalk10k is the cascade's in-memory part alone.
func BenchmarkSubtreeWalk10k(b *testing.B) {
	st := NewState()
	st.add(&LeaseState{ID: "root", Status: Granted})
	parents := []string{"root"}
	n := 1
	for n < 10000 {
		var next []string
		for _, p := range parents {
			for k := 0; k < 8 && n < 10000; k++ {
				id := fmt.Sprint(n)
				st.add(&LeaseState{ID: id, ParentID: p, Status: Granted})
				next = append(next, id)
				n++
			}
		}
		parents = next
	}
	b.ReportAllocs()
	for b.Loop() {
		if len(st.Subtree("root")) != 10000 {
			b.Fatal("wrong size")
		}
	}
}

// BenchmarkIssueConcurrent8 is issue throughput with 8 concurrent socket
// clients (each issue writes and fsyncs its `granted` line).
func BenchmarkIssueConcurrent8(b *testing.B) {
	f := newFixture(b)
	sock := serveFixture(b, f)
	clients := make([]*wire.Client, 8)
	for i := range clients {
		c, err := wire.Dial(sock, time.Second)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		clients[i] = c
	}
	m := agentManifest("bench", 100, nil)
	var next sync.Mutex
	count := 0
	b.ResetTimer()
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Add(1)
		go func(c *wire.Client) {
			defer wg.Done()
			for {
				next.Lock()
				if count >= b.N {
					next.Unlock()
					return
				}
				count++
				next.Unlock()
				res, err := c.Issue(context.Background(), wire.IssueParams{Manifest: wire.DocOf(m)})
				if err != nil || res.Status != wire.Granted {
					b.Error(err, res.Reason)
					return
				}
			}
		}(c)
	}
	wg.Wait()
}

var _ net.Listener
