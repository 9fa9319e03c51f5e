package approvals

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// Request is one gated tool call waiting for a human.
type Request struct {
	ID      string // unique; required
	LeaseID string // the lease the call runs under; required
	Client  string // the agent client (claude-code, codex-cli, …)
	Tool    string // the tool name, in the gate's vocabulary
	Summary string // a redacted one-line summary for the human
	Reason  string // why the gate asks (which approval entry matched)
	// Names are the approval names that matched the call: the tool name,
	// "command:<exe>", "host:<name>". An approval for the lease remembers
	// a grant for each of them.
	Names     []string
	InputHash string // hash of the exact tool input the request is bound to
	// Call is what the human is asked to allow, as the registry derived it
	// from the call itself (never from the caller's own description).
	// Older records have none: the zero value.
	Call      CallView
	CreatedAt time.Time // orders Pending
	// Deadline is when the request expires (see Due). The zero time means
	// no deadline: the request never becomes due by itself.
	Deadline time.Time
}

// CallView is a held call as a person deciding it needs to see it: the
// whole call, redacted, line breaks kept (a long comment or a second line
// cannot hide what runs), and the resources the gate derived from it.
type CallView struct {
	Text     string   // the full call, redacted: a command, a URL, a path and size
	Programs []string // executables it runs
	Reads    []string // paths it reads
	Writes   []string // paths it writes
	Hosts    []string // hosts it reaches
	Bytes    int64    // size of what a write puts in a file; 0 when none or not a write
}

// Empty reports whether the record carried no call view (an older
// registry wrote it).
func (c CallView) Empty() bool {
	return c.Text == "" && len(c.Programs)+len(c.Reads)+len(c.Writes)+len(c.Hosts) == 0 && c.Bytes == 0
}

// Scope says how far an approval reaches.
type Scope string

const (
	// Once approves this one call only; nothing is remembered.
	Once Scope = "once"
	// ForLease approves this call and remembers a grant, for the rest of
	// the lease, for every approval name the request matched.
	ForLease Scope = "lease"
)

// Outcome is what became of a request.
type Outcome string

const (
	Approved Outcome = "approved"
	Denied   Outcome = "denied"
	Expired  Outcome = "expired" // no decision in time: a deny
	// Cancelled: the caller went away (its connection closed) before a
	// human decided; a deny that no later decision can turn into an allow.
	Cancelled Outcome = "cancelled"
)

// Decision ends a request.
type Decision struct {
	RequestID string
	Outcome   Outcome
	// Scope applies to Approved only: Once or ForLease, where empty means
	// Once. With Denied, Expired or Cancelled it must be empty or Once.
	Scope  Scope
	Reason string    // a deny's reason, shown to the agent
	By     string    // "operator", "cockpit", "expiry", "restart"
	At     time.Time // when it was decided
}

// Validate reports whether d is a well-formed decision, independently of
// any Book: a request id, a known outcome, and a scope that fits it.
func (d Decision) Validate() error {
	if d.RequestID == "" {
		return fmt.Errorf("%w: decision without a request id", ErrInvalid)
	}
	switch d.Outcome {
	case Approved:
		if d.Scope != "" && d.Scope != Once && d.Scope != ForLease {
			return fmt.Errorf("%w: unknown approval scope %q", ErrInvalid, d.Scope)
		}
	case Denied, Expired, Cancelled:
		if d.Scope != "" && d.Scope != Once {
			return fmt.Errorf("%w: scope %q with outcome %q", ErrInvalid, d.Scope, d.Outcome)
		}
	default:
		return fmt.Errorf("%w: unknown outcome %q", ErrInvalid, d.Outcome)
	}
	return nil
}

