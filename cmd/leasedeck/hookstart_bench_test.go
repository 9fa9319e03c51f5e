package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/workspace"
)

// BenchmarkHookVsBare runs a recorded Claude Code PreToolUse against a
// running registry through the lean hook binary (leasedeck-hook hook
// claude-code), through `leasedeck hook claude-code`, and through a bare Go
// program that reads the payload and prints an allow (testdata/barehook):
// the floor any command hook written in Go pays to start. The three run
// interleaved on the same payload; it reports each median and each hook's
// ratio to the bare program (target: lean/bare ≤ 1.3). A fourth side runs
// the lean hook on a Notification, which asks the registry nothing: its
// ratio (quiet/bare) is the lean binary's start-up alone, so the rest of
// lean/bare is the exchange with the registry. It also reports what the
// registry spent on each hook that asked it (serve-cpu-ms/call,
// serve-cs/call: its CPU time and its threads' context switches, from
// /proc, Linux only), which the machine's load moves far less than the
// wall times.
//
//	go test -run XXX -bench HookVsBare -benchtime 300x ./cmd/leasedeck
func BenchmarkHookVsBare(b *testing.B) {
	bare := filepath.Join(filepath.Dir(binary), "barehook")
	if out, err := exec.Command("go", "build", "-o", bare, "./testdata/barehook").CombinedOutput(); err != nil {
		b.Fatalf("build the bare hook: %v\n%s", err, out)
	}
	dir, _ := filepath.EvalSymlinks(b.TempDir())
	base := shortTempDir(b)
	env := isolatedEnv(base)
	if out, err := runIn(dir, env, "", binary, "init", dir); err != nil {
		b.Fatalf("init: %v %s", err, out)
	}
	serve := exec.Command(binary, "serve")
	serve.Dir, serve.Env = dir, env
	if err := serve.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { serve.Process.Signal(os.Interrupt); serve.Wait() }()
	raw, err := os.ReadFile(filepath.Join(payloadDir, "claude-code", "PreToolUse.json"))
	if err != nil {
		b.Fatal(err)
	}
	stdin := strings.ReplaceAll(string(raw), "/home/u/proj", dir)
	quiet, err := os.ReadFile(filepath.Join(payloadDir, "claude-code", "Notification.json"))
	if err != nil {
		b.Fatal(err)
	}
	allow := `"permissionDecision":"allow"`
	sides := []hookSide{
		{name: "lean", argv: []string{hookBinary, "hook", "claude-code", "--workspace", dir}, stdin: stdin, want: allow},
		{name: "hook", argv: []string{binary, "hook", "claude-code", "--workspace", dir}, stdin: stdin, want: allow},
		{name: "bare", argv: []string{bare}, stdin: stdin, want: allow},
		{name: "quiet", argv: []string{hookBinary, "hook", "claude-code", "--workspace", dir}, stdin: strings.ReplaceAll(string(quiet), "/home/u/proj", dir)},
	}
	// The first call waits for the registry and issues the session's lease.
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, _ := runIn(dir, env, stdin, sides[0].argv...)
		if strings.Contains(out, `"allow"`) {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("the hook never allowed: %s (socket %s)", out, workspace.Workspace{Root: dir}.ID())
		}
	}
	cpu0, cs0, counted := procCounters(serve.Process.Pid)
	b.ResetTimer()
	for b.Loop() {
		for i := range sides {
			sides[i].run(b, dir, env)
		}
	}
	b.StopTimer()
	if cpu1, cs1, ok := procCounters(serve.Process.Pid); counted && ok {
		// What the registry spent on each hook that asked it (lean and
		// hook, each a connection, the hello and the gate): its CPU and
		// its threads' context switches, which the load moves far less
		// than wall time.
		asked := float64(2 * b.N)
		b.ReportMetric((cpu1-cpu0)*1000/asked, "serve-cpu-ms/call")
		b.ReportMetric(float64(cs1-cs0)/asked, "serve-cs/call")
	}
	floor := medianOf(sides[2].lat)
	for _, s := range sides {
		b.ReportMetric(float64(medianOf(s.lat).Microseconds())/1000, s.name+"-ms")
		b.ReportMetric(float64(medianOf(s.cpu).Microseconds())/1000, s.name+"-cpu-ms")
	}
	b.ReportMetric(float64(medianOf(sides[0].lat))/float64(floor), "lean/bare")
	b.ReportMetric(float64(medianOf(sides[1].lat))/float64(floor), "hook/bare")
	b.ReportMetric(float64(medianOf(sides[3].lat))/float64(floor), "quiet/bare")
}

// hookSide is one program BenchmarkHookVsBare runs: its wall times as the
// client sees them, and the process's own CPU time (user + system): the
// difference is time spent waiting, for the registry's answer above all.
type hookSide struct {
	name        string
	argv        []string
	stdin, want string // the payload, and what the answer must hold
	lat, cpu    []time.Duration
}

func (s *hookSide) run(b *testing.B, dir string, env []string) {
	start := time.Now()
	out, cpu, err := runTimed(dir, env, s.stdin, s.argv...)
	took := time.Since(start)
	if err != nil || !strings.Contains(out, s.want) {
		b.Fatalf("%s: %v %s", s.argv[0], err, out)
	}
	s.lat, s.cpu = append(s.lat, took), append(s.cpu, cpu)
}

func runIn(dir string, env []string, stdin string, argv ...string) (string, error) {
	out, _, err := runTimed(dir, env, stdin, argv...)
	return out, err
}

// runTimed runs argv and also returns the CPU time the process used.
func runTimed(dir string, env []string, stdin string, argv ...string) (string, time.Duration, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, env, strings.NewReader(stdin)
	out, err := cmd.Output()
	var cpu time.Duration
	if cmd.ProcessState != nil {
		cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	return string(out), cpu, err
}

func medianOf(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
