package approvals

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func req(id, lease string, names ...string) Request {
	return Request{
		ID: id, LeaseID: lease, Client: "claude-code", Tool: "Bash",
		Summary: "git push origin main", Reason: "approval: command:git",
		Names: names, InputHash: "sha256:00", CreatedAt: t0, Deadline: t0.Add(time.Minute),
	}
}

func mustAdd(t testing.TB, b *Book, r Request) {
	t.Helper()
	if err := b.Add(r); err != nil {
		t.Fatalf("Add(%s): %v", r.ID, err)
	}
}

func ids(rs []Request) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

// TestTransitions walks every decision a pending request can get.
func TestTransitions(t *testing.T) {
	names := []string{"Bash", "command:git", "host:github.com"}
	cases := []struct {
		name      string
		d         Decision
		want      Decision // as recorded
		covered   bool     // Covered("L1", names) afterwards
		wantScope Scope
	}{
		{
			name: "approve once",
			d:    Decision{Outcome: Approved, Scope: Once, By: "operator", At: t0},
			want: Decision{Outcome: Approved, Scope: Once, By: "operator", At: t0},
		},
		{
			name: "approve with empty scope is once",
			d:    Decision{Outcome: Approved, By: "cockpit", At: t0},
			want: Decision{Outcome: Approved, Scope: Once, By: "cockpit", At: t0},
		},
		{
			name:    "approve for lease",
			d:       Decision{Outcome: Approved, Scope: ForLease, By: "cockpit", At: t0},
			want:    Decision{Outcome: Approved, Scope: ForLease, By: "cockpit", At: t0},
			covered: true,
		},
		{
			name: "deny with reason",
			d:    Decision{Outcome: Denied, Reason: "not on a Friday", By: "operator", At: t0},
			want: Decision{Outcome: Denied, Reason: "not on a Friday", By: "operator", At: t0},
		},
		{
			name: "expire",
			d:    Decision{Outcome: Expired, Reason: "no decision in 60s", By: "expiry", At: t0.Add(time.Minute)},
			want: Decision{Outcome: Expired, Reason: "no decision in 60s", By: "expiry", At: t0.Add(time.Minute)},
		},
		{
			name: "expire after restart",
			d:    Decision{Outcome: Expired, By: "restart", At: t0},
			want: Decision{Outcome: Expired, By: "restart", At: t0},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := New()
			mustAdd(t, b, req("A1", "L1", names...))
			if err := b.CheckDecide("A1"); err != nil {
				t.Fatalf("CheckDecide pending: %v", err)
			}
			if b.Covered("L1", names) {
				t.Fatal("Covered before any decision")
			}
			d := tc.d
			d.RequestID = "A1"
			if err := b.Apply(d); err != nil {
				t.Fatalf("Apply: %v", err)
			}
			tc.want.RequestID = "A1"
			r, got, ok := b.Get("A1")
			if !ok || got == nil || *got != tc.want {
				t.Fatalf("Get = %+v, %+v, %v; want decision %+v", r, got, ok, tc.want)
			}
			if r.Summary != "git push origin main" || !slices.Equal(r.Names, names) {
				t.Fatalf("request changed: %+v", r)
			}
			if p := b.Pending(); len(p) != 0 {
				t.Fatalf("Pending after decision = %v", ids(p))
			}
			if got := b.Covered("L1", names); got != tc.covered {
				t.Fatalf("Covered = %v, want %v", got, tc.covered)
			}
			// Waiting afterwards returns the decision at once.
			wd, err := b.Wait(context.Background(), "A1")
			if err != nil || wd != tc.want {
				t.Fatalf("Wait after decision = %+v, %v", wd, err)
			}
			// Deciding a second time, by any route, is refused and keeps
			// the first decision.
			second := Decision{RequestID: "A1", Outcome: Denied, Reason: "late", By: "operator"}
			for _, err := range []error{b.CheckDecide("A1"), b.Reserve("A1"), b.Apply(second)} {
				var de *DecidedError
				if !errors.Is(err, ErrDecided) || !errors.As(err, &de) || de.Decision == nil || *de.Decision != tc.want {
					t.Fatalf("second decision: err = %v, want ErrDecided with %+v", err, tc.want)
				}
				if !strings.Contains(err.Error(), string(tc.want.Outcome)) || !strings.Contains(err.Error(), "A1") {
					t.Fatalf("error does not say how it was decided: %q", err)
				}
			}
			if _, got, _ := b.Get("A1"); *got != tc.want {
				t.Fatalf("decision overwritten: %+v", got)
			}
		})
	}
}

