package tui

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/google/uuid"

	"github.com/leasedeck/leasedeck/journal"
	"github.com/leasedeck/leasedeck/registry"
)

// collector is a Send that records what the feeder sent, and when.
type collector struct {
	mu   sync.Mutex
	msgs []journalMsg
	at   []time.Time
	ch   chan journalMsg
}

func newCollector() *collector { return &collector{ch: make(chan journalMsg, 1024)} }

func (c *collector) send(m tea.Msg) {
	jm := m.(journalMsg)
	c.mu.Lock()
	c.msgs = append(c.msgs, jm)
	c.at = append(c.at, time.Now())
	c.mu.Unlock()
	c.ch <- jm
}

func (c *collector) next(t *testing.T) journalMsg {
	t.Helper()
	select {
	case m := <-c.ch:
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("the feeder sent nothing")
	}
	return journalMsg{}
}

func startFeeder(t *testing.T, dir string, key []byte) *collector {
	t.Helper()
	c := newCollector()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	f := &feeder{Dir: dir, Key: key, Send: c.send, Retry: 100 * time.Millisecond}
	go func() { f.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return c
}

func TestFeederLoadsThenFollows(t *testing.T) {
	dir, stop := scenario(t)
	c := startFeeder(t, dir, testKeyBytes)
	first := c.next(t)
	if !first.Reset || len(first.Entries) == 0 || len(first.Breaks) != 0 || !first.MACs {
		t.Fatalf("first message: reset=%v entries=%d breaks=%v macs=%v", first.Reset, len(first.Entries), first.Breaks, first.MACs)
	}
	if first.Entries[0].Kind != journal.Leases || first.Heads[0] == 0 || first.Heads[1] == 0 {
		t.Errorf("leases must come first, heads set: %+v", first.Heads)
	}
	// Ending the waiting call writes its expiry and the gate's deny.
	stop()
	got := c.next(t)
	if got.Reset || len(got.Entries) == 0 || len(got.Breaks) != 0 {
		t.Fatalf("follow-up: reset=%v entries=%d breaks=%v", got.Reset, len(got.Entries), got.Breaks)
	}
	// The folded result is what the registry itself would say.
	d := newDeck()
	d.Apply(first.Entries)
	d.Apply(got.Entries)
	if d.FoldErrs != 0 || len(d.Pending()) != 0 {
		t.Errorf("fold errors %d (%s), pending %d", d.FoldErrs, d.LastErr, len(d.Pending()))
	}
}

func copyJournal(t *testing.T, dir string) string {
	t.Helper()
	out := t.TempDir()
	for _, k := range journal.Kinds {
		b, err := os.ReadFile(filepath.Join(dir, k.FileName()))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(out, k.FileName()), b, 0o600)
	}
	return out
}

func TestFeederReportsABrokenChain(t *testing.T) {
	dir, stop := scenario(t)
	stop()
	cp := copyJournal(t, dir)
	// Edit one line in place (same length): its mac no longer matches.
	p := filepath.Join(cp, journal.AuditFile)
	b, _ := os.ReadFile(p)
	b = bytes.Replace(b, []byte(`src/payments/charge.go`), []byte(`src/payments/chargf.go`), 1)
	os.WriteFile(p, b, 0o600)
	m := startFeeder(t, cp, testKeyBytes).next(t)
	if len(m.Breaks) == 0 || !strings.Contains(strings.Join(m.Breaks, "\n"), "mac mismatch") {
		t.Fatalf("no break reported: %v", m.Breaks)
	}
	// Remove a line: seq and prev break at the next one.
	cp2 := copyJournal(t, dir)
	p = filepath.Join(cp2, journal.LeasesFile)
	b, _ = os.ReadFile(p)
	lines := bytes.SplitAfter(b, []byte("\n"))
	os.WriteFile(p, bytes.Join(append(lines[:1:1], lines[2:]...), nil), 0o600)
	m = startFeeder(t, cp2, testKeyBytes).next(t)
	if !strings.Contains(strings.Join(m.Breaks, "\n"), "leases.jsonl seq 3: seq 2 is missing") {
		t.Fatalf("removed line not reported: %v", m.Breaks)
	}
	// With another key every mac fails; without one, none is checked.
	m = startFeeder(t, copyJournal(t, dir), bytes.Repeat([]byte{1}, 32)).next(t)
	if len(m.Breaks) == 0 {
		t.Error("a foreign key went unnoticed")
	}
	m = startFeeder(t, copyJournal(t, dir), nil).next(t)
	if len(m.Breaks) != 0 || m.MACs {
		t.Errorf("without a key: breaks %v macs %v", m.Breaks, m.MACs)
	}
}

func TestFeederStartsOverAfterTruncation(t *testing.T) {
	dir, stop := scenario(t)
	stop()
	cp := copyJournal(t, dir)
	c := startFeeder(t, cp, testKeyBytes)
	first := c.next(t)
	if err := os.Truncate(filepath.Join(cp, journal.AuditFile), 0); err != nil {
		t.Fatal(err)
	}
	m := c.next(t)
	if !m.Reset {
		t.Fatalf("truncation did not start the fold over: %+v", m.Heads)
	}
	if n := len(m.Entries); n >= len(first.Entries) {
		t.Errorf("after truncation %d entries, before %d", n, len(first.Entries))
	}
}

// auditLine is a schema-valid audit event for load tests.
func auditLine(lease string, at time.Time) map[string]any {
	return map[string]any{
		"schema_version": "1.2", "timestamp": registry.FormatTime(at), "event_id": uuid.NewString(),
		"event_type": registry.EventGateAllowed, "summary": "Read: reads README.md", "reasoning": "allowed",
		"actor":   map[string]any{"kind": "system", "runtime": "leasedeck"},
		"details": map[string]any{"lease_id": lease, "tool": "Read", "decision": "allow", "steps": int64(1)},
	}
}

// A journal growing by thousands of lines a second reaches the program in
// at most ~30 messages a second, every line exactly once.
func TestFeederBatchesABurst(t *testing.T) {
	dir := t.TempDir()
	w, err := journal.Open(dir, testKeyBytes, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	c := startFeeder(t, dir, testKeyBytes)
	c.next(t) // the (empty) first load
	const total = 6000
	start := time.Now()
	for i := 0; i < total/100; i++ {
		recs := make([]map[string]any, 100)
		for j := range recs {
			recs[j] = auditLine("00000000-0000-4000-8000-000000000001", start)
		}
		if _, err := w.AppendAll(journal.Audit, recs); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond) // ~10,000 lines a second
	}
	got := 0
	deadline := time.After(15 * time.Second)
	for got < total {
		select {
		case m := <-c.ch:
			got += len(m.Entries)
			if len(m.Breaks) > 0 {
				t.Fatalf("breaks in a healthy journal: %v", m.Breaks)
			}
		case <-deadline:
			t.Fatalf("only %d of %d lines arrived", got, total)
		}
	}
	if got != total {
		t.Errorf("%d lines delivered, want %d", got, total)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	sends := len(c.at) - 1
	span := c.at[len(c.at)-1].Sub(c.at[1])
	// Sends are at least Interval apart: never more than one per 33 ms.
	for i := 2; i < len(c.at); i++ {
		if gap := c.at[i].Sub(c.at[i-1]); gap < 30*time.Millisecond {
			t.Errorf("sends %d and %d only %v apart", i-1, i, gap)
			break
		}
	}
	t.Logf("%d lines in %d sends over %v (%.0f sends/s)", total, sends, span, float64(sends-1)/span.Seconds())
}
