//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/registry/wire"
)

// envChaos runs the long chaos test (about 30 faults, a few minutes, and
// a second build of the binary with fault injection for the fsync step);
// without it a short round of each fault that needs no extra build runs.
const envChaos = "LEASEDECK_CHAOS"

// fault is one kind of harm done to the registry while the clients call.
type fault struct {
	name string
	do   func()
}

// chaos is a workspace whose registry is hit by faults while clients call
// it, and what the clients were answered.
type chaos struct {
	t       *testing.T
	w       *wsEnv
	jdir    string
	serveAs string   // the binary serve runs as
	env     []string // serve's environment
	trigger string   // the file that makes fsync fail ("" when not built)
	tmpfs   bool     // the journal is on a small file system that can fill
	token   string
	probe   string // a lease the test's own calls go under

	mu               sync.Mutex
	acked            map[string]string // event_id → verdict, of every answered gate call
	granted          []string          // lease ids of every answered grant
	allowedWhileDown []string          // allows answered while the journal was known unavailable
	calls            atomic.Int64      // answered gate calls
	down             atomic.Bool       // a fault is in force: nothing may be allowed
}

// The registry under concurrent socket clients (gate calls under four
// leases, lease issues, usage reports) through random SIGKILLs of the
// built `serve`, a full disk (a small tmpfs), an injected fsync error
// (EIO, from a build with fault injection) and finally a removed journal
// file. After each fault every acknowledged answer is in the journal and
// `journal verify` is clean; while a fault lasts nothing is allowed; after
// the removal the registry refuses everything and verify names it.
func TestChaosUnderLoad(t *testing.T) {
	long := os.Getenv(envChaos) == "1"
	c := newChaos(t, long)
	stop := c.startClients(4)
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	faults := []fault{{"SIGKILL of serve", c.kill}}
	if c.tmpfs {
		faults = append(faults, fault{"full disk", c.fillDisk})
	} else {
		t.Log("full-disk step skipped: a small tmpfs cannot be mounted here (needs root and mount permission)")
	}
	if c.trigger != "" {
		faults = append(faults, fault{"fsync EIO", c.failFsync})
	} else if !long {
		t.Log("fsync-error step skipped: it runs with " + envChaos + "=1 (it needs a build with -tags leasedeck_faultinject)")
	}
	rounds := len(faults) // each fault once
	if long {
		rounds = 30
	}
	deadline := time.Now().Add(4 * time.Minute)
	done := map[string]int{}
	for r := 0; r < rounds && time.Now().Before(deadline); r++ {
		fault := faults[r%len(faults)]
		if r >= len(faults) {
			fault = faults[rng.Intn(len(faults))]
		}
		c.progress(8)
		fault.do()
		c.progress(8)
		c.checkAcked()
		c.verifyClean()
		done[fault.name]++
	}
	c.removeJournalFile()
	stop()
	t.Logf("faults %v, then the audit file removed; %d gate calls answered, %d acknowledged, %d leases granted",
		done, c.calls.Load(), len(c.acked), len(c.granted))
}

func newChaos(t *testing.T, long bool) *chaos {
	w := newWorkspace(t)
	c := &chaos{t: t, w: w, jdir: filepath.Join(w.dir, ".leasedeck", "journal"), serveAs: binary, env: w.env, acked: map[string]string{}}
	if err := syscall.Mount("tmpfs", c.jdir, "tmpfs", 0, "size=128m,mode=0700"); err == nil {
		c.tmpfs = true
		t.Cleanup(func() { syscall.Unmount(c.jdir, syscall.MNT_DETACH) })
	}
	if long {
		dir := t.TempDir()
		c.serveAs = filepath.Join(dir, "leasedeck-faults")
		if out, err := exec.Command("go", "build", "-tags", "leasedeck_faultinject", "-o", c.serveAs, ".").CombinedOutput(); err != nil {
			t.Fatalf("build with fault injection: %v\n%s", err, out)
		}
		c.trigger = filepath.Join(dir, "fsync-eio")
		c.env = append(append([]string{}, w.env...), "LEASEDECK_FAULT_FSYNC_EIO="+c.trigger)
	}
	c.serve()
	t.Cleanup(func() { w.stop() })
	c.token = w.token(t)
	c.probe = w.issue(w.writeManifest("probe", 1_000_000, nil), "")
	return c
}

