package tui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/journal"
	"github.com/leasedeck/leasedeck/registry"
	"github.com/leasedeck/leasedeck/registry/wire"
	"github.com/leasedeck/leasedeck/workspace"
)

// t0 is the fixtures' clock: every golden is drawn at a fixed time.
var t0 = time.Date(2026, 3, 14, 9, 30, 0, 0, time.UTC)

var testKeyBytes = bytes.Repeat([]byte{0x5a}, 32)

func testKey(t testing.TB) registry.Key {
	k, err := registry.NewKey(testKeyBytes, false)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// clock is a settable clock for the registry under test.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

func declared(client, name, purpose string, edit func(m map[string]any)) map[string]any {
	m := workspace.DefaultAgent(client)
	m["agent"].(map[string]any)["name"] = name
	m["intent"] = map[string]any{"purpose": purpose}
	if edit != nil {
		edit(m)
	}
	return m
}

func list(s ...string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

// scenario drives a real registry service (fixed clock) through what a
// cockpit must show: a session lease, a narrowed child, a refused child,
// allowed and denied calls, usage, a revoked subtree and one approval
// request left pending. It returns the journal directory while the
// request still waits; stop ends the wait and closes the service.
func scenario(t testing.TB) (dir string, stop func()) { return scenarioWith(t, false) }

// scenarioWith is scenario, with two confined runs (see confinedRuns)
// after the revocation when runs is set.
func scenarioWith(t testing.TB, runs bool) (dir string, stop func()) {
	t.Helper()
	ws := t.TempDir()
	dir = filepath.Join(ws, ".leasedeck", "journal")
	clk := &clock{t: t0}
	root, err := registry.ParseManifest(workspace.DefaultPolicy()["root"])
	if err != nil {
		t.Fatal(err)
	}
	cfg := registry.Config{
		Workspace: ws, JournalDir: dir, LockPath: filepath.Join(ws, ".leasedeck", "registry.lock"),
		Key: testKey(t), Root: root, DefaultLifetime: 8 * time.Hour, ApprovalTimeout: time.Minute,
		SessionID: "leasedeck-fixture", Now: clk.Now,
	}
	if runs {
		// Held calls of hook sessions are asked in the client.
		cfg.Policy = &registry.Policy{Root: root, Mode: "enforce", DefaultLifetime: 8 * time.Hour, ApprovalTimeout: time.Minute,
			ApproveIn: registry.ApproveInClient}
	}
	svc, err := registry.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	at := func(s int) { clk.Set(t0.Add(time.Duration(s) * time.Second)) }
	issue := func(m map[string]any, parent string) string {
		res, err := svc.Issue(m, parent)
		if err != nil {
			t.Fatal(err)
		}
		return res.LeaseID
	}
	gate := func(lease, tool string, in map[string]any) {
		svc.Gate(context.Background(), registry.GateRequest{LeaseID: lease, Call: registry.ToolCall{Tool: tool, Input: in}, Client: "claude-code"})
	}
	at(1)
	a := issue(declared("claude-code", "claude-code #1", "Refactor the payment module onto the new billing API", nil), "")
	at(3)
	gate(a, "Read", map[string]any{"file_path": "src/payments/charge.go"})
	at(4)
	gate(a, "Bash", map[string]any{"command": "go test ./src/payments/..."})
	at(5)
	child := issue(declared("claude-code", "test-writer", "Write table tests for the new charge flow", func(m map[string]any) {
		al := m["allow"].(map[string]any)
		al["tools"] = list("Read", "Write", "Bash", "mcp__github__create_pr")
		al["write_paths"] = list("tests/**")
		al["commands"] = list("go", "docker")
		m["budget"] = map[string]any{"steps": int64(9000), "depth": int64(1), "fan_out": int64(0)}
		m["approvals"] = list()
	}), a)
	at(6)
	gate(child, "Write", map[string]any{"file_path": "tests/payments/charge_test.go"})
	at(7)
	gate(child, "Write", map[string]any{"file_path": "src/main.go"})
	at(8)
	issue(declared("claude-code", "ticket-bot", "File tickets for vulnerable modules", func(m map[string]any) {
		m["allow"].(map[string]any)["tools"] = list("mcp__jira__create_issue")
	}), a)
	at(9)
	tok, cost := 2400.0, 0.018
	if err := svc.RecordUsage(a, registry.Usage{Tokens: &tok, CostUSD: &cost, Source: "provider_reported"}); err != nil {
		t.Fatal(err)
	}
	at(10)
	b := issue(declared("codex-cli", "codex-cli #2", "Make the CI pipeline green again", nil), "")
	at(11)
	gate(b, "Bash", map[string]any{"command": "sudo apt-get install -y jq"})
	at(12)
	bc := issue(declared("codex-cli", "docs-writer", "Document the CI changes", func(m map[string]any) {
		m["allow"].(map[string]any)["write_paths"] = list("docs/**")
		m["budget"] = map[string]any{"steps": int64(60), "depth": int64(1), "fan_out": int64(0)}
	}), b)
	at(13)
	gate(bc, "Write", map[string]any{"file_path": "docs/ci.md"})
	at(20)
	if _, err := svc.Revoke(b, "", "stop the CI agent"); err != nil {
		t.Fatal(err)
	}
	if runs {
		at(21)
		confinedRuns(t, svc)
		at(25)
		askedInClient(t, svc)
	}
	at(30)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		svc.Gate(ctx, registry.GateRequest{LeaseID: a, Call: registry.ToolCall{Tool: "Bash", Input: map[string]any{"command": "rm -rf build/"}},
			Client: "claude-code", MaxWait: 30 * time.Second})
	}()
	for deadline := time.Now().Add(5 * time.Second); len(svc.PendingApprovals()) == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the approval request never appeared")
		}
		time.Sleep(5 * time.Millisecond)
	}
	return dir, func() {
		cancel()
		<-done
		svc.Close()
	}
}

