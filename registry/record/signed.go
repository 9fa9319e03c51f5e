package record

import "time"

// SignedLease is the typed reading of a signed lease object (the
// agent-lease schema). Raw is the object itself, which the signature
// covers; the other fields are read from it.
type SignedLease struct {
	SchemaVersion   string
	LeaseID         string
	ParentLeaseID   string
	Manifest        map[string]any
	DeclaredHash    string
	IssuedAt        string
	ExpiresAt       string
	IssuerSessionID string
	KeyFingerprint  string
	Signature       string
	Raw             map[string]any
}

// ParseSignedLease reads a signed lease object; members of the wrong type
// read as empty (the signature check and the schema report them).
func ParseSignedLease(v map[string]any) SignedLease {
	str := func(k string) string { s, _ := v[k].(string); return s }
	l := SignedLease{
		SchemaVersion: str("schema_version"), LeaseID: str("lease_id"), ParentLeaseID: str("parent_lease_id"),
		DeclaredHash: str("declared_hash"), IssuedAt: str("issued_at"), ExpiresAt: str("expires_at"),
		IssuerSessionID: str("issuer_session_id"), KeyFingerprint: str("key_fingerprint"), Signature: str("signature"),
		Raw: v,
	}
	l.Manifest, _ = v["manifest"].(map[string]any)
	return l
}

// Issued and Expires are the lease's times (zero when unreadable).
func (l SignedLease) Issued() time.Time  { t, _ := ParseTime(l.IssuedAt); return t }
func (l SignedLease) Expires() time.Time { t, _ := ParseTime(l.ExpiresAt); return t }

// Signed is the signed lease a `granted` record carries.
func (r *Lease) Signed() SignedLease { return ParseSignedLease(r.Lease) }

// ManifestLabel is a manifest's agent name and purpose, for one-line
// descriptions (empty when absent).
func ManifestLabel(m map[string]any) (name, purpose string) {
	if a, ok := m["agent"].(map[string]any); ok {
		name, _ = a["name"].(string)
	}
	if in, ok := m["intent"].(map[string]any); ok {
		purpose, _ = in["purpose"].(string)
	}
	return name, purpose
}
