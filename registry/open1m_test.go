//go:build unix

package registry_test

import (
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"github.com/leasedeck/leasedeck/registry"
	"github.com/leasedeck/leasedeck/registry/journalgen"
)

// BenchmarkServiceOpen1M is a registry start on a large journal with the
// registry's real fold (every record typed and folded, leases compacted
// as they close), not a count of lines: the time and memory before the
// registry can answer. It needs a journal written by the generator:
//
//	go run ./scripts/genjournal -lines 1000000 /tmp/leasedeck-1m
//	LEASEDECK_JOURNAL=/tmp/leasedeck-1m go test -run XXX -bench ServiceOpen1M -benchtime 1x ./registry
func BenchmarkServiceOpen1M(b *testing.B) {
	dir := os.Getenv("LEASEDECK_JOURNAL")
	if dir == "" {
		b.Skip("set LEASEDECK_JOURNAL to a directory written by go run ./scripts/genjournal")
	}
	text, err := os.ReadFile(filepath.Join(dir, "key"))
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
	var leases, closed int
	var heapBytes uint64
	for b.Loop() {
		svc, err := registry.Open(registry.Config{Workspace: dir, JournalDir: filepath.Join(dir, "journal"),
			LockPath: filepath.Join(dir, "registry.lock"), Key: key, Root: journalgen.RootPolicy()})
		if err != nil {
			b.Fatal(err)
		}
		if err := svc.Health(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		heapBytes = heap()
		svc.Snapshot(func(st *registry.State) {
			leases, closed = len(st.Leases), 0
			for _, l := range st.Leases {
				if l.Compacted {
					closed++
				}
			}
		})
		svc.Close()
		b.StartTimer()
	}
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	cpu := float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
	b.ReportMetric(cpu/float64(b.N), "CPU-s/op")
	b.ReportMetric(float64(maxRSSBytes(ru))/(1<<20), "peak-RSS-MB")
	b.ReportMetric(float64(heapBytes)/(1<<20), "heap-MB")
	b.ReportMetric(float64(leases), "leases")
	b.ReportMetric(float64(closed), "compacted")
	runtime.KeepAlive(dir)
}

// BenchmarkSnapshotWrite1M is one snapshot of the state folded from a
// large journal: the copy (appends wait only for this part), the
// encoding and its read-back check, and the durable write.
//
//	LEASEDECK_JOURNAL=/tmp/leasedeck-1m go test -run XXX -bench SnapshotWrite1M -benchtime 3x ./registry
func BenchmarkSnapshotWrite1M(b *testing.B) {
	dir := os.Getenv("LEASEDECK_JOURNAL")
	if dir == "" {
		b.Skip("set LEASEDECK_JOURNAL to a directory written by go run ./scripts/genjournal")
	}
	text, err := os.ReadFile(filepath.Join(dir, "key"))
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
	svc, err := registry.Open(registry.Config{Workspace: dir, JournalDir: filepath.Join(dir, "journal"),
		LockPath: filepath.Join(dir, "registry.lock"), Key: key, Root: journalgen.RootPolicy(),
		SnapshotDir: b.TempDir(), SnapshotEvery: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer svc.Close()
	var size int64
	for b.Loop() {
		path, err := svc.WriteSnapshot()
		if err != nil {
			b.Fatal(err)
		}
		if st, err := os.Stat(path); err == nil {
			size = st.Size()
		}
	}
	b.ReportMetric(float64(size)/(1<<20), "snapshot-MB")
}