func TestDecidedErrorMessages(t *testing.T) {
	b := New()
	mustAdd(t, b, req("A1", "L1", "Bash"))
	mustAdd(t, b, req("A2", "L1", "Bash"))
	mustAdd(t, b, req("A3", "L1", "Bash"))
	must(t, b.Apply(Decision{RequestID: "A1", Outcome: Approved, Scope: ForLease, By: "cockpit", At: t0}))
	must(t, b.Apply(Decision{RequestID: "A2", Outcome: Denied, Reason: "no", By: "operator", At: t0}))
	must(t, b.Reserve("A3"))
	for id, want := range map[string]string{
		"A1": "approval A1 already decided: approved for the lease by cockpit at 2026-03-01T12:00:00Z",
		"A2": "approval A2 already decided: denied by operator at 2026-03-01T12:00:00Z (reason: no)",
		"A3": "approval A3 already decided: a decision is being recorded",
	} {
		if err := b.CheckDecide(id); err == nil || err.Error() != want {
			t.Errorf("CheckDecide(%s) = %v, want %q", id, err, want)
		}
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestUnknown(t *testing.T) {
	b := New()
	mustAdd(t, b, req("A1", "L1", "Bash"))
	errs := map[string]error{
		"CheckDecide": b.CheckDecide("nope"),
		"Reserve":     b.Reserve("nope"),
		"Apply":       b.Apply(Decision{RequestID: "nope", Outcome: Approved}),
	}
	_, err := b.Wait(context.Background(), "nope")
	errs["Wait"] = err
	for name, err := range errs {
		if !errors.Is(err, ErrUnknown) || errors.Is(err, ErrDecided) {
			t.Errorf("%s(unknown) = %v, want ErrUnknown", name, err)
		} else if !strings.Contains(err.Error(), "nope") {
			t.Errorf("%s error does not name the id: %q", name, err)
		}
	}
	if _, d, ok := b.Get("nope"); ok || d != nil {
		t.Error("Get(unknown) found something")
	}
	if n := b.Waiting("nope"); n != 0 {
		t.Errorf("Waiting(unknown) = %d", n)
	}
	b.Release("nope") // no-op, no panic
	if err := b.CheckDecide("A1"); err != nil {
		t.Errorf("book damaged by unknown ids: %v", err)
	}
}

func TestInvalid(t *testing.T) {
	b := New()
	mustAdd(t, b, req("A1", "L1", "Bash"))
	for _, d := range []Decision{
		{Outcome: Approved},
		{RequestID: "A1"},
		{RequestID: "A1", Outcome: "maybe"},
		{RequestID: "A1", Outcome: Approved, Scope: "forever"},
		{RequestID: "A1", Outcome: Denied, Scope: ForLease},
		{RequestID: "A1", Outcome: Expired, Scope: ForLease},
	} {
		if err := b.Apply(d); !errors.Is(err, ErrInvalid) {
			t.Errorf("Apply(%+v) = %v, want ErrInvalid", d, err)
		}
	}
	if err := b.CheckDecide("A1"); err != nil {
		t.Fatalf("invalid decisions changed the book: %v", err)
	}
	// Denied with scope once is tolerated.
	must(t, b.Apply(Decision{RequestID: "A1", Outcome: Denied, Scope: Once}))

	for _, r := range []Request{{LeaseID: "L1"}, {ID: "A9"}} {
		if err := b.Add(r); !errors.Is(err, ErrInvalid) {
			t.Errorf("Add(%+v) = %v, want ErrInvalid", r, err)
		}
	}
}

func TestAddDuplicate(t *testing.T) {
	b := New()
	mustAdd(t, b, req("A1", "L1", "Bash"))
	mustAdd(t, b, req("A2", "L1", "Bash"))
	must(t, b.Apply(Decision{RequestID: "A2", Outcome: Denied}))
	for _, id := range []string{"A1", "A2"} { // pending and decided
		if err := b.Add(req(id, "L2", "Read")); !errors.Is(err, ErrDuplicate) {
			t.Errorf("Add(duplicate %s) = %v, want ErrDuplicate", id, err)
		}
		if r, _, _ := b.Get(id); r.LeaseID != "L1" {
			t.Errorf("duplicate Add replaced %s: %+v", id, r)
		}
	}
}

func TestNamesAreCopied(t *testing.T) {
	b := New()
	names := []string{"Bash", "command:git"}
	mustAdd(t, b, req("A1", "L1", names...))
	r := req("A2", "L1")
	r.Names = names
	mustAdd(t, b, r)
	names[1] = "command:rm"
	got, _, _ := b.Get("A2")
	got.Names[0] = "mutated"
	if again, _, _ := b.Get("A2"); !slices.Equal(again.Names, []string{"Bash", "command:git"}) {
		t.Fatalf("stored names aliased: %v", again.Names)
	}
	must(t, b.Apply(Decision{RequestID: "A2", Outcome: Approved, Scope: ForLease}))
	if b.Covered("L1", []string{"command:rm"}) || !b.Covered("L1", []string{"command:git"}) {
		t.Fatal("grant follows the caller's slice, not the journaled request")
	}
}

func TestCoveredAndForgetLease(t *testing.T) {
	b := New()
	mustAdd(t, b, req("A1", "L1", "Bash", "command:git"))
	mustAdd(t, b, req("A2", "L1", "host:github.com"))
	mustAdd(t, b, req("A3", "L2", "Bash", "command:git"))
	mustAdd(t, b, req("A4", "L3", "WebFetch"))
	must(t, b.Apply(Decision{RequestID: "A1", Outcome: Approved, Scope: ForLease}))
	must(t, b.Apply(Decision{RequestID: "A2", Outcome: Approved, Scope: Once}))
	must(t, b.Apply(Decision{RequestID: "A3", Outcome: Approved, Scope: ForLease}))
	must(t, b.Apply(Decision{RequestID: "A4", Outcome: Denied, Reason: "no"}))

	for _, c := range []struct {
		lease string
		names []string
		want  bool
	}{
		{"L1", []string{"Bash", "command:git"}, true},
		{"L1", []string{"command:git"}, true},
		{"L1", []string{"command:git", "Bash"}, true},
		{"L1", []string{"Bash", "command:rm"}, false}, // every name must be granted
		{"L1", []string{"host:github.com"}, false},    // approved once: not remembered
		{"L1", nil, false},
		{"L1", []string{}, false},
		{"L2", []string{"Bash"}, true},
		{"L3", []string{"WebFetch"}, false}, // denied
		{"L9", []string{"Bash"}, false},
	} {
		if got := b.Covered(c.lease, c.names); got != c.want {
			t.Errorf("Covered(%s, %v) = %v, want %v", c.lease, c.names, got, c.want)
		}
	}

	b.ForgetLease("L1")
	b.ForgetLease("L9") // unknown lease: no-op
	if b.Covered("L1", []string{"Bash"}) {
		t.Error("grant of L1 survived ForgetLease")
	}
	if !b.Covered("L2", []string{"Bash", "command:git"}) {
		t.Error("ForgetLease(L1) dropped L2's grant")
	}
	// The request and its decision stay: a late decision is "already
	// decided", not "does not exist".
	if err := b.CheckDecide("A1"); !errors.Is(err, ErrDecided) {
		t.Errorf("CheckDecide after ForgetLease = %v, want ErrDecided", err)
	}
	// A new for-lease approval after ForgetLease (a replay that saw the
	// close first, say) grants again.
	mustAdd(t, b, req("A5", "L1", "Bash"))
	must(t, b.Apply(Decision{RequestID: "A5", Outcome: Approved, Scope: ForLease}))
	if !b.Covered("L1", []string{"Bash"}) || b.Covered("L1", []string{"command:git"}) {
		t.Error("grant after ForgetLease wrong")
	}
}

func TestPendingOrder(t *testing.T) {
	b := New()
	add := func(id string, created time.Duration) {
		r := req(id, "L1", "Bash")
		r.CreatedAt = t0.Add(created)
		mustAdd(t, b, r)
	}
	add("c", 3*time.Second)
	add("a", time.Second)
	add("z", 2*time.Second)
	add("b", 2*time.Second) // same time as z, added later
	add("y", 0)
	want := []string{"y", "a", "z", "b", "c"}
	for range 5 { // map iteration must not leak into the order
		if got := ids(b.Pending()); !slices.Equal(got, want) {
			t.Fatalf("Pending = %v, want %v", got, want)
		}
	}
	must(t, b.Apply(Decision{RequestID: "z", Outcome: Denied}))
	if got := ids(b.Pending()); !slices.Equal(got, []string{"y", "a", "b", "c"}) {
		t.Fatalf("Pending after deciding z = %v", got)
	}
}

func TestDueAndNextDeadline(t *testing.T) {
	b := New()
	if _, ok := b.NextDeadline(); ok {
		t.Fatal("NextDeadline of an empty book")
	}
	if d := b.Due(t0.Add(time.Hour)); len(d) != 0 {
		t.Fatalf("Due of an empty book = %v", ids(d))
	}
	add := func(id string, created, deadline time.Duration) {
		r := req(id, "L1", "Bash")
		r.CreatedAt = t0.Add(created)
		r.Deadline = t0.Add(deadline)
		if deadline < 0 {
			r.Deadline = time.Time{}
		}
		mustAdd(t, b, r)
	}
	add("late", 0, 90*time.Second)
	add("mid2", 2*time.Second, 60*time.Second)
	add("mid1", time.Second, 60*time.Second) // same deadline, created earlier
	add("early", 5*time.Second, 30*time.Second)
	add("never", 0, -1) // no deadline

	steps := []struct {
		at   time.Duration
		due  []string
		next time.Duration
	}{
		{0, nil, 30 * time.Second},
		{30*time.Second - time.Nanosecond, nil, 30 * time.Second},
		{30 * time.Second, []string{"early"}, 30 * time.Second}, // due at its deadline
		{61 * time.Second, []string{"early", "mid1", "mid2"}, 30 * time.Second},
		{time.Hour, []string{"early", "mid1", "mid2", "late"}, 30 * time.Second},
	}
	for _, s := range steps {
		if got := ids(b.Due(t0.Add(s.at))); !slices.Equal(got, s.due) {
			t.Errorf("Due(+%v) = %v, want %v", s.at, got, s.due)
		}
		if next, ok := b.NextDeadline(); !ok || !next.Equal(t0.Add(s.next)) {
			t.Errorf("NextDeadline at +%v = %v, %v", s.at, next, ok)
		}
	}

	// Expire them in Due order as the registry would; the next deadline
	// moves on each time, and "never" is never due.
	wantNext := []time.Duration{60 * time.Second, 60 * time.Second, 90 * time.Second, -1}
	for i, r := range b.Due(t0.Add(time.Hour)) {
		must(t, b.Reserve(r.ID))
		must(t, b.Apply(Decision{RequestID: r.ID, Outcome: Expired, By: "expiry", At: r.Deadline}))
		next, ok := b.NextDeadline()
		if wantNext[i] < 0 {
			if ok {
				t.Errorf("after expiring %s: NextDeadline = %v, want none", r.ID, next)
			}
		} else if !ok || !next.Equal(t0.Add(wantNext[i])) {
			t.Errorf("after expiring %s: NextDeadline = %v, %v; want +%v", r.ID, next, ok, wantNext[i])
		}
	}
	if got := ids(b.Pending()); !slices.Equal(got, []string{"never"}) {
		t.Fatalf("Pending after expiry = %v", got)
	}
	if d := b.Due(t0.Add(1000 * time.Hour)); len(d) != 0 {
		t.Fatalf("a request without deadline became due: %v", ids(d))
	}
}

func TestReserveRelease(t *testing.T) {
	b := New()
	r := req("A1", "L1", "Bash")
	mustAdd(t, b, r)
	mustAdd(t, b, req("A2", "L1", "Read"))
	must(t, b.Apply(Decision{RequestID: "A2", Outcome: Denied}))

	ch := b.Changed()
	must(t, b.Reserve("A1"))
	assertClosed(t, ch, "Reserve")

	// Held: still pending, but nobody else can decide it and the expiry
	// loop does not see it.
	var de *DecidedError
	if err := b.Reserve("A1"); !errors.As(err, &de) || de.Decision != nil {
		t.Fatalf("second Reserve = %v, want ErrDecided in flight", err)
	}
	if err := b.CheckDecide("A1"); !errors.Is(err, ErrDecided) {
		t.Fatalf("CheckDecide while reserved = %v", err)
	}
	if got := ids(b.Pending()); !slices.Equal(got, []string{"A1"}) {
		t.Fatalf("Pending while reserved = %v", got)
	}
	if d := b.Due(r.Deadline); len(d) != 0 {
		t.Fatalf("Due lists a reserved request: %v", ids(d))
	}
	if _, ok := b.NextDeadline(); ok {
		t.Fatal("NextDeadline counts a reserved request")
	}
	if o := b.Orphans(); len(o) != 0 {
		t.Fatalf("Orphans lists a reserved request: %v", ids(o))
	}

	// The journal write failed: give it back.
	ch = b.Changed()
	b.Release("A1")
	assertClosed(t, ch, "Release")
	must(t, b.CheckDecide("A1"))
	if d := b.Due(r.Deadline); !slices.Equal(ids(d), []string{"A1"}) {
		t.Fatalf("Due after Release = %v", ids(d))
	}
	b.Release("A1") // not reserved: no-op
	b.Release("A2") // decided: no-op
	must(t, b.CheckDecide("A1"))

	// Reserve then Apply consumes the reservation.
	must(t, b.Reserve("A1"))
	must(t, b.Apply(Decision{RequestID: "A1", Outcome: Approved, Scope: ForLease}))
	b.Release("A1")
	if _, d, _ := b.Get("A1"); d == nil || d.Outcome != Approved {
		t.Fatalf("Release after Apply undid the decision: %+v", d)
	}
}

// TestReserveRace: many deciders race for one request; exactly one wins.
func TestReserveRace(t *testing.T) {
	for round := range 50 {
		b := New()
		mustAdd(t, b, req("A1", "L1", "Bash"))
		var wins sync.WaitGroup
		var mu sync.Mutex
		won := 0
		for i := range 16 {
			wins.Add(1)
			go func() {
				defer wins.Done()
				if err := b.Reserve("A1"); err != nil {
					if !errors.Is(err, ErrDecided) {
						t.Errorf("round %d: Reserve = %v", round, err)
					}
					return
				}
				mu.Lock()
				won++
				mu.Unlock()
				if err := b.Apply(Decision{RequestID: "A1", Outcome: Denied, By: fmt.Sprint(i)}); err != nil {
					t.Errorf("round %d: Apply after Reserve = %v", round, err)
				}
			}()
		}
		wins.Wait()
		if won != 1 {
			t.Fatalf("round %d: %d deciders won", round, won)
		}
	}
}

func assertClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	default:
		t.Fatalf("Changed did not fire on %s", what)
	}
}

