package record

import (
	"sort"
	"time"
)

// Event is what a lease record says happened (the schema's closed list).
type Event string

// The nine lease-record events of schema set 1.2.
const (
	Granted   Event = "granted"
	Refused   Event = "refused"
	Narrowed  Event = "narrowed"
	Heartbeat Event = "heartbeat"
	Attached  Event = "attached"
	Revoked   Event = "revoked"
	Stopped   Event = "stopped"
	Completed Event = "completed"
	Expired   Event = "expired"
)

// Closes reports whether the event ends a lease.
func (e Event) Closes() bool {
	return e == Revoked || e == Stopped || e == Completed || e == Expired
}

// Lease is one line of the lease journal.
type Lease struct {
	SchemaVersion string
	At            string
	Event         Event
	LeaseID       string
	ParentLeaseID string
	// Lease is the signed lease on `granted`. It stays the parsed tree,
	// unknown members and all, because its signature covers exactly
	// those bytes; SignedLease reads it.
	Lease        map[string]any
	Declared     map[string]any // the declared manifest, when recorded
	DeclaredHash string
	GrantedHash  string
	Reasons      []string // refusal codes
	Reason       string
	By           string
	Signature    string
	Usage        *Usage
	Containment  string
	Platform     string

	// Extra holds members this version does not know, and known members
	// whose value has an unexpected type, exactly as read.
	Extra map[string]any
}

// Usage is what a completed lease consumed; nil figures were not measured.
type Usage struct {
	Tokens  *float64
	CostUSD *float64
	Extra   map[string]any
}

// Time is when the record says the decision was made.
func (r *Lease) Time() time.Time {
	t, _ := ParseTime(r.At)
	return t
}

func newLease(ev Event, at time.Time, leaseID, parentID string) Lease {
	return Lease{SchemaVersion: SchemaVersion, At: FormatTime(at), Event: ev, LeaseID: leaseID, ParentLeaseID: parentID}
}

// NewGranted records a grant: the signed lease, the declaration it came
// from and both hashes. at is the lease's own issued_at.
func NewGranted(at, leaseID, parentID string, lease, declared map[string]any, declaredHash, grantedHash string) Lease {
	return Lease{SchemaVersion: SchemaVersion, At: at, Event: Granted, LeaseID: leaseID, ParentLeaseID: parentID,
		Lease: lease, Declared: declared, DeclaredHash: declaredHash, GrantedHash: grantedHash}
}

// NewNarrowed records what a grant took away from its declaration.
func NewNarrowed(at, leaseID, summary string) Lease {
	return Lease{SchemaVersion: SchemaVersion, At: at, Event: Narrowed, LeaseID: leaseID, Reason: ClipField(summary, LeaseReason)}
}

// NewRefused records a refusal under a fresh id: its codes, its prose
// reason (clipped to the schema's cap), the declared hash and, when it
// validates, the declaration.
func NewRefused(at time.Time, refusalID, parentID string, codes []string, reason, declaredHash string, declared map[string]any) Lease {
	r := newLease(Refused, at, refusalID, parentID)
	r.Reasons = append([]string(nil), codes...)
	r.Reason = ClipField(reason, LeaseReason)
	r.DeclaredHash, r.Declared = declaredHash, declared
	return r
}

// NewRevoked records a revocation by the issuer or an ancestor (rule L3).
func NewRevoked(at time.Time, leaseID, parentID, by, reason string) Lease {
	r := newLease(Revoked, at, leaseID, parentID)
	r.By, r.Reason = by, ClipField(reason, LeaseReason)
	return r
}

// NewClosed records a lease ending by stop, completion or expiry; reason
// is kept when not empty (the schema requires it on `stopped`).
func NewClosed(ev Event, at time.Time, leaseID, parentID, reason string) Lease {
	r := newLease(ev, at, leaseID, parentID)
	r.Reason = ClipField(reason, LeaseReason)
	return r
}

