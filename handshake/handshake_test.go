package handshake

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"
)

// registry answers hello on a real Unix socket as the registry does (or,
// with a wrong key or a lying pid, as a squatter might).
func registry(t *testing.T, dir string, key []byte, pid int, mode string) string {
	t.Helper()
	sock := filepath.Join(dir, "s.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				sc := bufio.NewScanner(c)
				for sc.Scan() {
					var m map[string]any
					json.Unmarshal(sc.Bytes(), &m)
					nonce, _ := m["nonce"].(string)
					res := Answer{Workspace: "/ws", PID: pid, Proof: Proof(key, nonce, "/ws", pid), Mode: mode}
					b, _ := json.Marshal(map[string]any{"id": m["id"], "ok": true, "result": res})
					c.Write(append(b, '\n'))
				}
			}()
		}
	}()
	return sock
}

func shortDir(t *testing.T) string {
	d, err := os.MkdirTemp("", "hs")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

func holdLock(t *testing.T, path string) func() {
	t.Helper()
	l := flock.New(path)
	if ok, err := l.TryLock(); !ok || err != nil {
		t.Fatalf("lock: %v %v", ok, err)
	}
	return func() { l.Unlock() }
}

func TestVerifyTellsTheRegistryFromSquatters(t *testing.T) {
	key := []byte(strings.Repeat("k", 64))
	lockSupported := true
	if _, err := LockHolders(os.Args[0]); err != nil {
		lockSupported = false
	}
	for _, c := range []struct {
		name     string
		key      []byte
		pid      int
		mode     string
		locked   bool
		want     string // "" for believed
		needLock bool   // only where the OS lists lock holders
	}{
		{"the registry", key, os.Getpid(), "enforce", true, "", false},
		{"observe mode", key, os.Getpid(), "observe", true, "", false},
		{"wrong secret", []byte(strings.Repeat("x", 64)), os.Getpid(), "enforce", true, "cannot prove", false},
		{"lock not held", key, os.Getpid(), "enforce", false, "no process holds the registry lock", true},
		{"lies about its pid", key, os.Getpid() + 1, "enforce", true, "says it is pid", false},
		{"unknown mode", key, os.Getpid(), "off", true, "unknown enforcement mode", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.needLock && !lockSupported {
				t.Skip("lock holders are not listed on this OS")
			}
			dir := shortDir(t)
			lock := filepath.Join(dir, "registry.lock")
			os.WriteFile(lock, nil, 0o600)
			if c.locked {
				defer holdLock(t, lock)()
			}
			sock := registry(t, dir, c.key, c.pid, c.mode)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			conn, a, err := Target{Workspace: "/ws", Socket: sock, Lock: lock, Key: key}.Dial(ctx, 0)
			if c.want == "" {
				if err != nil {
					t.Fatalf("the registry is not believed: %v", err)
				}
				conn.Close()
				if a.Mode != c.mode {
					t.Errorf("mode %q", a.Mode)
				}
				return
			}
			var sq *SquatterError
			if !errors.As(err, &sq) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want a squatter error saying %q", err, c.want)
			}
		})
	}
}

func TestLockHoldersNamesThisProcess(t *testing.T) {
	dir := shortDir(t)
	lock := filepath.Join(dir, "registry.lock")
	os.WriteFile(lock, nil, 0o600)
	if _, err := LockHolders(lock); err != nil {
		t.Skipf("not on this OS: %v", err)
	}
	if h, err := LockHolders(lock); err != nil || len(h) != 0 {
		t.Fatalf("unlocked: %v %v", h, err)
	}
	unlock := holdLock(t, lock)
	if h, err := LockHolders(lock); err != nil || !slices.Contains(h, os.Getpid()) {
		t.Fatalf("locked by us: %v %v", h, err)
	}
	unlock()
	if h, _ := LockHolders(lock); len(h) != 0 {
		t.Fatalf("after unlock: %v", h)
	}
	if h, err := LockHolders(filepath.Join(dir, "missing")); err != nil || len(h) != 0 {
		t.Fatalf("missing lock file: %v %v", h, err)
	}
}

// A registry that accepts and never answers is given up on at the
// deadline, not waited for.
func TestSilentRegistryEndsAtTheDeadline(t *testing.T) {
	dir := shortDir(t)
	sock := filepath.Join(dir, "s.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	lock := filepath.Join(dir, "registry.lock")
	os.WriteFile(lock, nil, 0o600)
	defer holdLock(t, lock)()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, _, err = Target{Workspace: "/ws", Socket: sock, Lock: lock, Key: []byte(strings.Repeat("k", 64))}.Dial(ctx, 0)
	if !errors.Is(err, ErrNoRegistry) {
		t.Fatalf("got %v", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("took %v", took)
	}
}

// Nothing on the socket and nobody holding the lock: the dial gives up
// after the grace period.
func TestNoRegistryGivesUpAfterGrace(t *testing.T) {
	dir := shortDir(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	_, _, err := Target{Workspace: "/ws", Socket: filepath.Join(dir, "none.sock"), Lock: filepath.Join(dir, "l"), Key: []byte("k")}.Dial(ctx, 200*time.Millisecond)
	if !errors.Is(err, ErrNoRegistry) {
		t.Fatalf("got %v", err)
	}
	if took := time.Since(start); took < 200*time.Millisecond || took > 5*time.Second {
		t.Fatalf("gave up after %v", took)
	}
}

// A caller told the registry's pid believes that process alone, without
// the secret.
func TestPeerPIDWithoutTheSecret(t *testing.T) {
	if _, err := peerPID(nil); err != nil && strings.Contains(err.Error(), "not on this OS") {
		t.Skip(err)
	}
	dir := shortDir(t)
	sock := registry(t, dir, []byte(strings.Repeat("k", 64)), os.Getpid(), "enforce")
	for _, c := range []struct {
		pid  int
		want string
	}{{os.Getpid(), ""}, {os.Getpid() + 1, "not the registry"}} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		conn, _, err := Target{Workspace: "/ws", Socket: sock, PeerPID: c.pid}.Dial(ctx, 0)
		cancel()
		if c.want == "" {
			if err != nil {
				t.Fatalf("pid %d: %v", c.pid, err)
			}
			conn.Close()
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("pid %d: %v", c.pid, err)
		}
	}
}
