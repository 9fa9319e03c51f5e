package journal

import (
	"bufio"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestCrash kills a child process that appends in a loop with SIGKILL at
// random moments, fifty times. After each kill the journal is reopened:
// every line the child was told was durable must be there, unchanged; the
// chain must verify; and appends must carry on. Some kills land while the
// child is still opening (and perhaps recovering) the journal.
//
// Anchored, the journal runs as the registry runs it (a kept head and
// signed checkpoints): a kill between a batch's fsync and its head's
// leaves lines that were never acknowledged, which reopening moves aside.
func TestCrash(t *testing.T) {
	t.Run("plain", func(t *testing.T) { crashRounds(t, 50, nil) })
	t.Run("anchored", func(t *testing.T) {
		state := t.TempDir()
		crashRounds(t, 25, &Options{HeadPath: filepath.Join(state, "journal.head"), SigningKeyPath: filepath.Join(state, "checkpoint.key"), CheckpointEvery: 50})
	})
}

func crashRounds(t *testing.T, rounds int, anchors *Options) {
	if testing.Short() {
		rounds = 10
	}
	var opts Options
	var env []string
	if anchors != nil {
		opts = *anchors
		env = []string{"JOURNAL_HEAD=" + opts.HeadPath, "JOURNAL_SIGNING=" + opts.SigningKeyPath}
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	acked := [2]map[uint64]int{{}, {}} // seq -> the n the child wrote in it
	recovered, earlyKills := 0, 0
	start := time.Now()
	for round := 0; round < rounds; round++ {
		cmd := child(t, "TestHelperAppendLoop", append(env, "JOURNAL_DIR="+dir)...)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		ready := make(chan struct{})
		var mu sync.Mutex
		var got [][3]uint64
		readDone := make(chan struct{})
		go func() {
			defer close(readDone)
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				f := strings.Fields(sc.Text())
				if len(f) == 1 && f[0] == "ready" {
					close(ready)
					continue
				}
				if len(f) != 3 {
					continue
				}
				k, _ := strconv.ParseUint(f[0], 10, 8)
				seq, _ := strconv.ParseUint(f[1], 10, 64)
				n, _ := strconv.ParseUint(f[2], 10, 64)
				mu.Lock()
				got = append(got, [3]uint64{k, seq, n})
				mu.Unlock()
			}
		}()
		if rng.Intn(5) == 0 {
			// Kill it early, maybe in the middle of Open and recovery.
			earlyKills++
			time.Sleep(time.Duration(rng.Intn(15)) * time.Millisecond)
		} else {
			select {
			case <-ready:
			case <-time.After(10 * time.Second):
				t.Fatal("child never became ready")
			}
			time.Sleep(time.Duration(5+rng.Intn(60)) * time.Millisecond)
		}
		cmd.Process.Signal(syscall.SIGKILL)
		<-readDone
		cmd.Wait()
		for _, g := range got {
			acked[g[0]][g[1]] = int(g[2])
		}

		// Open checks every line exactly as Verify does (same checker), so
		// no breaks here is a clean Verify of the journal as the crash left
		// it, after torn-tail recovery.
		w, err := Open(dir, testKey, opts)
		if err != nil {
			t.Fatalf("round %d: reopen: %v", round, err)
		}
		if b := w.Breaks(); len(b) > 0 {
			t.Fatalf("round %d: breaks after a crash:\n%s", round, breaksString(b))
		}
		recovered += len(w.Recoveries())
		seq, _, _ := w.Head(Leases)
		if a := appendT(t, w, Leases, heartbeat(1<<30+round)); a.Seq != seq+1 {
			t.Fatalf("round %d: append after reopen got seq %d, head was %d", round, a.Seq, seq)
		}
		w.Close()
	}
	if r := VerifyWith(dir, testKey, VerifyOptions{HeadPath: opts.HeadPath}); !r.OK() {
		t.Fatalf("verify: %s", breaksString(r.Breaks))
	}
	// Every acknowledged line is present, holding what was acknowledged.
	// Checking once at the end is enough: lines are never inserted, so a
	// line lost in some round would be missing, or its seq would hold
	// another line, now.
	total := 0
	for _, k := range Kinds {
		lines, _, err := ReadFrom(journalPath(dir, k), 0)
		if err != nil {
			t.Fatal(err)
		}
		bySeq := map[uint64]*Line{}
		for i := range lines {
			bySeq[lines[i].Seq] = &lines[i]
		}
		for seq, n := range acked[k] {
			l := bySeq[seq]
			if l == nil {
				t.Fatalf("%s: acknowledged seq %d is missing", k, seq)
			}
			if lease := leaseOf(k, l.Value); lease != testUUID(n) {
				t.Fatalf("%s seq %d holds %s, want the acknowledged %s", k, seq, lease, testUUID(n))
			}
		}
		total += len(acked[k])
	}
	t.Logf("%d rounds (%d killed early), %d acknowledged lines checked, %d torn tails recovered, in %v",
		rounds, earlyKills, total, recovered, time.Since(start).Round(time.Millisecond))
}

// TestHelperAppendLoop is the child of TestCrash: it appends from several
// goroutines until killed, printing "<kind> <seq> <n>" for each line the
// Writer said was durable.
func TestHelperAppendLoop(t *testing.T) {
	if !isHelper() {
		t.Skip("helper process")
	}
	var w *Writer
	var err error
	for i := 0; i < 100; i++ { // the parent may still hold the lock for a moment
		opts := Options{HeadPath: os.Getenv("JOURNAL_HEAD"), SigningKeyPath: os.Getenv("JOURNAL_SIGNING"), CheckpointEvery: 50}
		if w, err = Open(os.Getenv("JOURNAL_DIR"), testKey, opts); err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "open:", err)
		os.Exit(1)
	}
	out := bufio.NewWriter(os.Stdout)
	var mu sync.Mutex
	say := func(s string) {
		mu.Lock()
		out.WriteString(s)
		out.Flush()
		mu.Unlock()
	}
	say("ready\n")
	var n atomic.Int64
	n.Store(time.Now().UnixNano() % 1e9 * 1000)
	for g := 0; g < 12; g++ {
		go func() {
			for {
				i := int(n.Add(1))
				k, rec := Leases, heartbeat(i)
				if i%3 == 0 {
					k, rec = Audit, gateAllowed(i)
				}
				a, err := w.Append(k, rec)
				if err != nil {
					fmt.Fprintln(os.Stderr, "append:", err)
					os.Exit(1)
				}
				say(fmt.Sprintf("%d %d %d\n", k, a.Seq, i))
			}
		}()
	}
	select {}
}

// leaseOf is the lease a line names (a lease record's lease_id, or an
// audit event's details.lease_id).
func leaseOf(k Kind, m map[string]any) string {
	if s, ok := m["lease_id"].(string); ok {
		return s
	}
	if d, ok := m["details"].(map[string]any); ok {
		for _, name := range [...]string{"lease_id", "lease"} {
			if s, ok := d[name].(string); ok {
				return s
			}
		}
	}
	return ""
}
