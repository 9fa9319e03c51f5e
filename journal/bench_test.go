package journal

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/leasedeck/leasedeck/contract"
	"github.com/leasedeck/leasedeck/schemas"
)

var benchDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// BenchmarkAppend: one appender, and eight sharing group commits, each
// plain and "anchored" — with the kept head and signed checkpoints, as
// the registry runs the journal (one more fdatasync per batch, of the
// head, and a checkpoint line every 1000).
func BenchmarkAppend(b *testing.B) {
	for _, anchored := range []bool{false, true} {
		name := ""
		if anchored {
			name = "anchored-"
		}
		open := func(b *testing.B) *Writer {
			var opts Options
			if anchored {
				state := b.TempDir()
				opts = Options{HeadPath: filepath.Join(state, "journal.head"), SigningKeyPath: filepath.Join(state, "checkpoint.key")}
			}
			w, err := Open(b.TempDir(), testKey, opts)
			if err != nil {
				b.Fatal(err)
			}
			return w
		}
		b.Run(name+"sequential", func(b *testing.B) {
			w := open(b)
			defer w.Close()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := w.Append(Leases, heartbeat(i)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lines/s")
		})
		b.Run(name+"concurrent-8", func(b *testing.B) {
			w := open(b)
			defer w.Close()
			// RunParallel starts GOMAXPROCS×p goroutines: ask for eight.
			b.SetParallelism((8 + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
			var n sync.Mutex
			id := 0
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					n.Lock()
					id++
					i := id
					n.Unlock()
					if _, err := w.Append(Leases, heartbeat(i)); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lines/s")
		})
	}
}

// grantedFixture is the contract's populated granted record: the largest
// lease line leasedeck writes, and one the fast check leaves to the schema.
func grantedFixture(tb testing.TB) map[string]any {
	raw, err := fs.ReadFile(contract.FS(), "fixtures/valid/lease-record.populated.json")
	if err != nil {
		tb.Fatal(err)
	}
	v, err := schemas.ParseJSON(raw)
	if err != nil {
		tb.Fatal(err)
	}
	return v.(map[string]any)
}

// benchJournal is a million-line journal, built once per process, in
// the proportions a session produces (one lease, a few hundred tool calls,
// a heartbeat now and then): 250,000 lease lines in cycles of a hundred
// (granted with its full signed lease and declaration, narrowed, attached,
// 96 heartbeats, completed with usage) and 750,000 audit lines (gate
// decisions and budget spends). One line in 400 is a granted line, which
// costs a hundred times a heartbeat to validate.
func benchJournal(b *testing.B) string {
	b.Helper()
	if benchDir != "" {
		return benchDir
	}
	dir, err := os.MkdirTemp("", "journal-bench-")
	if err != nil {
		b.Fatal(err)
	}
	granted := grantedFixture(b)
	count := map[Kind]int{Leases: 250000, Audit: 750000}
	gen := map[Kind]func(i int) map[string]any{
		Leases: func(i int) map[string]any {
			id := testUUID(i / 100)
			switch i % 100 {
			case 0:
				g := granted
				g["lease_id"] = id
				return g
			case 1:
				return map[string]any{"schema_version": "1.2", "at": "2026-11-29T10:00:00.000Z", "event": "narrowed", "lease_id": id, "reason": "write_paths narrowed to src/**"}
			case 2:
				return map[string]any{"schema_version": "1.2", "at": "2026-11-29T10:00:00.000Z", "event": "attached", "lease_id": id, "containment": "advisory", "platform": "linux"}
			case 99:
				return map[string]any{"schema_version": "1.2", "at": "2026-11-29T10:00:00.000Z", "event": "completed", "lease_id": id, "usage": map[string]any{"tokens": i, "cost_usd": 0.25}}
			}
			return heartbeat(i / 100)
		},
		Audit: func(i int) map[string]any {
			if i%5 == 0 {
				return map[string]any{"schema_version": "1.2", "timestamp": "2026-11-29T10:00:00.000Z", "event_type": "leasedeck.budget.spent",
					"actor": map[string]any{"kind": "system"}, "details": map[string]any{"lease_id": testUUID(i / 300), "steps": 1, "steps_left": 150}}
			}
			return gateAllowed(i / 300)
		},
	}
	for _, k := range Kinds {
		f, err := os.OpenFile(filepath.Join(dir, k.FileName()), os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			b.Fatal(err)
		}
		bw := bufio.NewWriterSize(f, 1<<20)
		an := newAnalyser(analyseOpts{key: testKey})
		var prev [32]byte
		var buf []byte
		for i := 1; i <= count[k]; i++ {
			body, err := schemas.Canonical(gen[k](i))
			if err != nil {
				b.Fatal(err)
			}
			buf, prev = appendLine(buf[:0], body, uint64(i), &prev, an.mac)
			bw.Write(buf)
		}
		bw.Flush()
		f.Close()
	}
	benchDir = dir
	return dir
}

// cpuSeconds is the CPU time this process has used, all threads. The
// machine is shared, so wall time depends on the neighbours; CPU time far
// less: on two idle cores a replay takes about half its CPU seconds.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// peakRSS measures the process's peak resident memory over fn: Linux lets
// a process reset its high-water mark (clear_refs 5) and read it back.
// It also adds the CPU time fn used to *cpu.
func peakRSS(b *testing.B, cpu *float64, fn func()) float64 {
	runtime.GC()
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	c0 := cpuSeconds()
	fn()
	*cpu += cpuSeconds() - c0
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			kb, _ := strconv.ParseFloat(strings.Fields(line)[1], 64)
			return kb / 1024
		}
	}
	return 0
}

func journalBytes(dir string) int64 {
	var n int64
	for _, k := range Kinds {
		st, _ := os.Stat(filepath.Join(dir, k.FileName()))
		n += st.Size()
	}
	return n
}

// BenchmarkReplay1M replays the million-line journal: every line read,
// parsed and schema-validated, delivered in order (Scan, which is what a
// registry folds from). One op is the whole journal.
func BenchmarkReplay1M(b *testing.B) {
	dir := benchJournal(b)
	b.SetBytes(journalBytes(dir))
	b.ResetTimer()
	var rss, cpu float64
	lines := 0
	for i := 0; i < b.N; i++ {
		lines = 0
		rss = max(rss, peakRSS(b, &cpu, func() {
			for _, k := range Kinds {
				if _, err := Scan(filepath.Join(dir, k.FileName()), 0, func(*Line) error { lines++; return nil }); err != nil {
					b.Fatal(err)
				}
			}
		}))
	}
	if lines != 1000000 {
		b.Fatalf("%d lines", lines)
	}
	b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
	b.ReportMetric(rss, "peak-RSS-MB")
	b.ReportMetric(cpu/float64(b.N), "cpu-s/op")
}

// BenchmarkOpen1M is the registry's start: Open checks every line (schema,
// seq, prev, mac) and replays the intact ones through Options.Replay.
func BenchmarkOpen1M(b *testing.B) {
	dir := benchJournal(b)
	b.SetBytes(journalBytes(dir))
	b.ResetTimer()
	var rss, cpu float64
	for i := 0; i < b.N; i++ {
		lines := 0
		rss = max(rss, peakRSS(b, &cpu, func() {
			w, err := Open(dir, testKey, Options{Replay: func(Kind, *Line) error { lines++; return nil }})
			if err != nil {
				b.Fatal(err)
			}
			if len(w.Breaks()) > 0 || lines != 1000000 {
				b.Fatalf("%d lines, breaks %v", lines, w.Breaks())
			}
			w.Close()
		}))
	}
	b.ReportMetric(1e6*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
	b.ReportMetric(rss, "peak-RSS-MB")
	b.ReportMetric(cpu/float64(b.N), "cpu-s/op")
}

// BenchmarkReadFrom1M holds every line in memory, as ReadFrom does: the
// cost of not streaming.
func BenchmarkReadFrom1M(b *testing.B) {
	dir := benchJournal(b)
	b.SetBytes(journalBytes(dir))
	b.ResetTimer()
	var rss, cpu float64
	for i := 0; i < b.N; i++ {
		rss = max(rss, peakRSS(b, &cpu, func() {
			n := 0
			for _, k := range Kinds {
				lines, _, err := ReadFrom(filepath.Join(dir, k.FileName()), 0)
				if err != nil {
					b.Fatal(err)
				}
				n += len(lines)
			}
			if n != 1000000 {
				b.Fatalf("%d lines", n)
			}
		}))
	}
	b.ReportMetric(1e6*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
	b.ReportMetric(rss, "peak-RSS-MB")
	b.ReportMetric(cpu/float64(b.N), "cpu-s/op")
}

func BenchmarkVerify1M(b *testing.B) {
	dir := benchJournal(b)
	b.SetBytes(journalBytes(dir))
	b.ResetTimer()
	c0 := cpuSeconds()
	for i := 0; i < b.N; i++ {
		if r := Verify(dir, testKey); !r.OK() {
			b.Fatal(breaksString(r.Breaks))
		}
	}
	b.ReportMetric((cpuSeconds()-c0)/float64(b.N), "cpu-s/op")
	b.ReportMetric(1e6*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}

// BenchmarkValidate compares the fast check with the general validator on
// the lines leasedeck writes most, and shows the cost of a granted line.
func BenchmarkValidate(b *testing.B) {
	parse := func(m map[string]any) map[string]any {
		body, _ := schemas.Canonical(m)
		v, _ := schemas.ParseJSON(body)
		return v.(map[string]any)
	}
	for _, tc := range []struct {
		name string
		kind Kind
		m    map[string]any
	}{
		{"heartbeat", Leases, parse(heartbeat(1))},
		{"gate", Audit, parse(gateAllowed(1))},
		{"granted", Leases, parse(grantedFixture(b))},
	} {
		b.Run(tc.name+"/journal", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if errs, _ := validateValue(tc.kind, tc.m); errs != nil {
					b.Fatal(errs)
				}
			}
		})
		b.Run(tc.name+"/schema", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if errs, _ := schemas.Validate(tc.kind.Shape(), tc.m); errs != nil {
					b.Fatal(errs)
				}
			}
		})
	}
}