// describe renders a decision for error messages: "approved for the lease by
// operator at …", "denied by cockpit at … (reason: …)".
func (d Decision) describe() string {
	var b strings.Builder
	b.WriteString(string(d.Outcome))
	if d.Outcome == Approved {
		if d.Scope == ForLease {
			b.WriteString(" for the lease")
		} else {
			b.WriteString(" once")
		}
	}
	if d.By != "" {
		b.WriteString(" by ")
		b.WriteString(d.By)
	}
	if !d.At.IsZero() {
		b.WriteString(" at ")
		b.WriteString(d.At.UTC().Format(time.RFC3339Nano))
	}
	if d.Reason != "" {
		fmt.Fprintf(&b, " (reason: %s)", d.Reason)
	}
	return b.String()
}

var (
	// ErrUnknown: no request has that id.
	ErrUnknown = errors.New("approval request does not exist")
	// ErrDecided: the request was already decided, or a decision for it is
	// being recorded. The error is a *DecidedError saying which.
	ErrDecided = errors.New("approval request already decided")
	// ErrDuplicate: Add with an id the book already holds.
	ErrDuplicate = errors.New("approval request id already used")
	// ErrInvalid: a malformed Request or Decision.
	ErrInvalid = errors.New("invalid approval")
)

// DecidedError is the ErrDecided error: errors.Is(err, ErrDecided) holds.
type DecidedError struct {
	ID string
	// Decision is the recorded decision, or nil while one is being
	// recorded (the request is reserved).
	Decision *Decision
}

func (e *DecidedError) Error() string {
	if e.Decision == nil {
		return fmt.Sprintf("approval %s already decided: a decision is being recorded", e.ID)
	}
	return fmt.Sprintf("approval %s already decided: %s", e.ID, e.Decision.describe())
}

// Is makes errors.Is(err, ErrDecided) true.
func (e *DecidedError) Is(target error) bool { return target == ErrDecided }

func unknown(id string) error { return fmt.Errorf("approval %s: %w", id, ErrUnknown) }

// entry is one request and its state.
type entry struct {
	req      Request
	seq      uint64        // insertion order: the tie-break everywhere
	dec      *Decision     // nil while pending; never changed once set
	done     chan struct{} // closed when dec is set
	reserved bool          // a decision is being journaled
	waiters  int           // callers blocked in Wait
}

// Book holds approval requests. The zero value is not usable; call New.
type Book struct {
	mu      sync.Mutex
	seq     uint64
	entries map[string]*entry
	pending map[string]*entry              // the undecided subset of entries
	grants  map[string]map[string]struct{} // lease id → approval names
	changed chan struct{}                  // closed on the next change; nil until asked for
}

// New returns an empty Book.
func New() *Book {
	return &Book{
		entries: make(map[string]*entry),
		pending: make(map[string]*entry),
		grants:  make(map[string]map[string]struct{}),
	}
}

// notify fires Changed. The caller holds b.mu.
func (b *Book) notify() {
	if b.changed != nil {
		close(b.changed)
		b.changed = nil
	}
}

// Changed returns a channel that is closed at the next change to the set of
// requests Due and NextDeadline consider: Add, Apply, Reserve, Release. An
// expiry loop takes it before calling Due and NextDeadline, then sleeps on it
// and on a timer for the next deadline.
func (b *Book) Changed() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.changed == nil {
		b.changed = make(chan struct{})
	}
	return b.changed
}

// Add makes a journaled request visible and awaitable. It fails with
// ErrInvalid when ID or LeaseID is empty and with ErrDuplicate when the id
// is already known, pending or decided. The book keeps its own copy of
// r.Names.
func (b *Book) Add(r Request) error {
	if r.ID == "" {
		return fmt.Errorf("%w: request without an id", ErrInvalid)
	}
	if r.LeaseID == "" {
		return fmt.Errorf("%w: request %s without a lease id", ErrInvalid, r.ID)
	}
	r.Names = slices.Clone(r.Names)
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.entries[r.ID]; ok {
		return fmt.Errorf("approval %s: %w", r.ID, ErrDuplicate)
	}
	b.seq++
	e := &entry{req: r, seq: b.seq, done: make(chan struct{})}
	b.entries[r.ID] = e
	b.pending[r.ID] = e
	b.notify()
	return nil
}

