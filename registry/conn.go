package registry

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/leasedeck/leasedeck/registry/wire"
)

// ConnLimits bound what one client can hold of the registry: a hostile
// or stuck client must never stop it serving everyone else. A zero field
// takes its default.
type ConnLimits struct {
	// MaxConnections is how many connections are served at once; one
	// past it is answered too_many_connections and closed.
	MaxConnections int
	// IdleTimeout closes a connection that sends nothing while none of
	// its requests is being answered. A gate call waiting for a human is
	// being answered: its wait is bounded by the approval timeout instead.
	IdleTimeout time.Duration
	// LineTimeout bounds one message from its first byte to its newline
	// (a client that trickles a line is answered too_slow and closed).
	LineTimeout time.Duration
	// WriteTimeout bounds writing one answer, so a client that does not
	// read cannot hold the connection's goroutines.
	WriteTimeout time.Duration
	// PartialBytes caps the bytes of unfinished messages held across all
	// connections (each is also capped at wire.MaxMessage).
	PartialBytes int64
	// EvictAfter is how long a connection must have had no call answered
	// before, at the cap, it is closed to make room: a client's request
	// follows its connect at once, so a younger one may be on its way.
	EvictAfter time.Duration
}

// Default connection limits.
const (
	DefaultMaxConnections = 256
	DefaultIdleTimeout    = 2 * time.Minute
	DefaultLineTimeout    = 10 * time.Second
	DefaultWriteTimeout   = 10 * time.Second
	// DefaultPartialBytes lets 16 messages of the largest size be on
	// their way at once; what is past it is refused, not buffered.
	DefaultPartialBytes = 16 * (wire.MaxMessage + 2)
	DefaultEvictAfter   = time.Second
)

func (l ConnLimits) withDefaults() ConnLimits {
	if l.MaxConnections <= 0 {
		l.MaxConnections = DefaultMaxConnections
	}
	if l.IdleTimeout <= 0 {
		l.IdleTimeout = DefaultIdleTimeout
	}
	if l.LineTimeout <= 0 {
		l.LineTimeout = DefaultLineTimeout
	}
	if l.WriteTimeout <= 0 {
		l.WriteTimeout = DefaultWriteTimeout
	}
	if l.PartialBytes <= 0 {
		l.PartialBytes = DefaultPartialBytes
	}
	if l.EvictAfter <= 0 {
		l.EvictAfter = DefaultEvictAfter
	}
	return l
}

// SetLimits replaces the connection limits; call it before Serve.
func (h *Handler) SetLimits(l ConnLimits) { h.limits = l }

// Accept errors back off as net/http's server does: from 5 ms, doubling,
// to at most 1 s.
const (
	acceptBackoffMin = 5 * time.Millisecond
	acceptBackoffMax = time.Second
)

// Serve accepts connections on l until ctx ends. A failing accept (out
// of file descriptors, or anything else but a closed listener) is retried
// after a pause, never the end of the registry: the clients waiting in
// the backlog are answered once descriptors are free again.
func (h *Handler) Serve(ctx context.Context, l net.Listener) error {
	go func() {
		<-ctx.Done()
		l.Close()
	}()
	lim := h.limits.withDefaults()
	budget := &lineBudget{max: lim.PartialBytes}
	var open atomic.Int64
	var conns connSet
	var wg sync.WaitGroup
	defer wg.Wait()
	var pause time.Duration
	for {
		c, err := l.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if errors.Is(err, net.ErrClosed) {
				return err
			}
			pause = min(max(2*pause, acceptBackoffMin), acceptBackoffMax)
			select {
			case <-time.After(pause):
			case <-ctx.Done():
				return nil
			}
			continue
		}
		pause = 0
		if open.Add(1) > int64(lim.MaxConnections)+conns.closing.Load() && !conns.evictIdlest(lim.EvictAfter) {
			open.Add(-1)
			refuse(c, lim)
			continue
		}
		slot := conns.add()
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer open.Add(-1)
			defer conns.remove(slot)
			h.serveConn(ctx, c, lim, budget, slot)
		}()
	}
}

// connSet is the connections being served, so that at the cap the one
// idle longest can make room: a client holding connections it says
// nothing on (or starts lines on that it never ends) must not shut every
// other client out. A connection with a call being answered (a gate
// waiting for a human, an answer being written) is never closed for
// another.
type connSet struct {
	mu    sync.Mutex
	slots map[*connSlot]struct{}
	// closing counts the connections closed to make room whose serving
	// has not ended yet: the cap allows for them meanwhile.
	closing atomic.Int64
}

