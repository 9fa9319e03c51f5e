package registry

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/leasedeck/leasedeck/registry/record"
	"github.com/leasedeck/leasedeck/schemas"
)

// SchemaVersion is the contract version leasedeck writes.
const SchemaVersion = record.SchemaVersion

// TimeLayout is the one timestamp form allowed inside signed bytes
// (SPEC §6): UTC, milliseconds, Z.
const TimeLayout = record.TimeLayout

// FormatTime renders t in TimeLayout, truncating to the millisecond.
func FormatTime(t time.Time) string { return record.FormatTime(t) }

// ParseTime reads a TimeLayout timestamp (or any RFC 3339 form, for
// evidence records whose schemas allow offsets).
func ParseTime(s string) (time.Time, error) { return record.ParseTime(s) }

// TestKeyHex is the contract's published conformance test key. It is
// public by design, so a lease signed with it proves nothing: SPEC §7
// requires refusing it outside a conformance run.
const TestKeyHex = "f26727a6f3ac3817c4ea31fd126ed165a8e5e3cda28cdfe6900c26ea54a98df3"

// ErrTestKey is returned when the published test key is used outside
// conformance mode.
var ErrTestKey = errors.New("the published conformance test key is refused outside conformance mode (SPEC §7)")

// Key is an HMAC-SHA256 signing key.
type Key struct {
	bytes       []byte
	conformance bool
}

// NewKey wraps key bytes. The published test key is refused unless
// conformance is true.
func NewKey(b []byte, conformance bool) (Key, error) {
	if len(b) < 16 {
		return Key{}, fmt.Errorf("signing key is %d bytes; at least 16 are required", len(b))
	}
	if IsTestKey(b) && !conformance {
		return Key{}, ErrTestKey
	}
	return Key{bytes: append([]byte(nil), b...), conformance: conformance}, nil
}

// ParseKeyHex reads a key file's contents: hex, with '#' comment lines
// and blank lines ignored (the format of the contract's test-key.txt).
func ParseKeyHex(text string) ([]byte, error) {
	var hexs []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		hexs = append(hexs, line)
	}
	if len(hexs) != 1 {
		return nil, fmt.Errorf("key file must hold one line of hex (found %d non-comment lines)", len(hexs))
	}
	b, err := hex.DecodeString(hexs[0])
	if err != nil {
		return nil, fmt.Errorf("key file is not hex: %v", err)
	}
	return b, nil
}

// IsTestKey reports whether b is the published conformance test key.
func IsTestKey(b []byte) bool {
	return hex.EncodeToString(b) == TestKeyHex
}

// NewRandomKey makes a fresh 32-byte deployment key.
func NewRandomKey() ([]byte, error) {
	b := make([]byte, 32)
	_, err := rand.Read(b)
	return b, err
}

// Fingerprint identifies the key without revealing it:
// "sha256:" + the first 16 hex digits of SHA-256 of the key bytes.
func (k Key) Fingerprint() string {
	sum := sha256.Sum256(k.bytes)
	return "sha256:" + hex.EncodeToString(sum[:])[:16]
}

// Bytes exposes the key for the journal's line MACs.
func (k Key) Bytes() []byte { return k.bytes }

// MAC is lower-case hex HMAC-SHA256 of b.
func (k Key) MAC(b []byte) string {
	m := hmac.New(sha256.New, k.bytes)
	m.Write(b)
	return hex.EncodeToString(m.Sum(nil))
}

// Sign computes the signature of a lease object: HMAC-SHA256 over the
// canonical bytes of every member except `signature` (SPEC §7).
func (k Key) Sign(lease map[string]any) (string, error) {
	unsigned := make(map[string]any, len(lease))
	for name, v := range lease {
		if name != "signature" {
			unsigned[name] = v
		}
	}
	c, err := schemas.Canonical(unsigned)
	if err != nil {
		return "", err
	}
	return k.MAC(c), nil
}

// Parent is what a manifest is narrowed against: a live lease's granted
// manifest with its remaining budget, or the root policy (ID empty).
type Parent struct {
	ID        string
	Manifest  *Manifest
	ExpiresAt time.Time // zero for the root policy
}

// Issuer signs leases. It holds no state: the service decides parents,
// remaining budgets and lifetimes and records every decision.
type Issuer struct {
	Key             Key
	SessionID       string        // issuer_session_id
	DefaultLifetime time.Duration // policy cap on a lease's lifetime
}

