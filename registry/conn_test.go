package registry

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/registry/wire"
)

// servedWith serves f's service with lim on a real Unix socket.
func servedWith(t *testing.T, f *fixture, lim ConnLimits) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "r.sock")
	l, err := Listen(sock)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	h := NewHandler(f.svc, testToken)
	h.SetLimits(lim)
	go func() {
		h.Serve(ctx, l)
		close(done)
	}()
	t.Cleanup(func() { cancel(); <-done })
	return sock
}

// answerThenEOF reads one answer line from c and then expects the
// registry to close the connection; it returns the answer's error code.
func answerThenEOF(t *testing.T, c net.Conn) wire.Code {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(c)
	line, err := r.ReadBytes('\n')
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	var a rawAnswer
	if err := json.Unmarshal(line, &a); err != nil || a.Error == nil {
		t.Fatalf("answer %s: %v", line, err)
	}
	if _, err := r.ReadByte(); err != io.EOF {
		t.Fatalf("after %s the connection is still open: %v", a.Error.Code, err)
	}
	return a.Error.Code
}

// One past the cap is served in the place of the connection idle
// longest, which is closed; the others are served. (When every one has a
// call being answered, the new one is refused: connevict_test.go.)
func TestConnectionCap(t *testing.T) {
	f := newFixture(t)
	sock := servedWith(t, f, ConnLimits{MaxConnections: 3, EvictAfter: time.Nanosecond})
	var held []*rawConn
	for range 3 {
		r := dialRaw(t, sock)
		if a := r.send(`{"op":"status"}`); !a.OK {
			t.Fatalf("within the cap: %+v", a)
		}
		held = append(held, r)
	}
	extra := dialRaw(t, sock)
	if a := extra.send(`{"op":"status"}`); !a.OK {
		t.Fatalf("past the cap: %+v", a)
	}
	// One of the held connections was closed to make room: the idlest,
	// held[0], unless its answer was still being written when extra came
	// (its goroutine descheduled right after the write, on a loaded
	// machine), which keeps a connection from being closed; then the next
	// idlest. Which goes first among silent ones is
	// TestIdleConnectionsDoNotShutOthersOut's.
	closed := -1
	for i, r := range held {
		r.c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		if _, err := r.r.ReadByte(); err == io.EOF {
			if closed >= 0 {
				t.Fatalf("held connections %d and %d were both closed for one new one", closed, i)
			}
			closed = i
		}
	}
	if closed < 0 {
		t.Fatal("no held connection was closed past the cap")
	}
	for i, r := range append(held, extra) {
		if i == closed {
			continue
		}
		r.c.SetDeadline(time.Now().Add(10 * time.Second))
		if a := r.send(`{"op":"status"}`); !a.OK {
			t.Fatalf("a connection kept past the cap: %+v", a)
		}
	}
}

