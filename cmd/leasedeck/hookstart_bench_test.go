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

// BenchmarkHookVsBare runs `leasedeck hook claude-code` for a recorded
// PreToolUse against a running registry and, alternately on the same
// payload, a bare Go program that reads the payload and prints an allow
// (testdata/barehook): the floor any command hook written in Go pays to
// start. It reports both medians and their ratio (target ≤ 1.3).
//
//	go test -run XXX -bench HookVsBare -benchtime 200x ./cmd/leasedeck
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
	hook := []string{binary, "hook", "claude-code", "--workspace", dir}
	// The first call waits for the registry and issues the session's lease.
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, _ := runIn(dir, env, stdin, hook...)
		if strings.Contains(out, `"allow"`) {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("the hook never allowed: %s (socket %s)", out, workspace.Workspace{Root: dir}.ID())
		}
	}
	// Wall time as the client sees it, and the process's own CPU time
	// (user + system): the difference is time spent waiting, for the
	// registry's answer above all.
	var hookLat, bareLat, hookCPU, bareCPU []time.Duration
	b.ResetTimer()
	for b.Loop() {
		for _, side := range [][]string{hook, {bare}} {
			start := time.Now()
			out, cpu, err := runTimed(dir, env, stdin, side...)
			took := time.Since(start)
			if err != nil || !strings.Contains(out, `"permissionDecision":"allow"`) {
				b.Fatalf("%s: %v %s", side[0], err, out)
			}
			if side[0] == bare {
				bareLat, bareCPU = append(bareLat, took), append(bareCPU, cpu)
			} else {
				hookLat, hookCPU = append(hookLat, took), append(hookCPU, cpu)
			}
		}
	}
	b.StopTimer()
	h, f := medianOf(hookLat), medianOf(bareLat)
	b.ReportMetric(float64(h.Microseconds())/1000, "hook-ms")
	b.ReportMetric(float64(f.Microseconds())/1000, "bare-ms")
	b.ReportMetric(float64(h)/float64(f), "hook/bare")
	b.ReportMetric(float64(medianOf(hookCPU).Microseconds())/1000, "hook-cpu-ms")
	b.ReportMetric(float64(medianOf(bareCPU).Microseconds())/1000, "bare-cpu-ms")
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
