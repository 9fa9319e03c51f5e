package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/registry"
	"github.com/leasedeck/leasedeck/registry/wire"
)

// agentTree is one agent's session, as a hostile agent holds it: the
// capability its hook was handed, its session lease (the tree's root) and
// every lease it issued below it over the socket, with no operator token.
type agentTree struct {
	c          *wire.Client
	session    string
	capability string
	admission  string
	leases     []string // the root first, then breadth first
}

// beginAgent begins a new client session, as any process that can reach
// the socket may.
func beginAgent(t *testing.T, w *wsEnv, session string) *agentTree {
	t.Helper()
	c, err := wire.Dial(w.sock(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(60 * time.Second))
	a, err := c.Admit(context.Background(), wire.AdmitParams{Client: "claude-code", Session: session, Prompt: "work"})
	if err != nil || !a.Allowed || a.Capability == "" {
		t.Fatalf("begin %s: %+v %v", session, a, err)
	}
	c.SetCapability(a.Capability)
	return &agentTree{c: c, session: session, capability: a.Capability, admission: a.AdmissionID, leases: []string{a.LeaseID}}
}

// grow issues child leases down the tree, breadth first, as an agent
// handing work to subagents would, until the tree holds n leases.
func (a *agentTree) grow(t *testing.T, w *wsEnv, n int) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(w.dir, ".leasedeck", "agents", "claude-code.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	m["budget"] = map[string]any{"steps": 50}
	for next := 0; len(a.leases) < n; next++ {
		if next == len(a.leases) {
			t.Fatalf("the tree stops at %d leases", len(a.leases))
		}
		// A child's fan-out is what its parent had left: issue under each
		// lease until its fan-out (or depth) is used up, then the next.
		for len(a.leases) < n {
			res, err := a.c.Issue(context.Background(), wire.IssueParams{Manifest: wire.DocOf(m), Parent: a.leases[next]})
			if err == nil && res.Status != wire.Granted && len(res.Refusals) == 1 && (res.Refusals[0] == "R5" || res.Refusals[0] == "R6") {
				break
			}
			if err != nil || res.Status != wire.Granted {
				t.Fatalf("issue under %s (lease %d): %+v %v", a.leases[next], len(a.leases), res, err)
			}
			a.leases = append(a.leases, res.LeaseID)
		}
	}
}

// heldCall is one gate call that needs a human, on a connection of its own.
type heldCall struct {
	c      net.Conn
	answer chan map[string]any // the registry's one answer line, decoded
}

// hold presents a call the lease holds for a human (a delete) under
// lease, on a new connection, and reads its answer in the background.
func (a *agentTree) hold(t *testing.T, w *wsEnv, lease string, i int) *heldCall {
	t.Helper()
	c, err := net.Dial("unix", w.sock())
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	h := &heldCall{c: c, answer: make(chan map[string]any, 1)}
	fmt.Fprintf(c, `{"op":"gate","capability":%q,"lease_id":%q,"tool":"Bash","input":{"command":"rm -rf src/%d"},"max_wait_ms":60000}`+"\n",
		a.capability, lease, i)
	go func() {
		var m map[string]any
		line, err := bufio.NewReader(c).ReadBytes('\n')
		if err != nil {
			m = map[string]any{"read_error": err.Error()}
		} else {
			json.Unmarshal(line, &m)
		}
		c.Close() // answered: a hook exits, and its connection goes
		h.answer <- m
	}()
	return h
}

// flood presents calls that need a human, each on a connection of its
// own, a lease's worth at a time, as an agent pacing itself would (a burst
// of hundreds of connects at once is the connection cap's to refuse, not
// this test's): after each batch it waits until every call sent is either
// held (the registry's pending count) or answered. Every answer must be a
// deny naming because, at once; anything else fails the test, saying what
// an unrelated agent gets from the registry at that moment.
type flood struct {
	t        *testing.T
	w        *wsEnv
	because  string
	watch    *wire.Client // status, on a connection of its own
	calls    int
	answers  chan map[string]any
	answered int
	held     int // pending approvals at the last settle
}

func newFlood(t *testing.T, w *wsEnv, because string) *flood {
	t.Helper()
	watch, err := wire.Dial(w.sock(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { watch.Close() })
	return &flood{t: t, w: w, because: because, watch: watch, answers: make(chan map[string]any, 4096)}
}

// send presents per calls under each lease of the tree.
func (f *flood) send(a *agentTree, per int) {
	f.t.Helper()
	for i, lease := range a.leases {
		for k := range per {
			h := a.hold(f.t, f.w, lease, i*per+k)
			go func() { f.answers <- <-h.answer }()
			f.calls++
		}
		f.settle()
	}
}

// settle waits until every call sent is held or answered.
func (f *flood) settle() {
	f.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		for drained := false; !drained; {
			select {
			case m := <-f.answers:
				f.answered++
				res, _ := m["result"].(map[string]any)
				if res == nil || res["decision"] != "deny" || !strings.Contains(fmt.Sprint(res["reason"]), f.because) {
					f.t.Fatalf("call %d, past the cap: %v (want a deny naming %q, at once); an unrelated agent beginning a session now gets: %s",
						f.calls, m, f.because, f.w.probe())
				}
			default:
				drained = true
			}
		}
		f.watch.SetDeadline(time.Now().Add(10 * time.Second))
		st, err := f.watch.Status(context.Background())
		if err != nil {
			f.t.Fatalf("status after %d calls: %v", f.calls, err)
		}
		if f.held = st.PendingApprovals; f.held+f.answered == f.calls {
			return
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("after %d calls: %d held, %d answered", f.calls, f.held, f.answered)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// probe is what an unrelated agent gets when it begins a session now.
func (w *wsEnv) probe() string {
	c, err := wire.Dial(w.sock(), 5*time.Second)
	if err != nil {
		return err.Error()
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	a, err := c.Admit(context.Background(), wire.AdmitParams{Client: "claude-code",
		Session: fmt.Sprintf("probe-%d", time.Now().UnixNano()), Prompt: "work"})
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("allowed=%v %s", a.Allowed, a.Reason)
}

// An agent tree holding calls for a human must not take the registry from
// everyone else. One session's agent issues 72 leases below its own (as
// the default manifest's fan-out allows) and presents five deletes under
// each, every one on a connection of its own: 365 calls that wait for a
// human, more than the registry's 256 connections. Past the cap per lease
// tree each is refused at once (journaled); another agent's session is
// then served, and its own call that needs a human is held for one.
func TestOneAgentTreeCannotFillTheRegistryWithHeldCalls(t *testing.T) {
	w := newWorkspace(t)
	w.serve()
	tree := beginAgent(t, w, "flooding-session")
	tree.grow(t, w, 73)
	f := newFlood(t, w, "in its lease tree")
	f.send(tree, 5)
	if f.held != registry.MaxHeldPerTree || f.answered != f.calls-registry.MaxHeldPerTree {
		t.Fatalf("%d calls: %d held, %d refused; want %d held", f.calls, f.held, f.answered, registry.MaxHeldPerTree)
	}

	other := beginAgent(t, w, "other-session")
	ans, err := other.c.Gate(context.Background(), wire.GateParams{AdmissionID: other.admission, Tool: "Bash",
		Input: wire.DocOf(map[string]any{"command": "ls"})})
	if err != nil || ans.Verdict != wire.VerdictAllow {
		t.Fatalf("another agent's ordinary call: %+v %v", ans, err)
	}
	mine := other.hold(t, w, other.leases[0], 0)
	var id string
	for _, p := range w.waitApprovals(t, registry.MaxHeldPerTree+1) {
		if p.LeaseID == other.leases[0] {
			id = p.ID
		}
	}
	if id == "" {
		t.Fatal("another agent's call that needs a human is not held")
	}
	if r := w.run("", "deny", id, "--reason", "not now"); r.code != 0 {
		t.Fatalf("deny: %+v", r)
	}
	if m := <-mine.answer; !strings.Contains(fmt.Sprint(m["result"]), "a human denied") {
		t.Fatalf("another agent's held call, denied: %v", m)
	}
	audit, _ := os.ReadFile(filepath.Join(w.dir, ".leasedeck", "journal", "audit.jsonl"))
	if n := strings.Count(string(audit), "in its lease tree"); n != f.answered {
		t.Fatalf("%d refusals journaled, want %d", n, f.answered)
	}
}

// Many agent trees together (an agent may begin as many sessions as it
// likes) still cannot hold more than half of the registry's connections
// waiting for a human: past that each held call is refused at once, and
// a newcomer is served.
func TestManyAgentTreesLeaveConnectionsForEveryoneElse(t *testing.T) {
	w := newWorkspace(t)
	w.serve()
	var trees []*agentTree
	for i := range 20 {
		tree := beginAgent(t, w, fmt.Sprintf("flooding-session-%d", i))
		tree.grow(t, w, 4)
		trees = append(trees, tree)
	}
	f := newFlood(t, w, "half its connections")
	for _, tree := range trees {
		f.send(tree, 4) // 16 a tree: its cap
	}
	held := registry.HeldCallsFor(0)
	if f.held != held || f.answered != f.calls-held {
		t.Fatalf("%d calls: %d held, %d refused; want %d held", f.calls, f.held, f.answered, held)
	}
	other := beginAgent(t, w, "other-session")
	ans, err := other.c.Gate(context.Background(), wire.GateParams{AdmissionID: other.admission, Tool: "Bash",
		Input: wire.DocOf(map[string]any{"command": "ls"})})
	if err != nil || ans.Verdict != wire.VerdictAllow {
		t.Fatalf("a newcomer's ordinary call: %+v %v", ans, err)
	}
}
