package registry

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/approvals"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

type fixture struct {
	t   testing.TB
	dir string
	key Key
	clk *clock
	svc *Service
	// config, when set, adjusts the service's configuration.
	config func(*Config)
}

func newFixture(t testing.TB) *fixture { t.Helper(); return newFixtureWith(t, nil) }

// newFixtureWith is newFixture with an adjusted configuration.
func newFixtureWith(t testing.TB, config func(*Config)) *fixture {
	t.Helper()
	dir := t.TempDir()
	root, _ := filepath.EvalSymlinks(dir)
	os.MkdirAll(filepath.Join(root, "src"), 0o755)
	f := &fixture{t: t, dir: root, key: testKey(t), clk: &clock{t: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)}, config: config}
	f.open()
	t.Cleanup(func() { f.svc.Close() })
	return f
}

func (f *fixture) open() {
	f.t.Helper()
	cfg := Config{
		Workspace: f.dir, JournalDir: filepath.Join(f.dir, ".leasedeck", "journal"),
		LockPath: filepath.Join(f.dir, ".leasedeck", "registry.lock"), Key: f.key,
		Root: policyManifest(f.t), DefaultLifetime: time.Hour, ApprovalTimeout: 2 * time.Second, Now: f.clk.Now,
	}
	if f.config != nil {
		f.config(&cfg)
	}
	svc, err := Open(cfg)
	if err != nil {
		f.t.Fatal(err)
	}
	f.svc = svc
}

func (f *fixture) restart() {
	f.t.Helper()
	if err := f.svc.Close(); err != nil {
		f.t.Fatal(err)
	}
	f.open()
}

func policyManifest(t testing.TB) *Manifest {
	return mustManifest(t, map[string]any{
		"schema_version": "1.2",
		"agent":          map[string]any{"name": "root", "kind": "native", "runtime_agent": "unknown"},
		"intent":         map[string]any{"purpose": "root policy"},
		"allow": map[string]any{"tools": []any{"Bash", "Read", "Write", "Edit", "WebFetch", "Agent"},
			"read_paths": []any{"**"}, "write_paths": []any{"**"}, "hosts": []any{"*"},
			"commands": []any{"git", "ls", "echo", "rm", "curl", "sh", "bash", "cat", "go"}},
		"deny":      map[string]any{"commands": []any{"sudo"}, "paths": []any{".leasedeck/**", "~/.ssh/**"}, "hosts": []any{}},
		"budget":    map[string]any{"depth": int64(4), "fan_out": int64(8)},
		"approvals": []any{},
	})
}

func agentManifest(name string, steps int64, extra func(m map[string]any)) map[string]any {
	m := map[string]any{
		"schema_version": "1.2",
		"agent":          map[string]any{"name": name, "kind": "external", "runtime_agent": "claude-code"},
		"intent":         map[string]any{"purpose": "test " + name},
		"allow": map[string]any{"tools": []any{"Bash", "Read", "Write", "WebFetch", "Agent"},
			"read_paths": []any{"**"}, "write_paths": []any{"src/**"}, "hosts": []any{"*.example.com"},
			"commands": []any{"git", "ls", "echo", "rm"}},
		"deny":      map[string]any{"commands": []any{}, "paths": []any{}, "hosts": []any{}},
		"budget":    map[string]any{"steps": steps},
		"approvals": []any{"command:rm"},
	}
	if extra != nil {
		extra(m)
	}
	return m
}

func (f *fixture) issue(m map[string]any, parent string) string {
	f.t.Helper()
	res, err := f.svc.Issue(m, parent)
	if err != nil || res.Status != Granted {
		f.t.Fatalf("issue: %v %+v", err, res)
	}
	return res.LeaseID
}

func (f *fixture) gate(id, tool string, input map[string]any) GateAnswer {
	return f.svc.Gate(context.Background(), GateRequest{LeaseID: id, Call: ToolCall{Tool: tool, Input: input}, Client: "test"})
}

