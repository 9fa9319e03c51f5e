package hookhttp

import (
	"cmp"
	"context"
	"crypto/subtle"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/leasedeck/leasedeck/bridge"
	"github.com/leasedeck/leasedeck/registry/wire"
)

// MaxPayload bounds one hook payload, as the command hook bounds its
// stdin: a tool result can be large (it is digested, never stored).
const MaxPayload = 64 << 20

// MaxInFlight bounds the hooks answered at once; one past it is refused
// (503), which a client told to block on failure treats as a refusal.
const MaxInFlight = 64

// MaxBuffered bounds the payload bytes held at once across every hook
// being answered: a payload must say its length, and one that would take
// the total past this is refused (503) before it is read, so no caller can
// make the registry hold MaxInFlight payloads of MaxPayload bytes.
const MaxBuffered = 256 << 20

// MaxConnections bounds the connections held open at once (a client keeps
// its connection alive between hooks); one past it is closed at once, so
// that no local process can use up the registry's file descriptors, which
// its socket needs for everyone else.
const MaxConnections = 128

// DefaultBodyTimeout bounds a payload's arrival as ReadHeaderTimeout
// bounds its headers'.
const DefaultBodyTimeout = 10 * time.Second

// Server answers Claude Code's HTTP hooks for one registry.
type Server struct {
	Endpoint Endpoint
	// Connect opens a connection to the registry from inside its process
	// (registry.Handler.Local): served like a socket caller's, with no
	// operator token.
	Connect func(ctx context.Context) net.Conn
	// Policy is the enforcement mode and approval timeout in force, as the
	// registry answers them to a command hook's handshake.
	Policy func() (mode string, approvalTimeout time.Duration)
	// CapabilityDir keeps client sessions' capabilities, shared with the
	// command hook (bridge.CapabilityFiles).
	CapabilityDir string
	// EvictAfter: at the connection cap, a connection with no hook
	// answered for this long is closed to make room (0: DefaultEvictAfter).
	EvictAfter time.Duration
	// BodyTimeout is how long a payload's first 4 MiB may take to arrive,
	// a second more for each 4 MiB after (0: DefaultBodyTimeout).
	BodyTimeout time.Duration

	inFlight chan struct{}
	conns    conns
	bufMu    sync.Mutex
	buffered int64 // payload bytes reserved by the hooks being answered
}

// reserve takes n bytes of the payload budget, or reports that it cannot.
func (s *Server) reserve(n int64) bool {
	s.bufMu.Lock()
	defer s.bufMu.Unlock()
	if s.buffered+n > MaxBuffered {
		return false
	}
	s.buffered += n
	return true
}

func (s *Server) release(n int64) {
	s.bufMu.Lock()
	s.buffered -= n
	s.bufMu.Unlock()
}

// Listen binds the endpoint's loopback address.
func Listen(e Endpoint) (net.Listener, error) {
	return net.Listen("tcp4", e.Addr())
}

// Serve answers hooks on l until ctx ends; then it closes l and every
// connection (a hook waiting for a human is cancelled, and the client,
// told to block on failure, refuses the call).
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	s.inFlight = make(chan struct{}, MaxInFlight)
	s.conns.evictAfter = cmp.Or(s.EvictAfter, DefaultEvictAfter)
	// Counted here (conns) rather than with a limiting listener from
	// golang.org/x/net, which would refuse a new connection where this
	// closes the idlest to make room for it.
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
		MaxHeaderBytes: 64 << 10, ErrorLog: log.New(io.Discard, "", 0),
		BaseContext: func(net.Listener) context.Context { return ctx },
		ConnContext: s.conns.context,
		ConnState:   s.conns.state,
	}
	stop := context.AfterFunc(ctx, func() { srv.Close() })
	defer stop()
	err := srv.Serve(l)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// ServeHTTP refuses anything but a POST of a hook payload to the hook
