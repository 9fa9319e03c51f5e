package hookhttp

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/bridge"
	"github.com/leasedeck/leasedeck/registry"
	"github.com/leasedeck/leasedeck/workspace"
)

// served is a real registry for a fresh workspace, its hook endpoint on a
// loopback port, and a count of the messages the endpoint sent it.
type served struct {
	dir      string
	ep       Endpoint
	messages atomic.Int64
	client   *http.Client
	fresh    atomic.Int64 // POSTs that opened a new TCP connection
}

// countingConn counts the requests written on the in-process registry
// connection (one line each).
type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c countingConn) Write(b []byte) (int, error) {
	c.n.Add(int64(bytes.Count(b, []byte("\n"))))
	return c.Conn.Write(b)
}

func serveWorkspace(t testing.TB) *served {
	t.Helper()
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	state, _ := filepath.EvalSymlinks(t.TempDir())
	os.Setenv(workspace.EnvStateHome, state)
	t.Cleanup(func() { os.Unsetenv(workspace.EnvStateHome) })
	res, err := workspace.Init(dir)
	if err != nil {
		t.Fatal(err)
	}
	w := res.Workspace
	p, err := w.LoadPolicy()
	if err != nil {
		t.Fatal(err)
	}
	key, err := w.LoadKey()
	if err != nil {
		t.Fatal(err)
	}
	svc, err := registry.Open(registry.Config{Workspace: w.Root, JournalDir: w.JournalDir(), LockPath: w.LockPath(), Key: key,
		HeadPath: w.HeadPath(), Policy: &registry.Policy{Root: p.Root, DefaultLifetime: p.DefaultLifetime,
			ApprovalTimeout: p.ApprovalTimeout, Mode: p.Mode, Hash: p.Hash, Agents: p.Agents, AgentHashes: p.AgentHashes,
			AgentFor: bridge.RuntimeAgent, Calls: p.Calls, ApproveIn: p.ApproveIn}})
	if err != nil {
		t.Fatal(err)
	}
	svc.Start()
	h := registry.NewHandler(svc, "operator-token-not-used-here")
	ep, err := Ensure(w.StateDir())
	if err != nil {
		t.Fatal(err)
	}
	l, err := Listen(ep)
	if err != nil {
		t.Fatal(err)
	}
	s := &served{dir: dir, ep: ep, client: &http.Client{Timeout: 30 * time.Second}}
	srv := &Server{Endpoint: ep, CapabilityDir: w.CapabilityDir(),
		Connect: func(ctx context.Context) net.Conn { return countingConn{h.Local(ctx), &s.messages} },
		Policy:  func() (string, time.Duration) { return "enforce", time.Minute }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, l) }()
	t.Cleanup(func() {
		cancel()
		<-done
		svc.Close()
	})
	return s
}

// payload is a recorded Claude Code payload for this workspace.
func (s *served) payload(t testing.TB, name string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "bridge", "testdata", "claude-code", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(raw), "/home/u/proj", s.dir)
}

// post sends one hook as Claude Code does and returns its answer and how
// many registry messages it took.
func (s *served) post(t testing.TB, body string) (answer string, messages int64) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.ep.Base()+"?timeout=150", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+s.ep.Token)
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		GotConn: func(ci httptrace.GotConnInfo) {
			if !ci.Reused {
				s.fresh.Add(1)
			}
		}}))
	before := s.messages.Load()
	resp, err := s.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, out)
	}
	return string(out), s.messages.Load() - before
}

// Once the session has begun, each tool hook costs the registry exactly
// one message (the gate by session; the report by session), and every
// POST of the session goes over the one connection the client keeps
// alive: no admit round trip before a report, no connection per hook.
func TestToolHooksTakeOneRoundTrip(t *testing.T) {
	s := serveWorkspace(t)
	if out, _ := s.post(t, s.payload(t, "UserPromptSubmit")); !strings.Contains(out, "additionalContext") {
		t.Fatalf("the prompt was not admitted: %s", out)
	}
	for _, c := range []struct{ payload, want string }{
		{"PreToolUse", `"permissionDecision":"allow"`},
		{"PostToolUse", "{}"},
		{"PreToolUse.Write", `"permissionDecision":"allow"`},
		{"PostToolUse.Write", "{}"},
	} {
		for range 3 {
			out, n := s.post(t, s.payload(t, c.payload))
			if !strings.Contains(out, c.want) {
				t.Fatalf("%s: %s", c.payload, out)
			}
			if n != 1 {
				t.Errorf("%s took %d registry messages, want 1", c.payload, n)
			}
		}
	}
	if n := s.fresh.Load(); n != 1 {
		t.Errorf("the session's POSTs opened %d connections, want 1", n)
	}
}

// BenchmarkToolHook is one tool call's two POSTs (PreToolUse, then
// PostToolUse) through a real registry over a kept-alive loopback
// connection: the registry's part of what Claude Code waits for per call
// (each decision journaled and fsync'd before it is answered).
func BenchmarkToolHook(b *testing.B) {
	s := serveWorkspace(b)
	s.post(b, s.payload(b, "UserPromptSubmit"))
	pre, post := s.payload(b, "PreToolUse"), s.payload(b, "PostToolUse")
	var preLat, postLat []time.Duration
	for b.Loop() {
		start := time.Now()
		s.post(b, pre)
		mid := time.Now()
		s.post(b, post)
		preLat, postLat = append(preLat, mid.Sub(start)), append(postLat, time.Since(mid))
	}
	for name, lat := range map[string][]time.Duration{"pre": preLat, "post": postLat} {
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, name+"-median-ms")
	}
}