func assertOpen(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
		t.Fatalf("Changed fired on %s", what)
	default:
	}
}

func TestChanged(t *testing.T) {
	b := New()
	ch := b.Changed()
	if ch2 := b.Changed(); ch2 != ch {
		t.Fatal("Changed without a change returned a new channel")
	}
	mustAdd(t, b, req("A1", "L1", "Bash"))
	assertClosed(t, ch, "Add")

	ch = b.Changed()
	_ = b.Add(req("A1", "L1", "Bash")) // refused
	_ = b.Apply(Decision{RequestID: "zz", Outcome: Denied})
	_ = b.Reserve("zz")
	b.Release("A1")
	b.Pending()
	b.Due(t0.Add(time.Hour))
	b.Covered("L1", []string{"Bash"})
	b.ForgetLease("L1")
	assertOpen(t, ch, "reads and refused calls")

	must(t, b.Apply(Decision{RequestID: "A1", Outcome: Expired}))
	assertClosed(t, ch, "Apply")
}

func TestOrphansAfterReplay(t *testing.T) {
	// A journal replay: four requests, two decisions (one for the lease),
	// a lease closed.
	b := New()
	mustAdd(t, b, req("A1", "L1", "Bash"))
	mustAdd(t, b, req("A2", "L1", "command:git"))
	mustAdd(t, b, req("A3", "L2", "host:x.org"))
	mustAdd(t, b, req("A4", "L3", "WebFetch"))
	must(t, b.Apply(Decision{RequestID: "A2", Outcome: Approved, Scope: ForLease, By: "operator"}))
	must(t, b.Apply(Decision{RequestID: "A3", Outcome: Approved, Scope: ForLease, By: "cockpit"}))
	b.ForgetLease("L2")

	orphans := b.Orphans()
	if got := ids(orphans); !slices.Equal(got, []string{"A1", "A4"}) {
		t.Fatalf("Orphans = %v", got)
	}
	for _, r := range orphans {
		must(t, b.Reserve(r.ID))
		must(t, b.Apply(Decision{RequestID: r.ID, Outcome: Expired, By: "restart", Reason: "registry restarted"}))
	}
	if p := b.Pending(); len(p) != 0 {
		t.Fatalf("Pending after expiring orphans = %v", ids(p))
	}
	if !b.Covered("L1", []string{"command:git"}) || b.Covered("L2", []string{"host:x.org"}) {
		t.Fatal("replayed grants wrong")
	}
}

