package journal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// collector keeps what Tail delivered, per file, as epochs: a new epoch
// starts at every Reset.
type collector struct {
	mu       sync.Mutex
	epochs   [2][][][]byte
	resets   [2][]string
	problems int
	breaks   []Break
	batches  int
}

func (c *collector) run(in <-chan Batch) {
	for b := range in {
		c.mu.Lock()
		c.batches++
		if b.Reset != "" || len(c.epochs[b.Kind]) == 0 {
			c.epochs[b.Kind] = append(c.epochs[b.Kind], nil)
			c.resets[b.Kind] = append(c.resets[b.Kind], b.Reset)
		}
		e := &c.epochs[b.Kind][len(c.epochs[b.Kind])-1]
		for _, l := range b.Lines {
			*e = append(*e, append([]byte(nil), l.Raw...))
		}
		c.problems += len(b.Problems)
		c.breaks = append(c.breaks, b.Breaks...)
		c.mu.Unlock()
	}
}

// current is the epoch being delivered for k.
func (c *collector) current(k Kind) [][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.epochs[k]) == 0 {
		return nil
	}
	return c.epochs[k][len(c.epochs[k])-1]
}

// waitFor waits until the current epoch of k holds exactly the lines of
// path, failing on anything else once time is up.
func (c *collector) waitFor(t *testing.T, k Kind, path string, epochs int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		want := fileLines(t, path)
		want = want[:len(want)-1]
		got := c.current(k)
		c.mu.Lock()
		n := len(c.epochs[k])
		c.mu.Unlock()
		if n == epochs && equalLines(got, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: epoch %d/%d has %d lines, the file %d (equal prefix: %v)", k, n, epochs, len(got), len(want), isPrefix(got, want))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func equalLines(got, want [][]byte) bool {
	if len(got) != len(want) {
		return false
	}
	return isPrefix(got, want)
}

func isPrefix(got, want [][]byte) bool {
	if len(got) > len(want) {
		return false
	}
	for i := range got {
		if !bytes.Equal(got[i], bytes.TrimSuffix(want[i], []byte("\n"))) {
			return false
		}
	}
	return true
}

func burst(t *testing.T, w *Writer, base, n int) {
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < n; i++ {
				id := base + g*n + i
				if _, err := w.Append(Leases, heartbeat(id)); err != nil {
					t.Error(err)
				}
				if i%2 == 0 {
					if _, err := w.Append(Audit, gateAllowed(id)); err != nil {
						t.Error(err)
					}
				}
			}
		}()
	}
	wg.Wait()
}

func TestTail(t *testing.T) {
	dir := t.TempDir()
	leases, audit := journalPath(dir, Leases), journalPath(dir, Audit)
	w := openT(t, dir)
	appendT(t, w, Leases, heartbeat(1)) // some history before Tail starts

	ctx, cancel := context.WithCancel(context.Background())
	out := make(chan Batch)
	c := &collector{}
	go c.run(out)
	tailErr := make(chan error, 1)
	go func() { tailErr <- Tail(ctx, dir, TailOptions{Key: testKey}, out) }()

	// Bursts: many appends from several goroutines, with pauses.
	for b := 0; b < 5; b++ {
		burst(t, w, 1000*(b+1), 50)
		time.Sleep(time.Duration(b*7) * time.Millisecond)
	}
	c.waitFor(t, Leases, leases, 1)
	c.waitFor(t, Audit, audit, 1)

	// Truncation: the file shrinks below what was read, and grows again.
	w.Close()
	if err := os.Truncate(leases, 0); err != nil {
		t.Fatal(err)
	}
	w = openT(t, dir)
	burst(t, w, 10000, 5)
	c.waitFor(t, Leases, leases, 2)

	// Rewritten in place, longer than before, in one go: the size alone
	// would not show it; the last line read no longer being there does.
	w.Close()
	if err := os.WriteFile(leases, buildJournal(t, 300, func(i int) map[string]any { return heartbeat(20000 + i) }), 0o600); err != nil {
		t.Fatal(err)
	}
	c.waitFor(t, Leases, leases, 3)

	// Rotation: appends, then at once the file is renamed away and a new
	// one starts. What went into the old file first must still come out.
	w = openT(t, dir)
	burst(t, w, 30000, 40)
	w.Close()
	if err := os.Rename(leases, leases+".1"); err != nil {
		t.Fatal(err)
	}
	w = openT(t, dir)
	burst(t, w, 40000, 10)
	w.Close()
	c.waitFor(t, Leases, leases, 4)
	c.waitFor(t, Audit, audit, 1)

	cancel()
	if err := <-tailErr; !errors.Is(err, context.Canceled) {
		t.Fatalf("Tail returned %v", err)
	}
	close(out)
	rotated := fileLines(t, leases+".1")
	rotated = rotated[:len(rotated)-1]
	c.mu.Lock()
	defer c.mu.Unlock()
	if !equalLines(c.epochs[Leases][2], rotated) {
		t.Fatalf("the rotated file was not delivered whole: %d lines of %d", len(c.epochs[Leases][2]), len(rotated))
	}
	if want := fmt.Sprint([]string{"", "truncated", "truncated", "replaced"}); fmt.Sprint(c.resets[Leases]) != want {
		t.Fatalf("resets %q, want %s", c.resets[Leases], want)
	}
	if c.problems != 0 || len(c.breaks) != 0 {
		t.Fatalf("%d problems, breaks:\n%s", c.problems, breaksString(c.breaks))
	}
	t.Logf("%d batches", c.batches)
}