// connSlot is one served connection.
type connSlot struct {
	set     *connSet
	since   time.Time   // accepted, or its last answer written
	reader  *connReader // set once its reader runs
	evicted bool        // closed to make room
}

func (s *connSet) add() *connSlot {
	slot := &connSlot{set: s, since: time.Now()}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.slots == nil {
		s.slots = map[*connSlot]struct{}{}
	}
	s.slots[slot] = struct{}{}
	return slot
}

func (s *connSet) remove(slot *connSlot) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.slots, slot)
	if slot.evicted {
		s.closing.Add(-1)
	}
}

// serving records the connection's reader (closing it at once if it was
// chosen to make room before it started); nothing for no slot.
func (slot *connSlot) serving(r *connReader) {
	if slot == nil {
		return
	}
	slot.set.mu.Lock()
	defer slot.set.mu.Unlock()
	slot.reader = r
	if slot.evicted {
		r.hangup()
	}
}

// answered records that an answer was just written.
func (slot *connSlot) answered() {
	if slot == nil {
		return
	}
	slot.set.mu.Lock()
	defer slot.set.mu.Unlock()
	slot.since = time.Now()
}

// evictIdlest closes the connection with no call being answered that has
// been so longest, for after at least; false when there is none.
func (s *connSet) evictIdlest(after time.Duration) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	var victim *connSlot
	cutoff := time.Now().Add(-after)
	for slot := range s.slots {
		if slot.evicted || slot.since.After(cutoff) || (slot.reader != nil && slot.reader.busy.Load() > 0) {
			continue
		}
		if victim == nil || slot.since.Before(victim.since) {
			victim = slot
		}
	}
	if victim == nil {
		return false
	}
	victim.evicted = true
	s.closing.Add(1)
	if victim.reader != nil {
		victim.reader.hangup()
	} // else: accepted, not yet read: serving closes it
	return true
}

// refuse answers a connection past the cap with one error line. The
// line is small and a new socket's buffer empty, so the write does not
// wait; the deadline is only for a peer that is already gone, and is
// generous because on a loaded machine the deadline can pass before the
// write is even scheduled (which lost refusals under load).
func refuse(c net.Conn, lim ConnLimits) {
	c.SetWriteDeadline(time.Now().Add(time.Second))
	json.NewEncoder(c).Encode(wire.Response{Error: wire.Errorf(wire.TooManyConnections,
		"the registry already serves %d connections; try again later", lim.MaxConnections)})
	select {
	case lingering <- struct{}{}:
		go func() {
			defer func() { <-lingering }()
			lingerClose(c)
		}()
	default:
		c.Close()
	}
}

// lingering bounds the refused connections held open at once while their
// unread requests drain, so a flood past the cap cannot hold descriptors.
var lingering = make(chan struct{}, 512)

// lingerClose closes a refused connection without losing its answer.
// Closing a Unix socket whose request is still unread resets the peer,
// which may then never see the refusal (ECONNRESET instead of the line);
// so the write side is shut first, the peer's request read and dropped
// (bounded in size and time), and only then is the socket closed.
func lingerClose(c net.Conn) {
	defer c.Close()
	if uc, ok := c.(*net.UnixConn); ok {
		uc.CloseWrite()
	}
	c.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
	io.Copy(io.Discard, io.LimitReader(c, 64<<10))
}

