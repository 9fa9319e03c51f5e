//go:build unix

package registry_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/leasedeck/leasedeck/journal"
	"github.com/leasedeck/leasedeck/registry"
)

// BenchmarkVerifyJournal1M is `leasedeck journal verify` on a large
// journal: every check it makes (JSON, schemas, seq, prev, macs, each
// granted lease's signature, L1–L3, every status folds, checkpoints), not
// a count of lines. It needs a journal written by the generator:
//
//	go run ./scripts/genjournal -lines 1000000 /tmp/leasedeck-1m
//	LEASEDECK_JOURNAL=/tmp/leasedeck-1m go test -run XXX -bench VerifyJournal1M -benchtime 1x ./registry
func BenchmarkVerifyJournal1M(b *testing.B) {
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
	var lines int
	for b.Loop() {
		r := registry.VerifyJournal(filepath.Join(dir, "journal"), &key, journal.VerifyOptions{})
		if !r.OK() {
			b.Fatalf("breaks: %v", r.Breaks[:min(len(r.Breaks), 5)])
		}
		lines = 0
		for _, f := range r.Files {
			lines += f.Lines
		}
	}
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	cpu := float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
	b.ReportMetric(cpu/float64(b.N), "CPU-s/op")
	b.ReportMetric(float64(maxRSSBytes(ru))/(1<<20), "peak-RSS-MB")
	b.ReportMetric(float64(lines), "lines")
}
