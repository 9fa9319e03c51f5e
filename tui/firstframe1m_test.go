//go:build linux

package tui

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/leasedeck/leasedeck/registry"
)

// BenchmarkCockpitFirstFrame1M is the cockpit's start on a large journal,
// its real loading path: the feeder's load (from the registry's newest
// snapshot and the lines after it, or every line), the fold into the
// cockpit's deck, and the first frame with the lease tree drawn. It runs
// on the workspace scripts/servebench makes (whose registry has written
// its snapshots); run each case in its own process, so that peak RSS is
// the case's own:
//
//	LEASEDECK_BENCH_WS=/tmp/leasedeck-1m-ws go test -run XXX -bench 'CockpitFirstFrame1M/snapshot' -benchtime 1x ./tui
//	LEASEDECK_BENCH_WS=/tmp/leasedeck-1m-ws go test -run XXX -bench 'CockpitFirstFrame1M/full' -benchtime 1x ./tui
func BenchmarkCockpitFirstFrame1M(b *testing.B) {
	ws := os.Getenv("LEASEDECK_BENCH_WS")
	if ws == "" {
		b.Skip("set LEASEDECK_BENCH_WS to a workspace made by scripts/servebench")
	}
	root := filepath.Join(ws, "root")
	states, _ := filepath.Glob(filepath.Join(ws, "x", "s", "leasedeck", "*"))
	if len(states) != 1 {
		b.Fatalf("no single state directory under %s", ws)
	}
	text, err := os.ReadFile(filepath.Join(states[0], "key"))
	if err != nil {
		b.Fatal(err)
	}
	kb, err := registry.ParseKeyHex(string(text))
	if err != nil {
		b.Fatal(err)
	}
	key, err := registry.NewKey(kb, false)
	if err != nil {
		b.Fatal(err)
	}
	dir := filepath.Join(root, ".leasedeck", "journal")
	src := &registry.SnapshotSource{Dir: filepath.Join(states[0], "snapshots"), Key: key, Workspace: root, JournalDir: dir,
		HeadPath: filepath.Join(states[0], "journal.head")}
	for _, c := range []struct {
		name string
		src  *registry.SnapshotSource
	}{{"snapshot", src}, {"full", nil}} {
		b.Run(c.name, func(b *testing.B) {
			var leases int
			for b.Loop() {
				f := &feeder{Dir: dir, Key: key.Bytes(), Snapshots: c.src}
				msg, _, err := f.load(newChainCheck(key.Bytes()))
				if err != nil {
					b.Fatal(err)
				}
				if (msg.Start != nil) != (c.src != nil) {
					b.Fatalf("started from a snapshot: %v", msg.Start != nil)
				}
				m := newModel(Options{JournalDir: dir, Key: &key, now: time.Now})
				m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
				m.Update(msg)
				frame := m.View().Content
				if !strings.Contains(frame, "worker-") {
					b.Fatal("the first frame shows no lease")
				}
				leases = len(m.deck.St.Order)
			}
			var ru syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
			cpu := float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
			b.ReportMetric(cpu/float64(b.N), "CPU-s/op")
			b.ReportMetric(float64(ru.Maxrss)/1024, "peak-RSS-MB")
			b.ReportMetric(float64(leases), "leases")
		})
	}
}
