package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/leasedeck/leasedeck/journal"
	"github.com/leasedeck/leasedeck/registry"
)

// Benchmarks for the figures the cockpit promises: a frame at 10,000
// leases within 16 ms, a burst of 1,000 journal lines folded and drawn at
// once, and under 1% of a core while idle.

func leaseID(i int) string { return fmt.Sprintf("%08x-0000-4000-8000-%012d", i, i) }

func manifestFor(name, purpose string) map[string]any {
	return map[string]any{
		"schema_version": "1.2",
		"agent":          map[string]any{"name": name, "kind": "external", "runtime_agent": "claude-code"},
		"intent":         map[string]any{"purpose": purpose},
		"allow":          map[string]any{"tools": list("Read", "Write", "Bash"), "read_paths": list("**"), "write_paths": list("src/**"), "hosts": list(), "commands": list("go", "git")},
		"deny":           map[string]any{"commands": list("sudo"), "paths": list(".env"), "hosts": list()},
		"budget":         map[string]any{"steps": json.Number("5000"), "depth": json.Number("2"), "fan_out": json.Number("200")},
		"approvals":      list("WebFetch"),
	}
}

// synthetic is n leases: n/100 session leases with 99 children each.
func synthetic(n int) []entry {
	out := make([]entry, 0, n)
	var parent string
	for i := 1; i <= n; i++ {
		id := leaseID(i)
		p := ""
		name := fmt.Sprintf("claude-code #%d", i)
		if i%100 != 1 {
			p = parent
			name = fmt.Sprintf("worker %d", i)
		} else {
			parent = id
		}
		man := manifestFor(name, fmt.Sprintf("Task %d: keep the build green", i))
		lease := map[string]any{"schema_version": "1.2", "lease_id": id, "manifest": man,
			"issued_at": registry.FormatTime(t0), "expires_at": registry.FormatTime(t0.Add(8 * time.Hour))}
		rec := map[string]any{"schema_version": "1.2", "event": "granted", "lease_id": id, "at": registry.FormatTime(t0),
			"lease": lease, "declared": man}
		if p != "" {
			lease["parent_lease_id"] = p
			rec["parent_lease_id"] = p
		}
		out = append(out, entry{Kind: journal.Leases, Seq: uint64(i), Value: rec})
	}
	return out
}

func bigModel(b *testing.B, n int) *model {
	m := newModel(Options{Workspace: "/w", Actor: &fakeActor{}, PID: 1, location: time.UTC, theme: newTheme(true)})
	send(m, tea.WindowSizeMsg{Width: 160, Height: 48})
	send(m, clockMsg(t0.Add(time.Minute)))
	send(m, journalMsg{Reset: true, Entries: synthetic(n)})
	if got := len(m.deck.St.Leases); got != n {
		b.Fatalf("%d leases folded, want %d", got, n)
	}
	return m
}

func BenchmarkView10k(b *testing.B) {
	m := bigModel(b, 10000)
	down := tea.KeyPressMsg{Code: tea.KeyDown}
	b.Run("after-keypress", func(b *testing.B) {
		for b.Loop() {
			m.Update(down) // the cursor moves: two rows and the detail change
			_ = m.View()
		}
	})
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			clear(m.rows) // every visible row redrawn, as after a resize
			m.detail = detailCache{}
			_ = m.View()
		}
	})
}

// gateLines is a burst of n audit lines spread over the leases, from
// the off-th lease on.
func gateLines(n, leases, off int) []entry {
	out := make([]entry, n)
	for i := range out {
		v := auditLine(leaseID(1+(off+i*7)%leases), t0.Add(time.Duration(i)*time.Millisecond))
		v["details"].(map[string]any)["steps"] = json.Number("1")
		out[i] = entry{Kind: journal.Audit, Seq: uint64(i + 1), Value: v}
	}
	return out
}

func BenchmarkApply1000Lines(b *testing.B) {
	m := bigModel(b, 10000)
	// Ten bursts over different leases, in turn: each lease's activity
	// log grows slowly, as it would in a real fleet.
	var bursts [10][]entry
	for i := range bursts {
		bursts[i] = gateLines(1000, 10000, i*1000)
	}
	i := 0
	for b.Loop() {
		m.Update(journalMsg{Entries: bursts[i%len(bursts)]}) // fold, bump versions, rebuild the tree
		_ = m.View()
		i++
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "ns/line")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkIdleCPU runs the real program — renderer, one-second clock,
// feeder following a journal directory — with 10,000 leases loaded and
// nothing happening, and reports the CPU it used over 10 s.
func BenchmarkIdleCPU(b *testing.B) {
	if b.N > 1 {
		b.Skip("one 10 s measurement is enough")
	}
	dir := b.TempDir()
	m := newModel(Options{Workspace: "/w", Actor: &fakeActor{}, PID: 1, location: time.UTC})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := tea.NewProgram(m, append(programOptions(ctx), tea.WithInput(nil), tea.WithOutput(io.Discard),
		tea.WithWindowSize(160, 48), tea.WithoutSignalHandler())...)
	f := &feeder{Dir: dir, Send: p.Send}
	go f.Run(ctx)
	go func() {
		time.Sleep(200 * time.Millisecond)
		p.Send(journalMsg{Entries: synthetic(10000)})
	}()
	go p.Run()
	time.Sleep(2 * time.Second) // load and settle
	c0, w0 := cpuTime(), time.Now()
	time.Sleep(10 * time.Second)
	used, wall := cpuTime()-c0, time.Since(w0)
	pct := 100 * used.Seconds() / wall.Seconds()
	b.ReportMetric(pct, "cpu%")
	b.Logf("idle: %v CPU in %v wall = %.2f%% of one core", used, wall.Round(time.Millisecond), pct)
	if pct >= 1 {
		b.Errorf("idle CPU %.2f%% ≥ 1%%", pct)
	}
	p.Quit()
}
