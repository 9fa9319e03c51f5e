package record_test

import (
	"testing"

	"github.com/leasedeck/leasedeck/journal"
	"github.com/leasedeck/leasedeck/registry/record"
	"github.com/leasedeck/leasedeck/schemas"
)

// Reading a line and writing it back is stable (a second round trip
// changes nothing), and a line that satisfies its schema still does after
// the round trip, whatever its members hold.
func FuzzRoundTrip(f *testing.F) {
	for _, s := range []string{
		`{"schema_version":"1.2","timestamp":"2026-12-01T09:00:00.000Z","event_type":"leasedeck.gate.allowed","actor":{"kind":"system"},"summary":"Bash: runs git","details":{"lease_id":"x","steps":1,"accurate":true}}`,
		`{"schema_version":"1.2","at":"2026-12-01T09:00:00.000Z","event":"revoked","lease_id":"9b2f3c1e-0000-4000-8000-000000000001","by":"issuer","reason":"r"}`,
		`{"schema_version":"1.3","at":"2026-12-01T09:00:00.000Z","event":"completed","lease_id":"9b2f3c1e-0000-4000-8000-000000000001","usage":{"tokens":5,"x":[1]},"new":{"a":null}}`,
		`{"schema_version":"1.2","timestamp":"2026-12-01T09:00:00Z","event_type":"a.b","summary":7,"details":{"tokens":1e400,"cost_usd":-1,"names":"a b"}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		v, err := schemas.ParseJSON([]byte(line))
		if err != nil {
			return
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return
		}
		for _, k := range journal.Kinds {
			once := record.Parse(k, obj)
			first := value(&once)
			again := record.Parse(k, first)
			a, err1 := schemas.Canonical(first)
			b, err2 := schemas.Canonical(value(&again))
			if (err1 == nil) != (err2 == nil) || string(a) != string(b) {
				t.Fatalf("%s: a second round trip changed the record:\n%s\n%s", k, a, b)
			}
			if errs, err := schemas.Validate(k.Shape(), obj); err == nil && len(errs) == 0 {
				if errs, err := schemas.Validate(k.Shape(), first); err != nil || len(errs) > 0 {
					t.Fatalf("%s: valid in, invalid out: %v %v\n%s", k, err, errs, a)
				}
			}
		}
	})
}

func value(l *record.Line) map[string]any {
	if l.Kind == journal.Audit {
		return l.Audit.Value()
	}
	return l.Lease.Value()
}
