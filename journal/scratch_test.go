package journal

import (
	"testing"
	"github.com/leasedeck/leasedeck/schemas"
)

var line = []byte(`{"at":"2026-11-29T10:00:00.000Z","event":"heartbeat","lease_id":"0b6f3c2e-8a7d-4e1b-9c55-2f1d3a4b5c6d","schema_version":"1.2","seq":12345,"prev":"0000000000000000000000000000000000000000000000000000000000000000","mac":"0000000000000000000000000000000000000000000000000000000000000000"}`)
var aline = []byte(`{"details":{"lease":"0b6f3c2e","tool":"Bash","decision":"allow"},"event_type":"leasedeck.gate.allowed","schema_version":"1.2","timestamp":"2026-11-29T10:00:00.000Z","seq":12345,"prev":"0000000000000000000000000000000000000000000000000000000000000000","mac":"0000000000000000000000000000000000000000000000000000000000000000"}`)

func BenchmarkParse(b *testing.B) { for i := 0; i < b.N; i++ { schemas.ParseJSON(line) } }
func BenchmarkValidate(b *testing.B) { v, _ := schemas.ParseJSON(line); schemas.Validate(schemas.LeaseRecord, v); b.ResetTimer(); for i := 0; i < b.N; i++ { e, err := schemas.Validate(schemas.LeaseRecord, v); if e != nil || err != nil { b.Fatal(e, err) } } }
func BenchmarkValidateAudit(b *testing.B) { v, _ := schemas.ParseJSON(aline); schemas.Validate(schemas.AuditEvent, v); b.ResetTimer(); for i := 0; i < b.N; i++ { e, err := schemas.Validate(schemas.AuditEvent, v); if e != nil || err != nil { b.Fatal(e, err) } } }