func TestOrphansSkipsWaited(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := New()
		mustAdd(t, b, req("A1", "L1", "Bash"))
		mustAdd(t, b, req("A2", "L1", "Bash"))
		ctx, cancel := context.WithCancel(t.Context())
		go b.Wait(ctx, "A1")
		synctest.Wait()
		if got := ids(b.Orphans()); !slices.Equal(got, []string{"A2"}) {
			t.Fatalf("Orphans = %v", got)
		}
		cancel()
		synctest.Wait()
		if got := ids(b.Orphans()); !slices.Equal(got, []string{"A1", "A2"}) {
			t.Fatalf("Orphans after the waiter left = %v", got)
		}
	})
}

// TestManyWaiters: one decision wakes every waiter on its request and no
// other; cancelled waiters leave; nothing is left behind.
func TestManyWaiters(t *testing.T) {
	const n = 200
	b := New()
	mustAdd(t, b, req("A1", "L1", "Bash"))
	mustAdd(t, b, req("A2", "L1", "Bash"))
	want := Decision{RequestID: "A1", Outcome: Approved, Scope: ForLease, By: "cockpit", At: t0}

	ctx2, cancel2 := context.WithCancel(context.Background())
	results := make(chan error, 2*n)
	var wg sync.WaitGroup
	for range n {
		wg.Add(2)
		go func() {
			defer wg.Done()
			d, err := b.Wait(context.Background(), "A1")
			if err == nil && d != want {
				err = fmt.Errorf("woken with %+v", d)
			}
			results <- err
		}()
		go func() {
			defer wg.Done()
			_, err := b.Wait(ctx2, "A2")
			if !errors.Is(err, context.Canceled) {
				err = fmt.Errorf("A2 waiter: %v, want context.Canceled", err)
			} else {
				err = nil
			}
			results <- err
		}()
	}
	waitFor(t, func() bool { return b.Waiting("A1") == n && b.Waiting("A2") == n })

	must(t, b.Apply(want))
	for range n {
		if err := <-results; err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, func() bool { return b.Waiting("A1") == 0 })
	if got := b.Waiting("A2"); got != n {
		t.Fatalf("deciding A1 disturbed A2's waiters: %d left", got)
	}
	cancel2()
	wg.Wait()
	close(results)
	for err := range results {
		if err != nil {
			t.Fatal(err)
		}
	}
	if b.Waiting("A2") != 0 {
		t.Fatalf("cancelled waiters not removed: %d", b.Waiting("A2"))
	}
	// A2 is still decidable after its waiters gave up.
	must(t, b.CheckDecide("A2"))
}