// path, on the loopback address, with the endpoint's token. A refusal is
// a non-2xx answer with no decision in it: the client, told to block on
// failure, refuses the call, and any other client ignores a body there.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path != Path:
		http.Error(w, "not a leasedeck hook path", http.StatusNotFound)
		return
	case r.Method != http.MethodPost:
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "hooks are POSTed", http.StatusMethodNotAllowed)
		return
	case r.Host != s.Endpoint.Addr():
		// A page in a browser reaching the port through a name it
		// rebound to 127.0.0.1 names that name.
		http.Error(w, "wrong Host", http.StatusMisdirectedRequest)
		return
	case !s.authorized(r.Header.Get("Authorization")):
		http.Error(w, "this endpoint needs the hook token leasedeck install wrote", http.StatusUnauthorized)
		return
	}
	// Only a hook with the token keeps its connection from being the
	// idlest: a process without it cannot hold connections by sending
	// requests that are refused.
	end, ok := s.conns.begin(r)
	if !ok {
		return
	}
	defer end()
	select {
	case s.inFlight <- struct{}{}:
		defer func() { <-s.inFlight }()
	default:
		http.Error(w, "too many hooks at once", http.StatusServiceUnavailable)
		return
	}
	size := r.ContentLength
	switch {
	case size < 0:
		http.Error(w, "a hook payload must say its length (Content-Length)", http.StatusLengthRequired)
		return
	case size > MaxPayload:
		http.Error(w, "the hook payload is too large", http.StatusRequestEntityTooLarge)
		return
	case !s.reserve(size):
		http.Error(w, "too many large hook payloads at once", http.StatusServiceUnavailable)
		return
	}
	defer s.release(size)
	// The body is bounded in time as the headers are: a caller that
	// trickles it would hold its share of the payload budget and a slot.
	// Cleared once it is read, so a hook waiting for a human is not cut
	// off by the server's read of the next request.
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Now().Add(cmp.Or(s.BodyTimeout, DefaultBodyTimeout) + time.Duration(size/(4<<20))*time.Second))
	body := make([]byte, size)
	if _, err := io.ReadFull(r.Body, body); err != nil {
		// The deadline stays: the server would otherwise wait for the
		// rest of the body before it answers.
		w.Header().Set("Connection", "close")
		http.Error(w, "the hook payload could not be read: "+err.Error(), http.StatusRequestEntityTooLarge)
		return
	}
	rc.SetReadDeadline(time.Time{})
	configured := time.Duration(0)
	if n, err := strconv.Atoi(r.URL.Query().Get("timeout")); err == nil && n > 0 {
		configured = time.Duration(n) * time.Second
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(s.answer(r.Context(), body, configured))
}

func (s *Server) authorized(header string) bool {
	tok, ok := strings.CutPrefix(header, "Bearer ")
	return ok && len(s.Endpoint.Token) >= 32 &&
		subtle.ConstantTimeCompare([]byte(tok), []byte(s.Endpoint.Token)) == 1
}

// answer decides one payload as `leasedeck hook claude-code` does and
// says it in the client's JSON form.
func (s *Server) answer(ctx context.Context, payload []byte, configured time.Duration) []byte {
	a, _ := bridge.AdapterFor("claude-code")
	ev, err := a.Parse(payload)
	if err != nil {
		// A gate fails closed: nothing was asked of the registry.
		if ev == nil {
			ev = &bridge.Event{Client: a.Name()}
		}
		return httpBody(ev, bridge.Render(a, ev, bridge.FailVerdict("enforce", ev, "leasedeck could not read the hook payload: "+err.Error())))
	}
	if ev.Op == bridge.OpNone {
		return httpBody(ev, bridge.Render(a, ev, bridge.Verdict{Kind: bridge.NoOpinion}))
	}
	// The whole answer ends before the client's hook timeout, less the
	// margin a command hook keeps, so a held call ends in a deny.
	deadline := time.Now().Add(bridge.ApprovalWait(a, ev.Native, configured, 0))
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	mode, approval := s.Policy()
	req, err := ev.Request("")
	if err != nil {
		return httpBody(ev, bridge.Render(a, ev, bridge.FailVerdict(mode, ev, err.Error())))
	}
	wait := bridge.ApprovalWait(a, ev.Native, configured, approval)
	if left := time.Until(deadline) - 500*time.Millisecond; left < wait {
		wait = max(left, time.Millisecond)
	}
	client := wire.NewClient(s.Connect(ctx))
	defer client.Close()
	client.SetDeadline(deadline)
	resp := bridge.Process(client, req, bridge.ProcessOptions{Mode: mode, MaxWait: wait, Context: ctx,
		Capabilities: bridge.CapabilityFiles{Dir: s.CapabilityDir}})
	return httpBody(ev, bridge.Render(a, ev, bridge.VerdictFor(ev, resp)))
}