// serve starts the registry and waits until it serves.
func (c *chaos) serve() {
	c.t.Helper()
	cmd := exec.Command(c.serveAs, "serve")
	cmd.Dir, cmd.Env = c.w.dir, c.env
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		once := sync.Once{}
		for sc.Scan() {
			if strings.Contains(sc.Text(), "registry serving") {
				once.Do(func() { close(ready) })
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		c.t.Fatal("serve did not start")
	}
	c.w.serv = cmd
}

// client is one socket connection as the operator, redialled on loss.
func (c *chaos) client() *wire.Client {
	cl, err := wire.Dial(c.w.sock(), time.Second)
	if err != nil {
		return nil
	}
	cl.SetToken(c.token)
	cl.SetDeadline(time.Now().Add(5 * time.Second))
	return cl
}

func (c *chaos) startClients(n int) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	loop := func(fn func(cl *wire.Client) bool) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				cl := c.client()
				if cl == nil {
					time.Sleep(20 * time.Millisecond) // pacing while the registry is away, not synchronisation
					continue
				}
				for fn(cl) {
					select {
					case <-done:
						cl.Close()
						return
					default:
					}
				}
				cl.Close()
			}
		}()
	}
	for range n {
		lease := c.w.issue(c.w.writeManifest("chaos", 1_000_000, nil), "")
		loop(func(cl *wire.Client) bool { return c.gate(cl, lease) })
		loop(func(cl *wire.Client) bool {
			tokens := 10.0
			return cl.Usage(context.Background(), wire.UsageParams{LeaseID: lease, Tokens: &tokens}) == nil
		})
	}
	manifest := map[string]any{}
	raw, _ := os.ReadFile(c.w.writeManifest("issued", 10, nil))
	json.Unmarshal(raw, &manifest)
	loop(func(cl *wire.Client) bool {
		res, err := cl.Issue(context.Background(), wire.IssueParams{Manifest: wire.DocOf(manifest)})
		if err == nil && res.Status == "granted" {
			c.mu.Lock()
			c.granted = append(c.granted, res.LeaseID)
			c.mu.Unlock()
		}
		return err == nil
	})
	return func() {
		close(done)
		wg.Wait()
	}
}

// gate makes one call and records the answer; false: ask again on a new
// connection.
func (c *chaos) gate(cl *wire.Client, lease string) bool {
	down := c.down.Load() // read before the call: a fault in force all through it
	a, err := cl.Gate(context.Background(), wire.GateParams{LeaseID: lease, Tool: "Bash",
		Input: wire.DocOf(map[string]any{"command": "git status"}), Client: "chaos"})
	if err != nil {
		return !errors.Is(err, wire.ErrUnreachable)
	}
	c.calls.Add(1)
	c.mu.Lock()
	defer c.mu.Unlock()
	if a.Verdict == wire.VerdictAllow && (a.EventID == "" || down && c.down.Load()) {
		c.allowedWhileDown = append(c.allowedWhileDown, a.EventID)
	}
	if a.EventID != "" {
		c.acked[a.EventID] = string(a.Verdict)
	}
	return true
}

