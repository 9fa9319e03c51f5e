package schemas

import "testing"

func benchValidate(b *testing.B, shape Shape, fixture string) {
	v, err := ParseJSON(mustRead(b, "../contract/fixtures/valid/"+fixture))
	if err != nil {
		b.Fatal(err)
	}
	if errs, err := Validate(shape, v); err != nil || len(errs) > 0 {
		b.Fatalf("fixture does not validate: %v %v", errs, err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if errs, _ := Validate(shape, v); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}

// BenchmarkValidateLease validates the populated lease fixture; the shape
// is compiled before the timer starts, so this is the per-lease cost that
// a cold registry.VerifyLease pays.
func BenchmarkValidateLease(b *testing.B) {
	benchValidate(b, Lease, "agent-lease.populated.json")
}

func BenchmarkValidateManifest(b *testing.B) {
	benchValidate(b, Manifest, "agent-lease-manifest.populated.json")
}

func BenchmarkValidateLeaseRecord(b *testing.B) {
	benchValidate(b, LeaseRecord, "lease-record.populated.json")
}

// BenchmarkCompileShape is the first-use cost a process pays per shape
// (the hook pays it for the lifecycle request on every tool call).
func BenchmarkCompileShape(b *testing.B) {
	for _, s := range []Shape{LifecycleRequest, Manifest, Lease, LeaseRecord} {
		b.Run(string(s), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				compileMu.Lock()
				clear(docs)
				clear(patternCache)
				if _, err := compileShape(s); err != nil {
					b.Fatal(err)
				}
				compileMu.Unlock()
			}
		})
	}
}
