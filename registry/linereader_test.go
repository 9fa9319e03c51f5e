package registry

import (
	"io"
	"strings"
	"testing"

	"github.com/leasedeck/leasedeck/registry/wire"
)

// What a message holds of the shared budget is held until the caller
// gives it back, a refused message gives it back at once, and a small
// message (within the read buffer) is not charged.
func TestLineReaderBudget(t *testing.T) {
	for _, c := range []struct {
		name    string
		input   string
		budget  int64
		refused bool
		charged bool
	}{
		{"small", `{"op":"status"}` + "\n", 1 << 20, false, false},
		{"large within the budget", strings.Repeat("x", 300<<10) + "\n", 1 << 20, false, true},
		{"large past the budget", strings.Repeat("x", 300<<10) + "\n", 200 << 10, true, false},
		{"past the size", strings.Repeat("x", 2<<20) + "\n", 8 << 20, true, false},
		{"unfinished at EOF", strings.Repeat("x", 100<<10), 1 << 20, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := &lineBudget{max: c.budget}
			lr := newLineReader(strings.NewReader(c.input), 1<<20, b)
			msg, held, refusal, err := lr.next()
			if (refusal != nil) != c.refused || (refusal != nil && refusal.Code != wire.TooLarge) {
				t.Fatalf("refusal %v, want refused=%v", refusal, c.refused)
			}
			if err != nil && err != io.EOF {
				t.Fatal(err)
			}
			if !c.refused && len(msg) != len(strings.TrimSuffix(c.input, "\n")) {
				t.Fatalf("message of %d bytes, want %d", len(msg), len(c.input))
			}
			if (held > 0) != c.charged || b.held.Load() != held {
				t.Fatalf("held %d, budget holds %d, want charged=%v", held, b.held.Load(), c.charged)
			}
			b.give(held)
			if b.held.Load() != 0 {
				t.Fatalf("budget holds %d after the give-back", b.held.Load())
			}
		})
	}
}
