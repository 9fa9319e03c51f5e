package registry

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/leasedeck/leasedeck/registry/record"
	"github.com/leasedeck/leasedeck/registry/wire"
	"github.com/leasedeck/leasedeck/termtext"
)

// Who may do what over the socket is decided here, for every op, from the
// op table's access class and the scope the op's binder reads off the
// message. The agent runs as the same user as everyone else and can reach
// the socket, so a message proves nothing by its content: session ids are
// not secrets (an agent can read its client's transcript file names).
// What proves a session op is the session's capability, an unguessable
// value the registry handed the hook when the session began and keeps only
// as a hash; what proves an operator op is the operator token.

// scope is what a session op's message would touch.
type scope struct {
	sessions   []string // raw session ids the message acts for
	parent     string   // the parent session a new subagent session would go under
	leases     []string
	admissions []string
	// operator, when set, says why this use of the op needs the operator
	// token whatever capability comes with it (a root lease, a stop).
	operator string
	// strict: the named leases must exist (an issue under a parent that
	// does not exist would otherwise journal a refusal for anyone).
	strict bool
}

// ErrWrongSession: a session op came without the capability of the
// session it touches.
var ErrWrongSession = errors.New("wrong session")

// authorize checks one message against its op's access class and scope.
// Nothing has been read or changed for the caller before it returns nil.
func (h *Handler) authorize(spec *opSpec, c *call, sc scope) *wire.Error {
	if c.operator || spec.access == wire.ReadOnly {
		return nil
	}
	if spec.access == wire.Operator {
		return needsOperator(spec.name)
	}
	if sc.operator != "" {
		return needsOperator(wire.Op(sc.operator))
	}
	why, fresh := h.svc.bound(c.env.Capability, c.env.RunTicket, sc)
	if why != "" {
		if c.env.Capability == "" {
			why += "; a session op needs the capability the registry handed the session when it began"
		} else {
			why += "; the capability presented belongs to another session"
		}
		return wire.Errorf(wire.WrongSession, "%s: %s (nothing was changed)", spec.name, why)
	}
	c.freshSession = fresh
	return nil
}

// bound reports why sc is not within the session that capability was
// handed to, nor under the confined run that runTicket names ("" when it
// is), and whether the sessions it names do not exist yet (a new session,
// which anyone may begin). Inside a run the ticket is the tree's
// capability: every session of the run is the same confined agent's, and
// none outside it is.
func (s *Service) bound(capability, runTicket string, sc scope) (why string, fresh bool) {
	run := ""
	if runTicket != "" {
		run, _ = s.runs.leaseFor(runTicket)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.st
	root := ""
	if capability != "" {
		root = st.Capabilities[capabilityHash(capability)]
	}
	inRun := func(lease string) bool { return run != "" && (lease == run || contains(st.Chain(lease), run)) }
	ownSession := func(sh string) bool {
		sess := st.Sessions[sh]
		return st.sessionWithin(sh, root) || (sess != nil && inRun(sess.LeaseID))
	}
	fresh = len(sc.sessions) > 0
	for _, raw := range sc.sessions {
		sh := s.SaltedHash("session", raw)
		if st.Sessions[sh] == nil {
			continue
		}
		fresh = false
		if !ownSession(sh) {
			return fmt.Sprintf("session %q is not this caller's", clipID(raw)), false
		}
	}
	if sc.parent != "" && fresh {
		// A new subagent session goes under its parent's lease and uses its
		// fan-out: only the parent session's holder may start one.
		ph := s.SaltedHash("session", sc.parent)
		if st.Sessions[ph] != nil && !ownSession(ph) {
			return fmt.Sprintf("parent session %q is not this caller's", clipID(sc.parent)), false
		}
	}
	for _, id := range sc.leases {
		if (st.Leases[id] != nil || sc.strict) && !st.leaseWithin(id, root) && !(st.Leases[id] != nil && inRun(id)) {
			return fmt.Sprintf("lease %s is not this caller's session lease or under it", clipID(id)), false
		}
	}
	for _, id := range sc.admissions {
		if a := st.Admissions[id]; a != nil && !ownSession(a.SessionHash) && !inRun(a.LeaseID) {
			return fmt.Sprintf("admission %s belongs to another session", clipID(id)), false
		}
	}
	return "", fresh
}

// sessionWithin: session sh is root or one of root's subagent sessions.
func (st *State) sessionWithin(sh, root string) bool {
	if root == "" {
		return false
	}
	for depth := 0; sh != "" && depth < 64; depth++ {
		if sh == root {
			return true
		}
		sess := st.Sessions[sh]
		if sess == nil {
			return false
		}
		sh = sess.ParentHash
	}
	return false
}

// leaseWithin: lease id is root's session lease or a descendant of it.
func (st *State) leaseWithin(id, root string) bool {
	sess := st.Sessions[root]
	if root == "" || sess == nil || sess.LeaseID == "" {
		return false
	}
	if id == sess.LeaseID {
		return true
	}
	for _, anc := range st.Chain(id) {
		if anc == sess.LeaseID {
			return true
		}
	}
	return false
}

// newCapability is 32 random bytes, URL-safe base64.
func newCapability() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("no randomness for a session capability: %w", err)
	}
	return "ldcap_" + base64.RawURLEncoding.EncodeToString(b), nil
}

// capabilityHash is what the journal keeps of a capability.
func capabilityHash(capability string) string {
	h := sha256.Sum256([]byte("leasedeck:capability\x00" + capability))
	return hex.EncodeToString(h[:])
}

// clipID keeps an id in an error message short.
func clipID(s string) string { return termtext.Clip(s, 48) }

// foldSessionRecord applies a session's started or begun line: the
// session, its lease, its current turn (kept when current is "" and the
// lease is the same) and the hash of its capability (kept from the first
// line that carried one; a hash already taken is never reassigned).
func (st *State) foldSessionRecord(d *record.Details, current string) {
	next := &Session{Hash: d.SessionHash, LeaseID: d.LeaseID, Client: d.Client, ParentHash: d.ParentSessionHash,
		Current: current, CapabilityHash: d.CapabilityHash}
	if old := st.Sessions[d.SessionHash]; old != nil {
		if current == "" && old.LeaseID == next.LeaseID {
			next.Current = old.Current
		}
		if next.CapabilityHash == "" {
			next.CapabilityHash = old.CapabilityHash
		}
	}
	if h := next.CapabilityHash; h != "" {
		if _, taken := st.Capabilities[h]; !taken {
			st.Capabilities[h] = d.SessionHash
		}
	}
	st.Sessions[d.SessionHash] = next
}
