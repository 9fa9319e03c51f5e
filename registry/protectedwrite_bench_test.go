package registry

import (
	"testing"

	"github.com/leasedeck/leasedeck/registry/resources"
)

// BenchmarkProtectedWrite is one ordinary write (echo x > src/out.txt)
// checked against the implicit and the default protected lists, as every
// writing call is.
func BenchmarkProtectedWrite(b *testing.B) {
	ws := shellWorkspaceB(b)
	rules := benchCallRules(b)
	use, err := resources.FromToolCall(ws, "Bash", map[string]any{"command": "echo x > src/out.txt"})
	if err != nil || len(use.Writes) != 1 {
		b.Fatalf("%v, %d writes", err, len(use.Writes))
	}
	b.ReportAllocs()
	for b.Loop() {
		if why := rules.protectedWrite(use); why != "" {
			b.Fatal(why)
		}
	}
}
