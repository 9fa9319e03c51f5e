package handshake

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A registry that ends between a hook's connect and its answer (stopped
// or crashed with the connection queued) is not a squatter: the dial
// goes on and is answered by the registry that comes back.
func TestDialAsksAgainAfterARegistryThatEnds(t *testing.T) {
	dir := shortDir(t)
	lock := filepath.Join(dir, "registry.lock")
	os.WriteFile(lock, nil, 0o600)
	defer holdLock(t, lock)()
	key := []byte(strings.Repeat("k", 64))
	sock := filepath.Join(dir, "s.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			if accepted.Add(1) <= 2 {
				c.Close() // the registry going away under the hook
				continue
			}
			go func() {
				defer c.Close()
				sc := bufio.NewScanner(c)
				for sc.Scan() {
					var m map[string]any
					json.Unmarshal(sc.Bytes(), &m)
					nonce, _ := m["nonce"].(string)
					res := Answer{Workspace: "/ws", PID: os.Getpid(), Proof: Proof(key, nonce, "/ws", os.Getpid()), Mode: "enforce"}
					b, _ := json.Marshal(map[string]any{"id": m["id"], "ok": true, "result": res})
					c.Write(append(b, '\n'))
				}
			}()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, a, err := Target{Workspace: "/ws", Socket: sock, Lock: lock, Key: key}.Dial(ctx, 0)
	if err != nil {
		t.Fatalf("a registry that comes back is not dialled again: %v", err)
	}
	conn.Close()
	if a.Mode != "enforce" || accepted.Load() != 3 {
		t.Fatalf("answer %+v after %d connections", a, accepted.Load())
	}
}