// IssueOutcome is what presenting a manifest to the issuer produced.
type IssueOutcome struct {
	LeaseID      string
	Declared     map[string]any
	DeclaredHash string
	Narrowed     Narrowed
	Lease        map[string]any // nil when refused
	GrantedHash  string
	IssuedAt     time.Time
	ExpiresAt    time.Time
}

// Issue narrows declared against parent and, unless refused, returns
// the signed lease. A refusal still gets a fresh lease id naming it, and
// its declared hash, so that it can be recorded with the weight of a
// grant (§5.2).
func (is Issuer) Issue(declared *Manifest, parent Parent, now time.Time) (IssueOutcome, error) {
	if len(is.Key.bytes) == 0 {
		return IssueOutcome{}, errors.New("no signing key")
	}
	dh, err := schemas.Hash(declared.Raw)
	if err != nil {
		return IssueOutcome{}, fmt.Errorf("declared manifest: %w", err)
	}
	dec := IssueOutcome{
		LeaseID:      NewLeaseID(),
		Declared:     declared.Raw,
		DeclaredHash: dh,
		Narrowed:     Narrow(declared, parent.Manifest),
		IssuedAt:     now.UTC().Truncate(time.Millisecond),
	}
	if dec.Narrowed.Refused() {
		return dec, nil
	}
	g := dec.Narrowed.Granted

	// Lifetime: the smallest of the declared wall-clock budget (after
	// narrowing, so the parent's remaining ceiling already applies), the
	// parent's remaining time and the policy's default lifetime.
	life := is.DefaultLifetime
	if life <= 0 {
		life = time.Hour
	}
	if ms, ok := g.Budget.Get(WallClockMs); ok && time.Duration(ms)*time.Millisecond < life {
		life = time.Duration(ms) * time.Millisecond
	}
	if !parent.ExpiresAt.IsZero() {
		if left := parent.ExpiresAt.Sub(dec.IssuedAt); left < life {
			life = left
		}
	}
	life = life.Truncate(time.Millisecond)
	if life <= 0 {
		// L1 forbids a lease valid for zero milliseconds; a parent with
		// no time left cannot delegate.
		return IssueOutcome{}, errors.New("parent lease has no time left")
	}
	dec.ExpiresAt = dec.IssuedAt.Add(life)

	lease := map[string]any{
		"schema_version":    SchemaVersion,
		"lease_id":          dec.LeaseID,
		"manifest":          g.Raw,
		"declared_hash":     dh,
		"issued_at":         FormatTime(dec.IssuedAt),
		"expires_at":        FormatTime(dec.ExpiresAt),
		"issuer_session_id": is.SessionID,
		"key_fingerprint":   is.Key.Fingerprint(),
	}
	if parent.ID != "" {
		lease["parent_lease_id"] = parent.ID
	}
	sig, err := is.Key.Sign(lease)
	if err != nil {
		return IssueOutcome{}, err
	}
	lease["signature"] = sig
	dec.Lease = lease
	if dec.GrantedHash, err = schemas.Hash(g.Raw); err != nil {
		return IssueOutcome{}, err
	}
	return dec, nil
}

// NewLeaseID is a fresh lower-case UUID (v4).
func NewLeaseID() string { return uuid.NewString() }

// Problem is one reason a lease or record does not verify: which check
// (schema, signature, L1, L2, L3, key), where (a JSON pointer) and why.
type Problem struct {
	Check   string `json:"check"`
	Path    string `json:"path"`
	Message string `json:"message"`
}

func (p Problem) String() string {
	path := p.Path
	if path == "" {
		path = "/"
	}
	return fmt.Sprintf("%s %s %s", p.Check, path, p.Message)
}

// VerifyLease checks a lease object: schema, signature under key, and
// rules L1 and L2. It returns every problem found (nil when it holds).
// Expiry is not a verification failure — an expired lease is a genuine
// record that opens nothing — so the gate checks it, not this.
func VerifyLease(lease any, key Key) []Problem {
	return (*Verifier)(nil).Verify(lease, key)
}

// Verifier verifies leases and remembers which exact leases (by the
// SHA-256 of their canonical bytes) already passed schema validation, the
// expensive step, so that a service re-checking the same lease on every
// gate pays for hashing and the HMAC only. Any change to a lease changes
// its canonical bytes and misses the cache. The zero value is ready; a nil
// *Verifier never caches.
type Verifier struct {
	mu    sync.Mutex
	valid map[string]struct{}
}