// confinedRuns starts two `leasedeck run` sessions through the socket, as
// run does: one held by the kernel, one run with --allow-unconfined.
func confinedRuns(t testing.TB, svc *registry.Service) {
	t.Helper()
	d, err := os.MkdirTemp("", "ldt")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(d)
	l, err := registry.Listen(filepath.Join(d, "r.sock"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() { registry.NewHandler(svc, "fixture-token").Serve(ctx, l); close(served) }()
	defer func() { cancel(); <-served }()
	c, err := wire.Dial(filepath.Join(d, "r.sock"), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetToken("fixture-token")
	for _, r := range []struct {
		name, purpose string
		conf          wire.Confinement
	}{
		{"claude-code #3", "Fix the flaky login test, confined", wire.Confinement{Confined: true, LandlockABI: 6, MountNamespace: true,
			Network: "TCP only to the egress proxy 127.0.0.1:41234"}},
		{"claude-code #4", "Try the schema migration", wire.Confinement{Reason: "--allow-unconfined: this kernel has no Landlock",
			Network: "proxy offered, not enforced 127.0.0.1:41235"}},
	} {
		run, err := c.RunBegin(ctx, wire.RunBeginParams{Client: "claude-code", Manifest: wire.DocOf(declared("claude-code", r.name, r.purpose, nil))})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.RunConfined(ctx, wire.RunConfinedParams{LeaseID: run.Issue.LeaseID, Confinement: r.conf}); err != nil {
			t.Fatal(err)
		}
	}
}

// askedInClient makes a hook session whose two held calls are asked in the
// client: one the user allowed there (its post-tool report), one still open.
func askedInClient(t testing.TB, svc *registry.Service) {
	t.Helper()
	a, err := svc.Admit(registry.AdmitRequest{Client: "claude-code", Session: "fixture-session",
		Manifest: declared("claude-code", "claude-code #5", "Clean the build tree", nil), Prompt: "clean up"})
	if err != nil || !a.Allowed {
		t.Fatal(a, err)
	}
	for _, c := range []struct{ id, cmd string }{{"toolu_A", "rm -rf build/cache"}, {"toolu_B", "curl -fsSL https://example.com/x.tgz -o x.tgz"}} {
		call := registry.ToolCall{Tool: "Bash", Input: map[string]any{"command": c.cmd}}
		ans, err := svc.GateAdmission(context.Background(), a.AdmissionID, registry.GateRequest{Call: call, ClientPrompt: true, ToolUseID: c.id})
		if err != nil || ans.AskedIn != registry.ApproveInClient {
			t.Fatal(ans, err)
		}
		if c.id == "toolu_A" {
			if _, err := svc.ReportCall(a.AdmissionID, call, "success", "", c.id); err != nil {
				t.Fatal(err)
			}
		}
	}
}

var uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// fixture is the scenario's journal as Entries, with every random id
// replaced by a stable one (in order of first appearance) and each lease
// signed again, so goldens do not change from run to run.
func fixture(t testing.TB) []entry { return fixtureWith(t, false) }

// fixtureWith is fixture, of scenarioWith(runs).
func fixtureWith(t testing.TB, runs bool) []entry {
	t.Helper()
	dir, stop := scenarioWith(t, runs)
	defer stop()
	ids := map[string]string{}
	var out []entry
	key := testKey(t)
	for _, k := range journal.Kinds {
		lines, _, err := journal.ReadFrom(filepath.Join(dir, k.FileName()), 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lines {
			b, _ := json.Marshal(l.Value)
			b = uuidRE.ReplaceAllFunc(b, func(id []byte) []byte {
				s, ok := ids[string(id)]
				if !ok {
					s = fmt.Sprintf("%08x-0000-4000-8000-%012d", len(ids)+1, len(ids)+1)
					ids[string(id)] = s
				}
				return []byte(s)
			})
			// A summary may name a lease by its short id.
			for orig, s := range ids {
				b = bytes.ReplaceAll(b, []byte(orig[:8]), []byte(s[:8]))
			}
			var v map[string]any
			dec := json.NewDecoder(bytes.NewReader(b))
			dec.UseNumber()
			if err := dec.Decode(&v); err != nil {
				t.Fatal(err)
			}
			if lease, ok := v["lease"].(map[string]any); ok {
				sig, err := key.Sign(lease)
				if err != nil {
					t.Fatal(err)
				}
				lease["signature"] = sig
			}
			out = append(out, entry{Kind: k, Seq: l.Seq, Value: v})
		}
	}
	return out
}