// waitFor polls cond in real time; only for the -race concurrency test,
// where synctest's bubble would hide scheduling.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 10s")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestManyWaitersManyRequests: concurrent Add, Wait, Apply on many ids at
// once (for -race).
func TestManyWaitersManyRequests(t *testing.T) {
	b := New()
	const reqs, perReq = 64, 8
	var wg sync.WaitGroup
	for i := range reqs {
		id := fmt.Sprintf("A%d", i)
		mustAdd(t, b, req(id, fmt.Sprintf("L%d", i%4), "Bash", fmt.Sprintf("command:c%d", i)))
		for range perReq {
			wg.Add(1)
			go func() {
				defer wg.Done()
				d, err := b.Wait(context.Background(), id)
				if err != nil || d.RequestID != id {
					t.Errorf("Wait(%s) = %+v, %v", id, d, err)
				}
			}()
		}
	}
	for i := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := fmt.Sprintf("A%d", i)
			if err := b.Reserve(id); err != nil {
				t.Error(err)
				return
			}
			if err := b.Apply(Decision{RequestID: id, Outcome: Approved, Scope: ForLease}); err != nil {
				t.Error(err)
			}
			b.Covered(fmt.Sprintf("L%d", i%4), []string{"Bash"})
			b.Pending()
			b.NextDeadline()
		}()
	}
	wg.Wait()
	for i := range reqs {
		if !b.Covered(fmt.Sprintf("L%d", i%4), []string{"Bash", fmt.Sprintf("command:c%d", i)}) {
			t.Fatalf("grant %d missing", i)
		}
	}
}