// BenchmarkAnalyseAudit is one worker's whole analysis of a typical audit
// line (a gate decision as the registry writes it), hash and mac included:
// through the generic tree and the fast schema check, and decoded directly.
func BenchmarkAnalyseAudit(b *testing.B) {
	bodies := auditBodies(b, 0)
	line := signedLine(bodies[1], 1)
	for _, tc := range []struct {
		name   string
		direct bool
	}{{"generic", false}, {"direct", true}} {
		b.Run(tc.name, func(b *testing.B) {
			an := newAnalyser(analyseOpts{kind: Audit, key: testKey, validate: true, hash: true, decodeAudit: tc.direct})
			b.ReportAllocs()
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				a := analysed{Line: Line{Raw: line}}
				an.analyse(&a)
				if a.mac != macOK || (a.Audit != nil) != tc.direct {
					b.Fatalf("mac %d, direct %v", a.mac, a.Audit != nil)
				}
			}
		})
	}
}

// BenchmarkPrepare is what an append costs before the write: the record
// in canonical form, parsed back and checked against the schema, for a
// gate decision as the registry writes one.
func BenchmarkPrepare(b *testing.B) {
	w := &Writer{}
	m := gateAllowed(1)
	for b.Loop() {
		if _, err := w.prepare(Audit, m); err != nil {
			b.Fatal(err)
		}
	}
}