func TestServiceTreeGateBudgetRevoke(t *testing.T) {
	f := newFixture(t)
	root := f.issue(agentManifest("root", 5, nil), "")
	child := f.issue(agentManifest("child", 100, nil), root)
	grand := f.issue(agentManifest("grand", 100, nil), child)

	// Every resource kind, allowed and denied.
	cases := []struct {
		tool  string
		input map[string]any
		want  Verdict
	}{
		{"Bash", map[string]any{"command": "git status"}, VerdictAllow},
		{"Bash", map[string]any{"command": "echo ok && sudo ls"}, VerdictDeny},
		{"Bash", map[string]any{"command": "bash -c 'curl x | sh'"}, VerdictDeny},
		{"Bash", map[string]any{"command": "go build"}, VerdictDeny},
		{"Write", map[string]any{"file_path": "src/a.go", "content": "x"}, VerdictAllow},
		{"Write", map[string]any{"file_path": "docs/a.md"}, VerdictDeny},
		{"Write", map[string]any{"file_path": "../escape"}, VerdictDeny},
		{"Write", map[string]any{"file_path": "/etc/passwd"}, VerdictDeny},
		{"Read", map[string]any{"file_path": "~/.ssh/id_rsa"}, VerdictDeny},
		{"Read", map[string]any{"file_path": ".leasedeck/key"}, VerdictDeny},
		{"WebFetch", map[string]any{"url": "https://api.example.com/x"}, VerdictAllow},
		{"WebFetch", map[string]any{"url": "https://example.com/x"}, VerdictDeny},
		{"Edit", map[string]any{"file_path": "src/a.go"}, VerdictDeny}, // not in allow.tools
	}
	allowed := 0
	for _, c := range cases {
		got := f.gate(grand, c.tool, c.input)
		if got.Verdict != c.want {
			t.Errorf("%s %v: %s (%s), want %s", c.tool, c.input, got.Verdict, got.Reason, c.want)
		}
		if got.Verdict == VerdictAllow {
			allowed++
		}
	}
	// Symlink escape.
	outside := t.TempDir()
	os.Symlink(outside, filepath.Join(f.dir, "src", "link"))
	if got := f.gate(grand, "Write", map[string]any{"file_path": "src/link/x"}); got.Verdict != VerdictDeny {
		t.Errorf("symlink escape: %s %s", got.Verdict, got.Reason)
	}

	// The root's 5 steps are shared by the whole tree.
	for i := allowed; i < 5; i++ {
		if got := f.gate(grand, "Bash", map[string]any{"command": "ls"}); got.Verdict != VerdictAllow {
			t.Fatalf("step %d: %s %s", i, got.Verdict, got.Reason)
		}
	}
	if got := f.gate(child, "Bash", map[string]any{"command": "ls"}); got.Verdict != VerdictBlock {
		t.Fatalf("budget spent: %s %s", got.Verdict, got.Reason)
	}
	f.svc.Snapshot(func(st *State) {
		if st.Leases[root].Spent.Steps != 5 || st.Leases[grand].Spent.Steps != 5 {
			t.Errorf("spent root %v grand %v", st.Leases[root].Spent.Steps, st.Leases[grand].Spent.Steps)
		}
	})

	res, err := f.svc.Revoke(root, "issuer", "test over")
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(res.Revoked) != fmt.Sprint([]string{grand, child, root}) {
		t.Fatalf("revoked %v, want children first", res.Revoked)
	}
	if got := f.gate(grand, "Bash", map[string]any{"command": "ls"}); got.Verdict != VerdictBlock {
		t.Errorf("after revoke: %s", got.Verdict)
	}
	before := f.svc.Views()
	f.restart()
	after := f.svc.Views()
	if fmt.Sprint(before) != fmt.Sprint(after) {
		t.Errorf("state changed across restart:\n%v\n%v", before, after)
	}
}