func TestWaitCancelledContext(t *testing.T) {
	b := New()
	mustAdd(t, b, req("A1", "L1", "Bash"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d, err := b.Wait(ctx, "A1")
	if !errors.Is(err, context.Canceled) || d != (Decision{}) {
		t.Fatalf("Wait(cancelled) = %+v, %v", d, err)
	}
	if b.Waiting("A1") != 0 {
		t.Fatal("a cancelled Wait left a waiter")
	}
	must(t, b.CheckDecide("A1"))

	// Already decided wins over an already-cancelled context.
	want := Decision{RequestID: "A1", Outcome: Denied, Reason: "no"}
	must(t, b.Apply(want))
	if d, err := b.Wait(ctx, "A1"); err != nil || d != want {
		t.Fatalf("Wait(cancelled, decided) = %+v, %v", d, err)
	}
}

func TestWaitDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := New()
		mustAdd(t, b, req("A1", "L1", "Bash"))
		ctx, cancel := context.WithTimeout(t.Context(), 45*time.Second)
		defer cancel()
		start := time.Now()
		_, err := b.Wait(ctx, "A1")
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Wait = %v, want DeadlineExceeded", err)
		}
		if el := time.Since(start); el != 45*time.Second {
			t.Fatalf("Wait returned after %v", el)
		}
		if b.Waiting("A1") != 0 {
			t.Fatal("timed-out waiter not removed")
		}
	})
}