// Get returns a copy of the request and, once it is decided, its decision
// (nil while pending). ok is false for an unknown id.
func (b *Book) Get(id string) (r Request, d *Decision, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	e, ok := b.entries[id]
	if !ok {
		return Request{}, nil, false
	}
	if e.dec != nil {
		dc := *e.dec
		d = &dc
	}
	return e.copyReq(), d, true
}

func (e *entry) copyReq() Request {
	r := e.req
	r.Names = slices.Clone(r.Names)
	return r
}

// byAge orders oldest first: CreatedAt, then insertion order.
func byAge(a, b *entry) int {
	if c := a.req.CreatedAt.Compare(b.req.CreatedAt); c != 0 {
		return c
	}
	return cmp.Compare(a.seq, b.seq)
}

// byDeadline orders earliest deadline first, then oldest first.
func byDeadline(a, b *entry) int {
	if c := a.req.Deadline.Compare(b.req.Deadline); c != 0 {
		return c
	}
	return byAge(a, b)
}

// collect returns copies of the pending requests keep selects, sorted. The
// caller holds b.mu.
func (b *Book) collect(keep func(*entry) bool, order func(a, b *entry) int) []Request {
	var es []*entry
	for _, e := range b.pending {
		if keep(e) {
			es = append(es, e)
		}
	}
	slices.SortFunc(es, order)
	out := make([]Request, len(es))
	for i, e := range es {
		out[i] = e.copyReq()
	}
	return out
}

// Pending returns every undecided request, reserved ones included, oldest
// first (CreatedAt, then the order of Add).
func (b *Book) Pending() []Request {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.collect(func(*entry) bool { return true }, byAge)
}

// Orphans returns the pending requests that nobody waits for and nobody is
// deciding, oldest first. It is meant for the moment right after journal
// replay, when no request can have a waiter: every one it returns must be
// expired (By "restart"). While serving, a request has no waiter for a
// moment between Add and Wait, so Orphans is not a liveness test then.
func (b *Book) Orphans() []Request {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.collect(func(e *entry) bool { return e.waiters == 0 && !e.reserved }, byAge)
}

// Due returns the pending, unreserved requests whose deadline is not after
// now (a request is due at its deadline), earliest deadline first. Requests
// without a deadline are never due.
func (b *Book) Due(now time.Time) []Request {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.collect(func(e *entry) bool {
		return !e.reserved && !e.req.Deadline.IsZero() && !now.Before(e.req.Deadline)
	}, byDeadline)
}

// NextDeadline returns the earliest deadline among pending, unreserved
// requests; ok is false when there is none. It may be in the past (a
// request already due).
func (b *Book) NextDeadline() (next time.Time, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, e := range b.pending {
		if e.reserved || e.req.Deadline.IsZero() {
			continue
		}
		if !ok || e.req.Deadline.Before(next) {
			next, ok = e.req.Deadline, true
		}
	}
	return next, ok
}

// check is CheckDecide under b.mu.
func (b *Book) check(id string) (*entry, error) {
	e, ok := b.entries[id]
	switch {
	case !ok:
		return nil, unknown(id)
	case e.dec != nil:
		d := *e.dec
		return nil, &DecidedError{ID: id, Decision: &d}
	case e.reserved:
		return nil, &DecidedError{ID: id}
	}
	return e, nil
}

// CheckDecide reports whether request id can be decided now, without
// changing anything: nil when it exists, is pending and is not reserved;
// otherwise an error matching ErrUnknown or ErrDecided (a *DecidedError
// saying how it was decided). Prefer Reserve when a decision will follow.
func (b *Book) CheckDecide(id string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, err := b.check(id)
	return err
}

// Reserve is CheckDecide plus a hold: on success the request stays pending
// (waiters keep waiting, Pending lists it) but every later CheckDecide or
// Reserve for it fails with ErrDecided, and Due, NextDeadline and Orphans
// skip it, until Apply records the decision or Release gives it back. The
// registry reserves before it journals a decision, so a request gets exactly
// one decision line.
func (b *Book) Reserve(id string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	e, err := b.check(id)
	if err != nil {
		return err
	}
	e.reserved = true
	b.notify()
	return nil
}