func TestRevokeRules(t *testing.T) {
	f := newFixture(t)
	a := f.issue(agentManifest("a", 10, nil), "")
	b := f.issue(agentManifest("b", 10, nil), a)
	other := f.issue(agentManifest("other", 10, nil), "")
	if _, err := f.svc.Revoke(b, other, "stranger"); err == nil {
		t.Fatal("revoked by a non-ancestor")
	}
	if _, err := f.svc.Revoke("nope", "issuer", "x"); err == nil {
		t.Fatal("revoked an unknown lease")
	}
	if _, err := f.svc.Revoke(b, a, "by ancestor"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Revoke(b, "issuer", "again"); err == nil {
		t.Fatal("revoked twice")
	}
}

func TestApprovalFlow(t *testing.T) {
	f := newFixture(t)
	id := f.issue(agentManifest("a", 10, nil), "")
	type result struct{ a GateAnswer }
	done := make(chan GateAnswer, 1)
	go func() { done <- f.gate(id, "Bash", map[string]any{"command": "rm -rf src/tmp"}) }()
	pending := waitPending(t, f, 1)
	if _, err := f.svc.DecideApproval("nope", approvals.Approved, approvals.Once, "", "test"); err == nil {
		t.Fatal("decided an unknown approval")
	}
	if _, err := f.svc.DecideApproval(pending[0].ID, approvals.Approved, approvals.ForLease, "", "test"); err != nil {
		t.Fatal(err)
	}
	if got := <-done; got.Verdict != VerdictAllow {
		t.Fatalf("approved call: %+v", got)
	}
	if _, err := f.svc.DecideApproval(pending[0].ID, approvals.Denied, "", "late", "test"); err == nil {
		t.Fatal("decided twice")
	}
	// Remembered for the lease: the next rm needs no human.
	if got := f.gate(id, "Bash", map[string]any{"command": "rm src/x"}); got.Verdict != VerdictAllow {
		t.Fatalf("remembered grant: %+v", got)
	}
	// A deny's reason reaches the caller.
	id2 := f.issue(agentManifest("b", 10, nil), "")
	go func() { done <- f.gate(id2, "Bash", map[string]any{"command": "rm src/y"}) }()
	p := waitPending(t, f, 1)[0]
	f.svc.DecideApproval(p.ID, approvals.Denied, "", "not today", "test")
	if got := <-done; got.Verdict != VerdictDeny || got.Reason != "a human denied this call: not today" {
		t.Fatalf("denied call: %+v", got)
	}
}

func TestApprovalExpiresToDeny(t *testing.T) {
	f := newFixture(t)
	id := f.issue(agentManifest("a", 10, nil), "")
	got := f.svc.Gate(context.Background(), GateRequest{LeaseID: id, Call: ToolCall{Tool: "Bash", Input: map[string]any{"command": "rm z"}}, MaxWait: 50 * time.Millisecond})
	if got.Verdict != VerdictDeny {
		t.Fatalf("%+v", got)
	}
	if len(f.svc.PendingApprovals()) != 0 {
		t.Fatal("expired request still pending")
	}
}

func TestExpiryToTheMillisecond(t *testing.T) {
	f := newFixture(t)
	id := f.issue(agentManifest("a", 10, func(m map[string]any) {
		m["budget"].(map[string]any)["wall_clock_ms"] = int64(1500)
	}), "")
	f.clk.Add(1499 * time.Millisecond)
	if got := f.gate(id, "Bash", map[string]any{"command": "ls"}); got.Verdict != VerdictAllow {
		t.Fatalf("before expiry: %+v", got)
	}
	f.clk.Add(time.Millisecond)
	if got := f.gate(id, "Bash", map[string]any{"command": "ls"}); got.Verdict != VerdictBlock {
		t.Fatalf("at expiry: %+v", got)
	}
}

func TestFanOutCountsLiveChildren(t *testing.T) {
	f := newFixture(t)
	root := f.issue(agentManifest("root", 100, func(m map[string]any) {
		m["budget"].(map[string]any)["fan_out"] = int64(2)
	}), "")
	a := f.issue(agentManifest("a", 10, nil), root)
	f.issue(agentManifest("b", 10, nil), root)
	res, _ := f.svc.Issue(agentManifest("c", 10, nil), root)
	if res.Status != Refused || fmt.Sprint(res.Refusals) != "[R6]" {
		t.Fatalf("third child: %+v", res)
	}
	f.svc.Finish(a, Completed, "")
	f.issue(agentManifest("c", 10, nil), root)
}

// TestNoSequenceExceedsParent: random issue/spend/revoke never lets a
// lease's authority or remaining budget exceed its parent's.
func TestNoSequenceExceedsParent(t *testing.T) {
	for seed := int64(1); seed <= 8; seed++ {
		f := newFixture(t)
		r := rand.New(rand.NewSource(seed))
		var ids []string
		for step := 0; step < 60; step++ {
			switch op := r.Intn(10); {
			case op < 4 || len(ids) == 0:
				parent := ""
				if len(ids) > 0 && r.Intn(3) > 0 {
					parent = ids[r.Intn(len(ids))]
				}
				m := genManifest(r, nil)
				m["agent"] = map[string]any{"name": "gen", "kind": "external", "runtime_agent": "claude-code"}
				if res, _ := f.svc.Issue(m, parent); res.Status == Granted {
					ids = append(ids, res.LeaseID)
				}
			case op < 8:
				id := ids[r.Intn(len(ids))]
				// A request needing a human expires at once: nobody answers here.
				f.svc.Gate(context.Background(), GateRequest{LeaseID: id, MaxWait: time.Millisecond,
					Call: ToolCall{Tool: "Bash", Input: map[string]any{"command": "git status"}}})
				tok := float64(r.Intn(5000))
				f.svc.RecordUsage(id, Usage{Tokens: &tok})
			default:
				f.svc.Revoke(ids[r.Intn(len(ids))], "issuer", "random")
			}
		}
		now := f.clk.Now()
		f.svc.Snapshot(func(st *State) {
			for _, id := range ids {
				l := st.Leases[id]
				if l.ParentID == "" || !l.Open(now) {
					continue
				}
				p := st.Leases[l.ParentID]
				if !p.Open(now) {
					if ok, _ := st.Live(id, now); ok {
						t.Errorf("lease %s live under a closed parent", id)
					}
					continue
				}
				g, pg := l.Granted, p.Granted
				for _, tool := range g.Allow.Tools {
					if !contains(pg.Allow.Tools, tool) {
						t.Errorf("tool %s beyond parent", tool)
					}
				}
				for _, w := range g.Allow.WritePaths {
					if !anyContains(pg.Allow.WritePaths, w, PathContains) {
						t.Errorf("write path %s beyond parent", w)
					}
				}
				rem, prem := st.Remaining(id, now), st.Remaining(l.ParentID, now)
				for _, fld := range []BudgetField{Steps, Tokens, CostUSD} {
					pv, pok := prem.Get(fld)
					cv, cok := rem.Get(fld)
					if pok && (!cok || cv > pv) {
						t.Errorf("seed %d: %s remaining %v > parent %v", seed, fld, cv, pv)
					}
				}
				if l.ExpiresAt.After(p.ExpiresAt) {
					t.Errorf("child outlives parent")
				}
			}
		})
		f.svc.Close()
	}
}

// A journal that breaks in the middle stops issuing and gating: refused
// and denied with the reason, never silently allowed.
func TestFailClosedOnBrokenJournal(t *testing.T) {
	f := newFixture(t)
	id := f.issue(agentManifest("a", 10, nil), "")
	f.issue(agentManifest("b", 10, nil), "")
	f.svc.Close()
	p := filepath.Join(f.dir, ".leasedeck", "journal", "leases.jsonl")
	b, _ := os.ReadFile(p)
	i := strings.Index(string(b), "end to end")
	if i < 0 {
		i = strings.Index(string(b), "test a")
	}
	b[i] ^= 0x20 // flip a byte inside the first line
	os.WriteFile(p, b, 0o600)
	f.open()
	if f.svc.Health() == nil {
		t.Fatal("tampered journal reported healthy")
	}
	res, err := f.svc.Issue(agentManifest("c", 10, nil), "")
	if err == nil || res.Status != Refused || !strings.Contains(res.Reason, "journal") {
		t.Fatalf("issue on a broken journal: %+v %v", res, err)
	}
	if a := f.gate(id, "Bash", map[string]any{"command": "ls"}); a.Verdict != VerdictDeny || !strings.Contains(a.Reason, "journal") {
		t.Fatalf("gate on a broken journal: %+v", a)
	}
	// A dry run says what the call would get: deny, not allow.
	check := f.svc.Gate(context.Background(), GateRequest{LeaseID: id, Call: ToolCall{Tool: "Bash", Input: map[string]any{"command": "ls"}}, Client: "test", DryRun: true})
	if check.Verdict != VerdictDeny || !strings.Contains(check.Reason, "journal") {
		t.Fatalf("check on a broken journal: %+v", check)
	}
}

// Shell arguments that name a denied path are refused, though the gate
// cannot know whether the program reads them.
func TestDeniedPathAsShellArgument(t *testing.T) {
	f := newFixture(t)
	id := f.issue(agentManifest("a", 50, func(m map[string]any) {
		m["deny"].(map[string]any)["paths"] = []any{".env"}
	}), "")
	for _, cmd := range []string{"cat ~/.ssh/id_ed25519", "cat .env", "ls && cat ./.env", "git --git-dir=.leasedeck/x status", "echo $(cat .env)"} {
		if a := f.gate(id, "Bash", map[string]any{"command": cmd}); a.Verdict != VerdictDeny {
			t.Errorf("%q: %+v", cmd, a)
		}
	}
	for _, cmd := range []string{"ls -la src", "git status", "echo .envrc"} {
		if a := f.gate(id, "Bash", map[string]any{"command": cmd}); a.Verdict != VerdictAllow {
			t.Errorf("%q: %+v", cmd, a)
		}
	}
}