func TestWaitBlocksUntilDecision(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := New()
		mustAdd(t, b, req("A1", "L1", "Bash"))
		want := Decision{RequestID: "A1", Outcome: Approved, Scope: Once, By: "operator"}
		var got Decision
		var gotErr error
		var at time.Duration
		start := time.Now()
		done := make(chan struct{})
		go func() {
			got, gotErr = b.Wait(t.Context(), "A1")
			at = time.Since(start)
			close(done)
		}()
		synctest.Wait()
		if b.Waiting("A1") != 1 {
			t.Fatalf("Waiting = %d, want 1", b.Waiting("A1"))
		}
		time.Sleep(7 * time.Second) // the human thinks
		synctest.Wait()
		select {
		case <-done:
			t.Fatal("Wait returned before a decision")
		default:
		}
		// Reserving does not wake the waiter; releasing does not either.
		must(t, b.Reserve("A1"))
		b.Release("A1")
		synctest.Wait()
		select {
		case <-done:
			t.Fatal("Wait returned on Reserve/Release")
		default:
		}
		must(t, b.Apply(want))
		<-done
		if gotErr != nil || got != want || at != 7*time.Second {
			t.Fatalf("Wait = %+v, %v after %v", got, gotErr, at)
		}
	})
}

// TestExpiryLoop runs the expiry loop of the package documentation in a
// synctest bubble: each request expires exactly at its deadline, a request
// added with an earlier deadline wakes the sleeping loop, a decided
// request is not expired, and the loop never polls.
func TestExpiryLoop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := New()
		start := time.Now()
		type expiry struct {
			id string
			at time.Duration
		}
		var mu sync.Mutex
		var expired []expiry
		wakeups := 0

		ctx, cancel := context.WithCancel(t.Context())
		loopDone := make(chan struct{})
		go func() {
			defer close(loopDone)
			for {
				wakeups++
				changed := b.Changed()
				for _, r := range b.Due(time.Now()) {
					if b.Reserve(r.ID) != nil {
						continue
					}
					// (journal the expired line here)
					must(t, b.Apply(Decision{RequestID: r.ID, Outcome: Expired, By: "expiry", At: time.Now()}))
					mu.Lock()
					expired = append(expired, expiry{r.ID, time.Since(start)})
					mu.Unlock()
				}
				var timer <-chan time.Time
				var tm *time.Timer
				if next, ok := b.NextDeadline(); ok {
					tm = time.NewTimer(time.Until(next))
					timer = tm.C
				}
				select {
				case <-changed:
				case <-timer:
				case <-ctx.Done():
					return
				}
				if tm != nil {
					tm.Stop()
				}
			}
		}()

		add := func(id string, deadline time.Duration) {
			r := req(id, "L1", "Bash")
			r.CreatedAt = time.Now()
			r.Deadline = start.Add(deadline)
			mustAdd(t, b, r)
		}
		add("slow", 60*time.Second)
		add("decided", 20*time.Second)
		synctest.Wait()
		time.Sleep(10 * time.Second)
		add("fast", 15*time.Second) // earlier than the loop's current timer
		must(t, b.Apply(Decision{RequestID: "decided", Outcome: Approved}))
		time.Sleep(time.Hour)
		synctest.Wait()
		cancel()
		<-loopDone

		want := []expiry{{"fast", 15 * time.Second}, {"slow", 60 * time.Second}}
		if !slices.Equal(expired, want) {
			t.Fatalf("expired = %v, want %v", expired, want)
		}
		if _, d, _ := b.Get("decided"); d.Outcome != Approved {
			t.Fatalf("decided request overwritten: %+v", d)
		}
		// start, 2 adds, add fast, apply, 2 timers: a handful, never a poll.
		if wakeups > 10 {
			t.Fatalf("expiry loop woke %d times", wakeups)
		}
	})
}

