// Package approvals is the registry's in-memory book of approval requests:
// the calls a human must decide, their decisions, the grants remembered for
// a lease, the deadlines, and the callers blocked until a decision.
//
// The package does no I/O and never reads the clock: the registry journals
// every request and decision itself and tells the Book about it only once
// the line is durable, and passes "now" wherever time matters. All methods
// are safe for concurrent use.
//
// # Requesting
//
// The registry builds a Request (a plain value), journals it, then calls
// Add, which makes it visible (Pending, Get) and awaitable (Wait). The held
// tool call then blocks in Wait with a context whose deadline is the
// smallest of the request's Deadline and the client's hook timeout minus a
// margin.
//
// # Deciding
//
// A decision is checked before anything is written and applied after:
//
//	if err := book.Reserve(id); err != nil {
//		return err // errors.Is ErrUnknown or ErrDecided; nothing written
//	}
//	if err := journal.Append(decisionLine); err != nil {
//		book.Release(id) // still pending; fail closed
//		return err
//	}
//	book.Apply(d) // wakes every waiter; remembers a for-lease grant
//
// Reserve holds the request so that two deciders (two operators, or an
// operator and the expiry loop at the deadline) cannot both journal a
// decision for it: the second one gets ErrDecided before writing anything.
// CheckDecide is the same test without the hold. Apply needs no
// reservation, which is what journal replay uses.
//
// # Deadlines
//
// The registry's expiry loop journals an "expired" decision for every
// request Due returns and sleeps until NextDeadline or until Changed fires,
// whichever comes first; it never polls:
//
//	for {
//		changed := book.Changed()
//		for _, r := range book.Due(now()) {
//			// Reserve, journal "expired", Apply, as above.
//		}
//		var timer <-chan time.Time
//		if next, ok := book.NextDeadline(); ok {
//			t := time.NewTimer(next.Sub(now()))
//			timer = t.C // (stop t when leaving the iteration)
//		}
//		select {
//		case <-changed:
//		case <-timer:
//		case <-ctx.Done():
//			return
//		}
//	}
//
// When a waiter's own context ends first (the client's hook timeout), the
// waiter decides "expired" the same way; if Reserve then reports ErrDecided,
// a decision is already durable or in flight, and the call must be denied
// anyway unless a short second Wait returns it.
//
// # Restart
//
// On start the registry replays the audit journal: every request with Add,
// every decision with Apply (for-lease approvals re-create their remembered
// grants), and ForgetLease for every lease that is closed. A request still
// pending after replay has lost its waiter with the old process: Orphans
// lists them, and the registry expires each one (By "restart") before it
// serves anything.
package approvals
