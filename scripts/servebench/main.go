//go:build linux

// Command servebench measures the real start of `leasedeck serve` on a
// large journal: from the process's start to its first `status` answer,
// the wall time, the CPU time the process used and its peak RSS (from
// /proc), with and without a snapshot of the fold.
//
//	go run ./scripts/genjournal -lines 1000000 /tmp/leasedeck-1m      # once
//	go build -o /tmp/leasedeck ./cmd/leasedeck
//	go run ./scripts/servebench -bin /tmp/leasedeck -journal /tmp/leasedeck-1m -ws /tmp/leasedeck-1m-ws
//
// The workspace (-ws) is made once from the generated journal and its key
// (init, then the journal files copied in and the key put in the state
// directory) and reused; each start appends a few lines to its journal.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/leasedeck/leasedeck/registry/wire"
	"github.com/leasedeck/leasedeck/workspace"
)

func main() {
	bin := flag.String("bin", "", "the leasedeck binary")
	gen := flag.String("journal", "", "a directory written by scripts/genjournal")
	ws := flag.String("ws", "", "the benchmark workspace (made from -journal when it does not exist)")
	runs := flag.String("runs", "full,snapshot,snapshot", "the starts to measure, in order: full (snapshots removed first) or snapshot")
	flag.Parse()
	if *bin == "" || *gen == "" || *ws == "" {
		fmt.Fprintln(os.Stderr, "usage: servebench -bin BINARY -journal GENDIR -ws WORKSPACE [-runs full,snapshot]")
		os.Exit(2)
	}
	b := bench{bin: *bin, root: filepath.Join(*ws, "root"), base: filepath.Join(*ws, "x")}
	if err := b.setup(*gen); err != nil {
		fmt.Fprintln(os.Stderr, "servebench:", err)
		os.Exit(1)
	}
	fmt.Println("| start | wall to first status | CPU | peak RSS | serve said |")
	fmt.Println("|---|---|---|---|---|")
	for _, r := range strings.Split(*runs, ",") {
		m, err := b.start(r == "full")
		if err != nil {
			fmt.Fprintln(os.Stderr, "servebench:", err)
			os.Exit(1)
		}
		fmt.Printf("| %s | %.2f s | %.2f CPU-s | %d MB | %s |\n", r, m.wall.Seconds(), m.cpu, m.rssKB/1024, m.said)
	}
}

type bench struct{ bin, root, base string }

func (b bench) env() []string {
	return append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(b.base, "c"), "XDG_STATE_HOME="+filepath.Join(b.base, "s"), "LEASEDECK_WORKSPACE=")
}

func (b bench) state() string {
	return filepath.Join(b.base, "s", "leasedeck", workspace.Workspace{Root: b.root}.ID())
}

func (b bench) setup(gen string) error {
	if _, err := os.Stat(b.root); err == nil {
		return nil
	}
	if err := os.MkdirAll(b.root, 0o700); err != nil {
		return err
	}
	cmd := exec.Command(b.bin, "init", b.root)
	cmd.Env, cmd.Stderr = b.env(), os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("init: %w", err)
	}
	for _, f := range []string{"leases.jsonl", "audit.jsonl"} {
		if err := copyFile(filepath.Join(gen, "journal", f), filepath.Join(b.root, ".leasedeck", "journal", f)); err != nil {
			return err
		}
	}
	os.Remove(filepath.Join(b.state(), "journal.head"))
	return copyFile(filepath.Join(gen, "key"), filepath.Join(b.state(), "key"))
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

type measure struct {
	wall  time.Duration
	cpu   float64
	rssKB int64
	said  string
}

// start runs serve until it answers status, measures it, and stops it
// (SIGTERM: a clean Close, which writes a snapshot when lines were folded).
func (b bench) start(full bool) (measure, error) {
	if full {
		os.RemoveAll(filepath.Join(b.state(), "snapshots"))
	}
	cmd := exec.Command(b.bin, "serve")
	cmd.Dir, cmd.Env = b.root, b.env()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return measure{}, err
	}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return measure{}, err
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	var said []string
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		line := sc.Text()
		if strings.Contains(line, "snapshot") {
			said = append(said, strings.TrimPrefix(line, "leasedeck: "))
		}
		if strings.Contains(line, "registry serving") {
			break
		}
	}
	go io.Copy(io.Discard, stderr)
	c, err := wire.Dial(workspace.Workspace{Root: b.root, State: b.state()}.SocketPath(), 5*time.Second)
	if err != nil {
		return measure{}, err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.Status(ctx); err != nil {
		return measure{}, fmt.Errorf("status: %w", err)
	}
	m := measure{wall: time.Since(t0), said: strings.Join(said, "; ")}
	m.cpu, m.rssKB, err = procUsage(cmd.Process.Pid)
	return m, err
}

// procUsage reads a live process's CPU time (user+system) and peak RSS.
func procUsage(pid int) (cpu float64, hwmKB int64, err error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, err
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	for _, l := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			hwmKB, _ = strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		}
	}
	return (ut + st) / 100, hwmKB, nil // clock ticks: USER_HZ is 100 on Linux
}
