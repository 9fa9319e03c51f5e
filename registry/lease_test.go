package registry

import (
	"math/rand"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/schemas"
)

func testKey(t testing.TB) Key {
	t.Helper()
	b, err := NewRandomKey()
	if err != nil {
		t.Fatal(err)
	}
	k, err := NewKey(b, false)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func rootPolicy(t testing.TB) *Manifest {
	m := genManifest(rand.New(rand.NewSource(7)), nil)
	a := m["allow"].(map[string]any)
	a["tools"] = []any{"Bash", "Read", "Write"}
	a["read_paths"] = []any{"**"}
	a["write_paths"] = []any{"**"}
	m["budget"] = map[string]any{"depth": int64(4), "fan_out": int64(8), "wall_clock_ms": int64(600000)}
	return mustManifest(t, m)
}

func declaredManifest(t testing.TB) *Manifest {
	return mustManifest(t, map[string]any{
		"schema_version": "1.2",
		"agent":          map[string]any{"name": "session", "kind": "external", "runtime_agent": "claude-code"},
		"intent":         map[string]any{"purpose": "Edit the docs."},
		"allow": map[string]any{"tools": []any{"Read", "Write", "WebFetch"}, "read_paths": []any{"**"},
			"write_paths": []any{"docs/**"}, "hosts": []any{}, "commands": []any{}},
		"deny":                        map[string]any{"commands": []any{}, "paths": []any{}, "hosts": []any{}},
		"budget":                      map[string]any{"steps": int64(50)},
		"approvals":                   []any{},
		"a_field_from_a_newer_writer": map[string]any{"nested": true},
	})
}

var (
	uuidRe = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	timeRe = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`)
)

func TestIssueAndVerify(t *testing.T) {
	key := testKey(t)
	is := Issuer{Key: key, SessionID: "test-session", DefaultLifetime: time.Hour}
	now := time.Date(2026, 11, 29, 10, 0, 0, 123456789, time.UTC)
	dec, err := is.Issue(declaredManifest(t), Parent{Manifest: rootPolicy(t)}, now)
	if err != nil {
		t.Fatal(err)
	}
	if dec.Narrowed.Refused() {
		t.Fatalf("refused: %s", dec.Narrowed.Reason())
	}
	l := dec.Lease
	if !uuidRe.MatchString(l["lease_id"].(string)) {
		t.Errorf("lease_id %v", l["lease_id"])
	}
	if l["issued_at"] != "2026-11-29T10:00:00.123Z" || !timeRe.MatchString(l["expires_at"].(string)) {
		t.Errorf("times %v %v", l["issued_at"], l["expires_at"])
	}
	// wall_clock_ms 600000 from the policy caps the lifetime below the default hour.
	if l["expires_at"] != "2026-11-29T10:10:00.123Z" {
		t.Errorf("expires_at %v", l["expires_at"])
	}
	wantHash, _ := schemas.Hash(declaredManifest(t).Raw)
	if l["declared_hash"] != wantHash {
		t.Errorf("declared_hash %v, want %v", l["declared_hash"], wantHash)
	}
	if !strings.HasPrefix(l["key_fingerprint"].(string), "sha256:") || len(l["key_fingerprint"].(string)) != 23 {
		t.Errorf("fingerprint %v", l["key_fingerprint"])
	}
	c, _ := schemas.Canonical(l)
	if !strings.Contains(string(c), "a_field_from_a_newer_writer") {
		t.Error("unknown declared field did not survive into the grant")
	}
	if probs := VerifyLease(l, key); len(probs) > 0 {
		t.Fatalf("fresh lease does not verify: %v", probs)
	}
	// Round trip through JSON text.
	v, err := schemas.ParseJSON(c)
	if err != nil {
		t.Fatal(err)
	}
	if probs := VerifyLease(v, key); len(probs) > 0 {
		t.Fatalf("reparsed lease does not verify: %v", probs)
	}
	// Another key, an edited grant, a flipped signature: all fail.
	if probs := VerifyLease(l, testKey(t)); len(probs) == 0 {
		t.Error("verified under another key")
	}
	edited := map[string]any{}
	for k, v := range l {
		edited[k] = v
	}
	edited["expires_at"] = "2099-01-01T00:00:00.000Z"
	if probs := VerifyLease(edited, key); len(probs) == 0 || probs[0].Check != "signature" {
		t.Errorf("edited lease: %v", probs)
	}
	// The cache never hides a change: a verifier that saw the good lease
	// still refuses the edited one.
	var ver Verifier
	if p := ver.Verify(l, key); len(p) > 0 {
		t.Fatal(p)
	}
	if p := ver.Verify(edited, key); len(p) == 0 {
		t.Error("cached verifier accepted an edited lease")
	}
}

func TestIssueChildClampedToParentTime(t *testing.T) {
	key := testKey(t)
	is := Issuer{Key: key, SessionID: "s", DefaultLifetime: time.Hour}
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	root, _ := is.Issue(declaredManifest(t), Parent{Manifest: rootPolicy(t)}, now)
	dec, err := is.Issue(declaredManifest(t), Parent{ID: root.LeaseID, Manifest: root.Narrowed.Granted, ExpiresAt: now.Add(90 * time.Second)}, now)
	if err != nil {
		t.Fatal(err)
	}
	if dec.Lease["expires_at"] != "2026-11-29T10:01:30.000Z" || dec.Lease["parent_lease_id"] != root.LeaseID {
		t.Fatalf("child lease %v %v", dec.Lease["expires_at"], dec.Lease["parent_lease_id"])
	}
	if _, err := is.Issue(declaredManifest(t), Parent{ID: root.LeaseID, Manifest: root.Narrowed.Granted, ExpiresAt: now}, now); err == nil {
		t.Fatal("issued under a parent with no time left")
	}
}

func TestTestKeyRefused(t *testing.T) {
	b, _ := ParseKeyHex("# comment\n" + TestKeyHex + "\n")
	if _, err := NewKey(b, false); err != ErrTestKey {
		t.Fatalf("got %v", err)
	}
	if _, err := NewKey(b, true); err != nil {
		t.Fatal(err)
	}
}

func TestRevocationRule(t *testing.T) {
	rec := map[string]any{"event": "revoked", "lease_id": "c", "by": "a"}
	if p := CheckRevocation(rec, []string{"b", "a"}); len(p) != 0 {
		t.Errorf("ancestor revoke refused: %v", p)
	}
	rec["by"] = "issuer"
	if p := CheckRevocation(rec, nil); len(p) != 0 {
		t.Errorf("issuer revoke refused: %v", p)
	}
	rec["by"] = "stranger"
	if p := CheckRevocation(rec, []string{"b"}); len(p) != 1 || p[0].Check != "L3" || p[0].Path != "/by" {
		t.Errorf("stranger revoke: %v", p)
	}
}

func BenchmarkNarrow(b *testing.B) {
	parent, declared := rootPolicy(b), declaredManifest(b)
	b.ReportAllocs()
	for b.Loop() {
		Narrow(declared, parent)
	}
}

func BenchmarkIssueAndSign(b *testing.B) {
	is := Issuer{Key: testKey(b), SessionID: "bench", DefaultLifetime: time.Hour}
	parent, declared := Parent{Manifest: rootPolicy(b)}, declaredManifest(b)
	now := time.Now()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := is.Issue(declared, parent, now); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifyWarm re-verifies the same lease through a Verifier, as
// the registry does on every gate: schema validation is remembered.
func BenchmarkVerifyWarm(b *testing.B) {
	key := testKey(b)
	is := Issuer{Key: key, SessionID: "bench", DefaultLifetime: time.Hour}
	dec, _ := is.Issue(declaredManifest(b), Parent{Manifest: rootPolicy(b)}, time.Now())
	var v Verifier
	b.ReportAllocs()
	for b.Loop() {
		if p := v.Verify(dec.Lease, key); len(p) > 0 {
			b.Fatal(p)
		}
	}
}

// BenchmarkVerify is a cold verification: schema, signature, rules.
func BenchmarkVerify(b *testing.B) {
	key := testKey(b)
	is := Issuer{Key: key, SessionID: "bench", DefaultLifetime: time.Hour}
	dec, _ := is.Issue(declaredManifest(b), Parent{Manifest: rootPolicy(b)}, time.Now())
	b.ReportAllocs()
	for b.Loop() {
		if p := VerifyLease(dec.Lease, key); len(p) > 0 {
			b.Fatal(p)
		}
	}
}
