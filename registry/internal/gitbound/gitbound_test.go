package gitbound

import (
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Bounds
		ok   bool
	}{
		{"6,100000", Bounds{6, 100000, Default.Time}, true},
		{"6,100000,500ms", Bounds{6, 100000, 500 * time.Millisecond}, true},
		{"6", Bounds{}, false}, {"0,5", Bounds{}, false}, {"6,x", Bounds{}, false},
		{"6,5,soon", Bounds{}, false}, {"1,2,3s,4", Bounds{}, false}, {"", Bounds{}, false},
	} {
		got, err := parse(tc.in)
		if (err == nil) != tc.ok || tc.ok && got != tc.want {
			t.Errorf("parse(%q) = %+v, %v; want %+v ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestSetRestores(t *testing.T) {
	before := Current()
	restore := Set(Bounds{Commits: 1, Entries: 2, Time: time.Second})
	if got := Current(); got.Commits != 1 || got.Entries != 2 {
		t.Fatalf("Current after Set: %+v", got)
	}
	restore()
	if got := Current(); got != before {
		t.Fatalf("Current after restore: %+v, want %+v", got, before)
	}
}