func TestTailFromOffsets(t *testing.T) {
	dir := t.TempDir()
	fillJournal(t, dir, 5)
	leases := journalPath(dir, Leases)
	lines, next, _ := ReadFrom(leases, 0)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := make(chan Batch, 16)
	go Tail(ctx, dir, TailOptions{From: map[Kind]int64{Leases: lines[2].Offset, Audit: 1 << 40}}, out)
	got := map[Kind]Batch{}
	for len(got) < 2 {
		select {
		case b := <-out:
			got[b.Kind] = b
		case <-time.After(5 * time.Second):
			t.Fatal("no batch")
		}
	}
	if b := got[Leases]; b.Reset != "" || len(b.Lines) != 3 || b.Lines[0].Number != 3 || b.Next != next {
		t.Fatalf("leases from an offset: reset %q, %d lines, next %d", b.Reset, len(b.Lines), b.Next)
	}
	if b := got[Audit]; b.Reset != "truncated" || len(b.Lines) != 5 {
		t.Fatalf("audit from past its end: reset %q, %d lines", b.Reset, len(b.Lines))
	}
}

// A file that appears after Tail started, partial lines completed later,
// and bad lines reported without stopping.
func TestTailCreatedLaterAndPartialLines(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := make(chan Batch, 16)
	go Tail(ctx, dir, TailOptions{}, out)
	time.Sleep(20 * time.Millisecond)
	data := buildJournal(t, 3, heartbeat)
	cut := len(data) - 40
	path := journalPath(dir, Leases)
	os.WriteFile(path, data[:cut], 0o600)
	var lines []Line
	var problems []*LineError
	wait := func(n int) {
		deadline := time.After(5 * time.Second)
		for len(lines)+len(problems) < n {
			select {
			case b := <-out:
				lines = append(lines, b.Lines...)
				problems = append(problems, b.Problems...)
			case <-deadline:
				t.Fatalf("have %d lines and %d problems, want %d", len(lines), len(problems), n)
			}
		}
	}
	wait(2)
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.Write(data[cut:])
	f.WriteString("not json\n")
	f.Close()
	wait(4)
	if len(lines) != 3 || lines[2].Seq != 3 || len(problems) != 1 || problems[0].Number != 4 {
		t.Fatalf("lines %d, problems %v", len(lines), problems)
	}
}

// The tailer checks the chain of what it delivers, with the same Checker
// as Verify: a line forged under another key, a line removed and a
// repeated line are each reported in the batch that carries them, and
// reading from an offset checks from the first line read.
func TestTailChecksTheChain(t *testing.T) {
	dir := t.TempDir()
	path := journalPath(dir, Leases)
	good := bytes.SplitAfter(buildJournal(t, 6, heartbeat), []byte("\n"))
	writeLines(t, path, good[:2])
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := make(chan Batch, 16)
	go Tail(ctx, dir, TailOptions{Key: testKey, From: map[Kind]int64{Leases: int64(len(good[0]))}}, out)
	var breaks []Break
	lines := 0
	wait := func(n int) {
		deadline := time.After(5 * time.Second)
		for lines < n {
			select {
			case b := <-out:
				lines += len(b.Lines)
				breaks = append(breaks, b.Breaks...)
			case <-deadline:
				t.Fatalf("have %d lines, want %d", lines, n)
			}
		}
	}
	wait(1)
	if len(breaks) != 0 {
		t.Fatalf("a tail from the second line reported %s", breaksString(breaks))
	}
	// Seq 3 under another key, seq 4 skipped, seq 5 twice.
	other := bytes.SplitAfter(buildJournalKey(t, 3, heartbeat, bytes.Repeat([]byte{1}, 32)), []byte("\n"))
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.Write(other[2])
	f.Write(good[4])
	f.Write(good[4])
	f.Close()
	wait(4)
	got := breaksString(breaks)
	for _, want := range []string{"seq 3: mac mismatch", "seq 5: seq 4 is missing", "seq 5 repeated"} {
		if !strings.Contains(got, want) {
			t.Errorf("breaks lack %q:\n%s", want, got)
		}
	}
}