// maxVerified bounds the cache; when full it is simply cleared.
const maxVerified = 1 << 14

// Verify is VerifyLease with the cache.
func (v *Verifier) Verify(lease any, key Key) []Problem {
	m, isObj := lease.(map[string]any)
	var probs []Problem
	var cacheKey string
	if isObj {
		unsigned := make(map[string]any, len(m))
		for name, x := range m {
			if name != "signature" {
				unsigned[name] = x
			}
		}
		c, err := schemas.Canonical(unsigned)
		if err != nil {
			probs = append(probs, Problem{Check: "signature", Message: "cannot compute canonical bytes: " + err.Error()})
		} else {
			sig, _ := m["signature"].(string)
			if !hmac.Equal([]byte(sig), []byte(key.MAC(c))) {
				msg := "signature does not match the canonical bytes under this key"
				if fp, _ := m["key_fingerprint"].(string); fp != "" && fp != key.Fingerprint() {
					msg += fmt.Sprintf(" (lease names key %s, this key is %s)", fp, key.Fingerprint())
				}
				probs = append(probs, Problem{Check: "signature", Path: "/signature", Message: msg})
			}
			cacheKey = schemas.SHA256Hex(c) + sig
		}
	}
	if !v.known(cacheKey) {
		errs, err := schemas.Validate(schemas.Lease, lease)
		if err != nil {
			return append(probs, Problem{Check: "schema", Message: err.Error()})
		}
		for _, e := range errs {
			probs = append(probs, Problem{Check: "schema", Path: e.Path, Message: e.Keyword + ": " + e.Message})
		}
		if len(errs) == 0 {
			v.remember(cacheKey)
		}
	}
	if isObj {
		probs = append(probs, CheckLeaseRules(m)...)
	}
	sort.SliceStable(probs, func(i, j int) bool { return checkOrder(probs[i].Check) < checkOrder(probs[j].Check) })
	return probs
}

func checkOrder(c string) int {
	return strings.Index("schema signature L1 L2 L3", c)
}

func (v *Verifier) known(k string) bool {
	if v == nil || k == "" {
		return false
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	_, ok := v.valid[k]
	return ok
}

func (v *Verifier) remember(k string) {
	if v == nil || k == "" {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.valid == nil || len(v.valid) >= maxVerified {
		v.valid = map[string]struct{}{}
	}
	v.valid[k] = struct{}{}
}

// CheckLeaseRules applies the rules a schema cannot state: L1 (expires_at
// strictly after issued_at) and L2 (no self-parent).
func CheckLeaseRules(m map[string]any) []Problem {
	var probs []Problem
	is, _ := m["issued_at"].(string)
	ex, _ := m["expires_at"].(string)
	if ti, err1 := ParseTime(is); err1 == nil {
		if te, err2 := ParseTime(ex); err2 == nil && !te.After(ti) {
			probs = append(probs, Problem{Check: "L1", Path: "/expires_at",
				Message: fmt.Sprintf("expires_at %s is not after issued_at %s", ex, is)})
		}
	}
	if p, ok := m["parent_lease_id"].(string); ok && p != "" && p == m["lease_id"] {
		probs = append(probs, Problem{Check: "L2", Path: "/parent_lease_id",
			Message: "parent_lease_id equals lease_id: a lease cannot be its own parent"})
	}
	return probs
}

// CheckRevocation applies rule L3 to a `revoked` record: `by` must be
// "issuer" or the lease_id of an ancestor of the revoked lease. chain is
// the revoked lease's ancestors (parent first). It needs the journal to
// know the chain, which is why it is separate from CheckLeaseRules.
func CheckRevocation(rec map[string]any, chain []string) []Problem {
	if ev, _ := rec["event"].(string); ev != "revoked" {
		return nil
	}
	by, _ := rec["by"].(string)
	id, _ := rec["lease_id"].(string)
	return checkRevokedBy(by, id, chain)
}

func checkRevokedBy(by, leaseID string, chain []string) []Problem {
	if by == "issuer" {
		return nil
	}
	for _, a := range chain {
		if a == by {
			return nil
		}
	}
	return []Problem{{Check: "L3", Path: "/by",
		Message: fmt.Sprintf("revoked by %q, which is neither the issuer nor an ancestor of lease %v", by, leaseID)}}
}