// serveConn answers one connection's messages in order. A reader
// watches the connection all the while, so that when the caller hangs up
// a call it left waiting for a human is cancelled at once (journaled as
// cancelled, never approvable) instead of staying pending.
//
// slot, when not nil, is the connection's place in the served set (an
// in-process connection has none): its reader is recorded there, and the
// time of each answer, so that at the cap the idlest can make room.
func (h *Handler) serveConn(ctx context.Context, c net.Conn, lim ConnLimits, budget *lineBudget, slot *connSlot) {
	defer c.Close()
	cctx, hangup := context.WithCancel(context.WithValue(ctx, peerKey{}, peerPID(c)))
	defer hangup()
	rd := &readDeadline{c: c}
	stop := context.AfterFunc(cctx, rd.expire)
	defer stop()
	rc := &connReader{ctx: cctx, c: c, rd: rd, lim: lim, hangup: hangup,
		lines: newLineReader(c, wire.MaxMessage, budget), msgs: make(chan inbound, maxQueued)}
	slot.serving(rc)
	go rc.run()
	// Messages left unanswered give their share of the budget back once
	// the reader has stopped (hangup stops it).
	defer func() {
		hangup()
		for m := range rc.msgs {
			budget.give(m.held)
		}
		// msgs is closed: the reader has stopped.
		rc.lines.release()
	}()
	enc := json.NewEncoder(c)
	for m := range rc.msgs {
		resp := wire.Response{Error: m.refusal}
		if m.refusal == nil {
			resp = h.answer(cctx, m.line)
		}
		budget.give(m.held)
		// The answer's time is taken before it is written: a client that
		// has read it and calls on another connection then always finds
		// this one answered earlier (while it is written, busy keeps it
		// from being closed).
		slot.answered()
		c.SetWriteDeadline(time.Now().Add(lim.WriteTimeout))
		err := enc.Encode(resp)
		rc.busy.Add(-1)
		if err != nil || m.last {
			return
		}
	}
}

// maxQueued bounds the messages read ahead of the one being answered.
const maxQueued = 16

type inbound struct {
	line    []byte
	held    int64       // what line holds of the budget of large messages
	refusal *wire.Error // answered instead of line
	last    bool        // the connection closes after its answer
}

// readDeadline sets the connection's read deadline unless the
// connection's context has ended, which sets it to now for good: a
// deadline set later must not revive a reader that was told to stop.
type readDeadline struct {
	mu      sync.Mutex
	c       net.Conn
	expired bool
}

func (d *readDeadline) set(t time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.expired {
		d.c.SetReadDeadline(t)
	}
}

func (d *readDeadline) expire() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.expired = true
	d.c.SetReadDeadline(time.Now())
}

// connReader reads one connection's messages for serveConn.
type connReader struct {
	ctx    context.Context
	c      net.Conn
	rd     *readDeadline
	lim    ConnLimits
	hangup func()
	lines  *lineReader
	msgs   chan inbound
	busy   atomic.Int64 // messages read and not yet answered
}

// run reads the connection until it ends. A read error means the caller
// is gone (or the server stops), so it cancels the connection's context;
// a refused message is answered first, then the connection closes.
func (r *connReader) run() {
	defer close(r.msgs)
	for {
		r.rd.set(time.Now().Add(r.lim.IdleTimeout))
		if _, err := r.lines.r.Peek(1); err != nil {
			if isTimeout(err) && r.busy.Load() > 0 && r.ctx.Err() == nil {
				continue // a call is being answered: not idle
			}
			r.hangup()
			return
		}
		r.rd.set(time.Now().Add(r.lim.LineTimeout))
		line, held, refusal, err := r.lines.next()
		if refusal == nil && isTimeout(err) && r.ctx.Err() == nil {
			refusal = wire.Errorf(wire.TooSlow, "a message must end (newline) within %v of its first byte", r.lim.LineTimeout)
		}
		if refusal != nil {
			r.send(inbound{refusal: refusal, last: true})
			return
		}
		if len(line) > 0 && !r.send(inbound{line: line, held: held}) {
			r.lines.budget.give(held)
			return
		}
		if len(line) == 0 {
			r.lines.budget.give(held)
		}
		if err != nil {
			r.hangup()
			return
		}
	}
}

func (r *connReader) send(m inbound) bool {
	r.busy.Add(1)
	select {
	case r.msgs <- m:
		return true
	case <-r.ctx.Done():
		return false
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// Local is a connection to this handler from inside the process (an
// in-memory pipe), served exactly as an accepted socket connection is:
// the same op table, the same access checks, the same limits and hangup
// cancellation. It has no peer process, so it is trusted with nothing a
// socket caller outside a confined run is not; no operator token is
// implied. The caller closes it.
func (h *Handler) Local(ctx context.Context) net.Conn {
	lim := h.limits.withDefaults()
	h.localOnce.Do(func() { h.localBudget = &lineBudget{max: lim.PartialBytes} })
	client, server := net.Pipe()
	// Its calls that wait for a human count against their own cap
	// (Config.MaxHeldLocal), not the socket's.
	go h.serveConn(context.WithValue(ctx, localKey{}, true), server, lim, h.localBudget, nil)
	return client
}