// A silent connection is closed, a trickled line is refused too_slow,
// and a client that never reads its answers loses its connection instead
// of holding the registry's goroutines.
func TestConnectionDeadlines(t *testing.T) {
	f := newFixture(t)
	sock := servedWith(t, f, ConnLimits{IdleTimeout: 200 * time.Millisecond, LineTimeout: 200 * time.Millisecond, WriteTimeout: 200 * time.Millisecond})
	stop, slowest := ordinaryClient(t, sock)
	idle := dialRaw(t, sock)
	if _, err := idle.r.ReadByte(); err != io.EOF {
		t.Fatalf("an idle connection: %v, want EOF", err)
	}

	slow := dialRaw(t, sock)
	slow.c.Write([]byte(`{"op":`))
	if code := answerThenEOF(t, slow.c); code != wire.TooSlow {
		t.Fatalf("a trickled line: %s", code)
	}

	deaf := dialRaw(t, sock)
	wrote := make(chan error, 1)
	go func() {
		line := []byte(strings.Repeat(`{"op":"leases"}`+"\n", 1000))
		for {
			if _, err := deaf.c.Write(line); err != nil {
				wrote <- err
				return
			}
		}
	}()
	select {
	case err := <-wrote:
		if !errors.Is(err, syscall.EPIPE) && !errors.Is(err, syscall.ECONNRESET) {
			t.Fatalf("a client that does not read: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a client that never reads still holds its connection after 20 s")
	}
	if a := dialRaw(t, sock).send(`{"op":"status"}`); !a.OK {
		t.Fatalf("a new client afterwards: %+v", a)
	}
	close(stop)
	if worst := <-slowest; worst > 3*time.Second { // a call stalled behind an abuser waits out its deadline or its whole send: far longer
		t.Errorf("the ordinary client's slowest call beside the abusers: %v", worst)
	}
}

// ordinaryClient calls status over one connection until stop closes,
// then reports its slowest call (an hour for a failed one).
func ordinaryClient(t *testing.T, sock string) (chan struct{}, chan time.Duration) {
	stop, slowest := make(chan struct{}), make(chan time.Duration, 1)
	c := dialTest(t, sock, "")
	go func() {
		var worst time.Duration
		for {
			select {
			case <-stop:
				slowest <- worst
				return
			default:
			}
			t0 := time.Now()
			if _, err := c.Status(context.Background()); err != nil {
				slowest <- time.Hour
				return
			}
			worst = max(worst, time.Since(t0))
		}
	}()
	return stop, slowest
}

// A gate call waiting for a human is not idle: its wait is bounded by
// the approval timeout (2 s here), never cut by the idle deadline.
func TestApprovalWaitOutlivesIdleTimeout(t *testing.T) {
	f := newFixture(t)
	id := f.issue(agentManifest("a", 1000, nil), "")
	sock := servedWith(t, f, ConnLimits{IdleTimeout: 50 * time.Millisecond})
	c := dialTest(t, sock, testToken)
	start := time.Now()
	a, err := c.Gate(context.Background(), wire.GateParams{LeaseID: id, Tool: "Bash", Input: wire.DocOf(map[string]any{"command": "rm -rf src/x"})})
	if err != nil || a.Verdict != wire.VerdictDeny || time.Since(start) < time.Second {
		t.Fatalf("after %v: %+v %v (want the approval timeout's deny)", time.Since(start), a, err)
	}
}

// Many clients that send most of a message and no newline take no memory
// for good: each is answered too_large and dropped, its buffer released,
// and an ordinary client is answered promptly throughout.
func TestUnfinishedMessagesAreNotKept(t *testing.T) {
	f := newFixture(t)
	id := f.issue(agentManifest("a", 100000, nil), "")
	sock := serveFor(t, f)
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)

	stop := make(chan struct{})
	slowest := make(chan time.Duration, 1)
	go func() {
		c, err := wire.Dial(sock, 5*time.Second)
		if err != nil {
			slowest <- time.Hour
			return
		}
		defer c.Close()
		c.SetToken("tok")
		var worst time.Duration
		for {
			select {
			case <-stop:
				slowest <- worst
				return
			default:
			}
			t0 := time.Now()
			a, err := c.Gate(context.Background(), wire.GateParams{LeaseID: id, Tool: "Bash", Input: wire.DocOf(map[string]any{"command": "git status"})})
			if err != nil || a.Verdict != wire.VerdictAllow {
				slowest <- time.Hour
				return
			}
			worst = max(worst, time.Since(t0))
		}
	}()

	const abusers = 32
	chunk := []byte(`{"op":"issue","manifest":"` + strings.Repeat("x", 1<<20))
	var wg sync.WaitGroup
	codes := make(chan wire.Code, abusers)
	for range abusers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("unix", sock)
			if err != nil {
				codes <- "dial"
				return
			}
			defer c.Close()
			go func() {
				for range 5 { // 5 MiB, no newline
					if _, err := c.Write(chunk); err != nil {
						return
					}
				}
			}()
			c.SetReadDeadline(time.Now().Add(30 * time.Second))
			var a rawAnswer
			if err := json.NewDecoder(c).Decode(&a); err != nil || a.Error == nil {
				codes <- "no answer"
				return
			}
			codes <- a.Error.Code
		}()
	}
	wg.Wait()
	close(codes)
	for code := range codes {
		if code != wire.TooLarge {
			t.Errorf("an unfinished 5 MiB message: %s", code)
		}
	}
	close(stop)
	if worst := <-slowest; worst > 3*time.Second { // a call stalled behind an abuser waits out its deadline or its whole send: far longer
		t.Errorf("the ordinary client's slowest call while 32 clients abused: %v", worst)
	}
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapInuse) - int64(before.HeapInuse); grew > 8<<20 {
		t.Errorf("the heap grew %d MiB and kept it", grew>>20)
	}
}
