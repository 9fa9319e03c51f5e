package hookhttp

import (
	"context"
	"net"
	"net/http"
	"sync"
	"time"
)

// DefaultEvictAfter is how long a connection must have gone without a hook being
// answered on it before, at the cap, it is closed to make room for a new
// one: a client's request follows its connect at once, so a younger
// connection may have one on its way.
const DefaultEvictAfter = time.Second

// conns are the connections held open, so that at the cap the one idle
// longest makes room: a local process (it needs no token to connect) that
// holds MaxConnections connections it says nothing on, or trickles a
// request's headers on, must not shut the client's hooks out. A connection
// with a hook being answered (a gate waiting for a human) is never closed
// for another.
type conns struct {
	evictAfter time.Duration
	mu         sync.Mutex
	open       map[net.Conn]*connTrack
	count      int // open connections, evicted ones included until they end
}

// connTrack is one connection's state.
type connTrack struct {
	since   time.Time // accepted, or its last hook answered
	busy    int       // hooks being answered on it
	evicted bool
}

type connKey struct{}

// context is http.Server.ConnContext: it records the connection before
// the server sees it (ConnState's StateNew comes next).
func (cs *conns) context(ctx context.Context, c net.Conn) context.Context {
	t := &connTrack{since: time.Now()}
	cs.mu.Lock()
	if cs.open == nil {
		cs.open = map[net.Conn]*connTrack{}
	}
	cs.open[c] = t
	cs.mu.Unlock()
	return context.WithValue(ctx, connKey{}, t)
}

// state is http.Server.ConnState: past the cap a new connection closes
// the idlest to make room, or is closed itself when every other one is
// answering a hook or has just connected.
func (cs *conns) state(c net.Conn, st http.ConnState) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	switch st {
	case http.StateNew:
		cs.count++
		if cs.count > MaxConnections && !cs.evictIdlest(c) {
			cs.evict(c)
		}
	case http.StateClosed, http.StateHijacked:
		if _, ok := cs.open[c]; ok {
			delete(cs.open, c)
			cs.count--
		}
	}
}

// evictIdlest closes the connection other than c that has had no hook
// answered for longest (evictAfter at least) and none being answered.
func (cs *conns) evictIdlest(c net.Conn) bool {
	var victim net.Conn
	var oldest time.Time
	cutoff := time.Now().Add(-cs.evictAfter)
	for vc, t := range cs.open {
		if vc == c || t.evicted || t.busy > 0 || t.since.After(cutoff) {
			continue
		}
		if victim == nil || t.since.Before(oldest) {
			victim, oldest = vc, t.since
		}
	}
	if victim == nil {
		return false
	}
	cs.evict(victim)
	return true
}

func (cs *conns) evict(c net.Conn) {
	if t := cs.open[c]; t != nil {
		t.evicted = true
	}
	c.Close()
}

// begin marks a hook being answered on the request's connection; the
// returned func marks it answered. false: the connection was closed to
// make room in the meantime, and the hook is not answered.
func (cs *conns) begin(r *http.Request) (end func(), ok bool) {
	t, _ := r.Context().Value(connKey{}).(*connTrack)
	if t == nil {
		return func() {}, true
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if t.evicted {
		return nil, false
	}
	t.busy++
	return func() {
		cs.mu.Lock()
		t.busy--
		t.since = time.Now()
		cs.mu.Unlock()
	}, true
}