// Release drops a reservation whose decision could not be journaled: the
// request is pending and decidable again. It does nothing for a request that
// is unknown, decided or not reserved.
func (b *Book) Release(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if e, ok := b.pending[id]; ok && e.reserved {
		e.reserved = false
		b.notify()
	}
}

// Apply records a journaled decision: the request leaves Pending, every
// caller blocked in Wait on it returns d, and an Approved decision with
// scope ForLease remembers a grant for (request's LeaseID, each of its
// Names), which Covered then reports. Approved with an empty scope is
// recorded as Once. A reservation is not required (journal replay has
// none) and is consumed. Errors: ErrInvalid (d.Validate), ErrUnknown,
// ErrDecided; on error nothing changes.
func (b *Book) Apply(d Decision) error {
	if err := d.Validate(); err != nil {
		return err
	}
	if d.Outcome == Approved && d.Scope == "" {
		d.Scope = Once
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	e, ok := b.entries[d.RequestID]
	if !ok {
		return unknown(d.RequestID)
	}
	if e.dec != nil {
		prev := *e.dec
		return &DecidedError{ID: d.RequestID, Decision: &prev}
	}
	e.dec = &d
	e.reserved = false
	delete(b.pending, d.RequestID)
	close(e.done)
	if d.Outcome == Approved && d.Scope == ForLease && len(e.req.Names) > 0 {
		g := b.grants[e.req.LeaseID]
		if g == nil {
			g = make(map[string]struct{}, len(e.req.Names))
			b.grants[e.req.LeaseID] = g
		}
		for _, n := range e.req.Names {
			g[n] = struct{}{}
		}
	}
	b.notify()
	return nil
}

// Covered reports whether remembered grants of lease leaseID cover every
// approval name in names, so the call need not be asked again. It is false
// for an empty names (there is nothing a grant could cover; the gate asks
// only when a name matched).
func (b *Book) Covered(leaseID string, names []string) bool {
	if len(names) == 0 {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	g := b.grants[leaseID]
	if g == nil {
		return false
	}
	for _, n := range names {
		if _, ok := g[n]; !ok {
			return false
		}
	}
	return true
}

// ForgetLease drops every grant remembered for leaseID; the registry calls
// it when the lease closes (revoked, expired, completed, stopped). Requests
// and decisions are kept, so deciding an old request still answers
// ErrDecided rather than ErrUnknown.
func (b *Book) ForgetLease(leaseID string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.grants, leaseID)
}

// Wait blocks until request id is decided and returns the decision. A
// request already decided returns at once, even when ctx is already done.
// Otherwise, when ctx is done first, Wait returns ctx.Err() (the caller then
// decides "expired" itself, see the package documentation); if the decision
// was applied by the time Wait notices, the decision is returned instead.
// An unknown id fails with ErrUnknown. Any number of callers may wait on the
// same or different requests; a waiter leaves no trace once it returns.
func (b *Book) Wait(ctx context.Context, id string) (Decision, error) {
	b.mu.Lock()
	e, ok := b.entries[id]
	if !ok {
		b.mu.Unlock()
		return Decision{}, unknown(id)
	}
	if e.dec != nil {
		d := *e.dec
		b.mu.Unlock()
		return d, nil
	}
	if err := ctx.Err(); err != nil {
		b.mu.Unlock()
		return Decision{}, err
	}
	e.waiters++
	b.mu.Unlock()

	var ctxErr error
	select {
	case <-e.done:
	case <-ctx.Done():
		ctxErr = ctx.Err()
	}

	b.mu.Lock()
	defer b.mu.Unlock()
	e.waiters--
	if e.dec != nil {
		return *e.dec, nil
	}
	return Decision{}, ctxErr
}

// Waiting returns how many callers are blocked in Wait on request id: 0 for
// an unknown id, and soon 0 for a decided one (its waiters are returning).
func (b *Book) Waiting(id string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if e, ok := b.entries[id]; ok {
		return e.waiters
	}
	return 0
}