// progress waits until the clients have had n more gate calls answered.
func (c *chaos) progress(n int64) {
	c.t.Helper()
	want := c.calls.Load() + n
	deadline := time.Now().Add(60 * time.Second)
	for c.calls.Load() < want {
		if time.Now().After(deadline) {
			c.t.Fatalf("the clients made no progress: %d answered, waiting for %d\n%s", c.calls.Load(), want, c.w.health())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (c *chaos) kill() {
	c.w.kill(syscall.SIGKILL)
	c.serve()
}

// outage holds a fault (begin) until the registry refuses, checks that
// it keeps refusing and says it is retrying, then ends it and waits for
// the registry to resume by itself.
func (c *chaos) outage(what string, begin, end func()) {
	c.t.Helper()
	begin()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(c.w.health(), "retry") {
		if time.Now().After(deadline) {
			end()
			c.t.Fatalf("%s: the registry never noticed:\n%s", what, c.w.health())
		}
		time.Sleep(10 * time.Millisecond)
	}
	c.down.Store(true)
	if ok, r := c.w.allowedNow(c.probe); ok {
		c.t.Errorf("%s: a call was allowed while the journal cannot be written: %s", what, r)
	}
	c.down.Store(false)
	end()
	for !strings.Contains(c.w.health(), `"health": "ok"`) {
		if time.Now().After(deadline.Add(30 * time.Second)) {
			c.t.Fatalf("%s: the registry did not resume:\n%s", what, c.w.health())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (c *chaos) fillDisk() {
	filler := filepath.Join(c.jdir, "filler")
	c.outage("full disk", func() {
		f, err := os.Create(filler)
		if err != nil {
			c.t.Fatal(err)
		}
		defer f.Close()
		block := make([]byte, 64<<10)
		for {
			if _, err := f.Write(block); err != nil {
				break // ENOSPC: the disk is full
			}
		}
	}, func() { os.Remove(filler) })
}

func (c *chaos) failFsync() {
	c.outage("fsync error", func() {
		if err := os.WriteFile(c.trigger, nil, 0o600); err != nil {
			c.t.Fatal(err)
		}
	}, func() { os.Remove(c.trigger) })
}

// checkAcked: every gate answer a client got with its event id, and every
// lease granted, is in the journal; nothing was allowed during a fault.
func (c *chaos) checkAcked() {
	c.t.Helper()
	// What was acknowledged before the files are read must be in them.
	c.mu.Lock()
	acked := make(map[string]string, len(c.acked))
	for id, v := range c.acked {
		acked[id] = v
	}
	granted := append([]string{}, c.granted...)
	allowedWhileDown := append([]string{}, c.allowedWhileDown...)
	c.mu.Unlock()
	events := map[string]bool{}
	for _, l := range readLines(c.t, filepath.Join(c.jdir, "audit.jsonl")) {
		var ev struct {
			ID string `json:"event_id"`
		}
		if json.Unmarshal(l, &ev) == nil {
			events[ev.ID] = true
		}
	}
	leases := map[string]bool{}
	for _, l := range readLines(c.t, filepath.Join(c.jdir, "leases.jsonl")) {
		var r struct {
			Event   string `json:"event"`
			LeaseID string `json:"lease_id"`
		}
		if json.Unmarshal(l, &r) == nil && r.Event == "granted" {
			leases[r.LeaseID] = true
		}
	}
	for id, verdict := range acked {
		if !events[id] {
			c.t.Errorf("an acknowledged %s (event %s) is not in the journal", verdict, id)
		}
	}
	for _, id := range granted {
		if !leases[id] {
			c.t.Errorf("granted lease %s is not in the journal", id)
		}
	}
	if len(allowedWhileDown) > 0 {
		c.t.Errorf("allowed while the journal could not be written: %v", allowedWhileDown)
	}
}

func readLines(t *testing.T, path string) [][]byte {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Split(b, []byte("\n"))
}

// verifyClean: the journal verifies while the registry serves; what it
// notes about itself (lines never acknowledged and moved aside, writing
// resumed) is expected, a break is not.
func (c *chaos) verifyClean() {
	c.t.Helper()
	if r := c.w.run("", "journal", "verify"); r.code != 0 {
		c.t.Fatalf("journal verify after a fault: %+v", r)
	}
}

// removeJournalFile is the last fault, the one no retry can mend: the
// audit file removed under the registry. It refuses everything from then
// on (fails closed), and verify names the removal.
func (c *chaos) removeJournalFile() {
	c.t.Helper()
	c.checkAcked()
	lease := c.w.issue(c.w.writeManifest("after", 100, nil), "")
	if err := os.Remove(filepath.Join(c.jdir, "audit.jsonl")); err != nil {
		c.t.Fatal(err)
	}
	c.down.Store(true)
	for range 20 {
		if ok, r := c.w.allowedNow(lease); ok {
			c.t.Fatalf("allowed after the audit file was removed: %s", r)
		}
	}
	if h := c.w.health(); !strings.Contains(h, "removed") {
		c.t.Errorf("status after the removal does not say so:\n%s", h)
	}
	c.w.stop()
	r := c.w.run("", "journal", "verify")
	if r.code != 1 || !strings.Contains(r.stdout, "audit.jsonl") || !strings.Contains(r.stdout, "removed") {
		c.t.Fatalf("verify after the audit file was removed: %+v", r)
	}
}