// Value is the record as a journal value, free text clipped to the
// schema's caps and unknown members kept.
func (r *Lease) Value() map[string]any {
	m := make(map[string]any, 8+len(r.Extra))
	for k, v := range r.Extra {
		m[k] = v
	}
	putRequired(m, r.Extra, "schema_version", r.SchemaVersion)
	putRequired(m, r.Extra, "at", r.At)
	putRequired(m, r.Extra, "event", string(r.Event))
	putRequired(m, r.Extra, "lease_id", r.LeaseID)
	putString(m, "parent_lease_id", r.ParentLeaseID)
	if r.Lease != nil {
		m["lease"] = r.Lease
	}
	if r.Declared != nil {
		m["declared"] = r.Declared
	}
	putString(m, "declared_hash", r.DeclaredHash)
	putString(m, "granted_hash", r.GrantedHash)
	if r.Reasons != nil {
		codes := make([]any, len(r.Reasons))
		for i, c := range r.Reasons {
			codes[i] = c
		}
		m["reasons"] = codes
	}
	putString(m, "reason", ClipField(r.Reason, LeaseReason))
	putString(m, "by", r.By)
	putString(m, "signature", r.Signature)
	if r.Usage != nil {
		m["usage"] = r.Usage.value()
	}
	putString(m, "containment", r.Containment)
	putString(m, "platform", ClipField(r.Platform, LeasePlatform))
	return m
}

func (u *Usage) value() map[string]any {
	m := make(map[string]any, 2+len(u.Extra))
	for k, v := range u.Extra {
		m[k] = v
	}
	putNumber(m, "tokens", u.Tokens)
	putNumber(m, "cost_usd", u.CostUSD)
	return m
}

// ParseLease reads a lease-journal value. Members the journal itself adds
// (seq, prev, mac) are not part of the record and are left out.
func ParseLease(v map[string]any) Lease {
	var r Lease
	for k, x := range v {
		ok := true
		switch k {
		case "seq", "prev", "mac":
		case "schema_version":
			r.SchemaVersion, ok = x.(string)
		case "at":
			r.At, ok = x.(string)
		case "event":
			var s string
			s, ok = x.(string)
			r.Event = Event(s)
		case "lease_id":
			r.LeaseID, ok = x.(string)
		case "parent_lease_id":
			r.ParentLeaseID, ok = x.(string)
		case "lease":
			r.Lease, ok = x.(map[string]any)
		case "declared":
			r.Declared, ok = x.(map[string]any)
		case "declared_hash":
			r.DeclaredHash, ok = x.(string)
		case "granted_hash":
			r.GrantedHash, ok = x.(string)
		case "reasons":
			r.Reasons, ok = stringList(x)
		case "reason":
			r.Reason, ok = x.(string)
		case "by":
			r.By, ok = x.(string)
		case "signature":
			r.Signature, ok = x.(string)
		case "usage":
			var u map[string]any
			if u, ok = x.(map[string]any); ok {
				r.Usage = parseUsage(u)
			}
		case "containment":
			r.Containment, ok = x.(string)
		case "platform":
			r.Platform, ok = x.(string)
		default:
			ok = false
		}
		if !ok {
			r.Extra = keep(r.Extra, k, x)
		}
	}
	return r
}

func parseUsage(v map[string]any) *Usage {
	u := &Usage{}
	for k, x := range v {
		ok := true
		switch k {
		case "tokens":
			u.Tokens, ok = number(x)
		case "cost_usd":
			u.CostUSD, ok = number(x)
		default:
			ok = false
		}
		if !ok {
			u.Extra = keep(u.Extra, k, x)
		}
	}
	return u
}

// SortedReasons are the refusal codes in sorted order.
func (r *Lease) SortedReasons() []string {
	out := append([]string(nil), r.Reasons...)
	sort.Strings(out)
	return out
}