// BenchmarkRoundTrip: Add, a waiter goroutine blocked in Wait (the
// benchmark waits until it is), Reserve, Apply wakes it, the answer is
// received.
func BenchmarkRoundTrip(b *testing.B) {
	book := New()
	r := req("", "L1", "Bash", "command:git")
	idsList := make([]string, b.N)
	for i := range idsList {
		idsList[i] = fmt.Sprintf("A%d", i)
	}
	ctx := context.Background()
	got := make(chan Decision)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id := idsList[i]
		r.ID = id
		if err := book.Add(r); err != nil {
			b.Fatal(err)
		}
		go func() {
			d, _ := book.Wait(ctx, id)
			got <- d
		}()
		for book.Waiting(id) == 0 {
			runtime.Gosched()
		}
		if err := book.Reserve(id); err != nil {
			b.Fatal(err)
		}
		if err := book.Apply(Decision{RequestID: id, Outcome: Approved, Scope: Once}); err != nil {
			b.Fatal(err)
		}
		if d := <-got; d.RequestID != id {
			b.Fatal(d)
		}
	}
}

// BenchmarkAddApplyWait: the same without a goroutine: Wait after the
// decision returns at once.
func BenchmarkAddApplyWait(b *testing.B) {
	book := New()
	r := req("", "L1", "Bash", "command:git")
	idsList := make([]string, b.N)
	for i := range idsList {
		idsList[i] = fmt.Sprintf("A%d", i)
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r.ID = idsList[i]
		if err := book.Add(r); err != nil {
			b.Fatal(err)
		}
		if err := book.Apply(Decision{RequestID: r.ID, Outcome: Approved, Scope: ForLease}); err != nil {
			b.Fatal(err)
		}
		if _, err := book.Wait(ctx, r.ID); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCovered: the gate's question on every call of a lease with
// remembered grants.
func BenchmarkCovered(b *testing.B) {
	book := New()
	for i := range 20 {
		id := fmt.Sprintf("A%d", i)
		_ = book.Add(req(id, "L1", fmt.Sprintf("command:c%d", i)))
		_ = book.Apply(Decision{RequestID: id, Outcome: Approved, Scope: ForLease})
	}
	names := []string{"command:c3", "command:c17"}
	b.ReportAllocs()
	for b.Loop() {
		if !book.Covered("L1", names) {
			b.Fatal("not covered")
		}
	}
}
