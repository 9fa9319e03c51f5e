package conformance

import (
	"strings"
	"testing"

	"github.com/leasedeck/leasedeck/contract"
)

// TestCorpus runs the whole vendored corpus; every checked case must pass
// and the counts must match the corpus the README publishes.
func TestCorpus(t *testing.T) {
	rep := Run(contract.FS())
	for _, r := range rep.Results {
		if r.Status == Fail {
			t.Errorf("%s %s: %s", r.Section, r.Name, r.Detail)
		}
	}
	want := map[string]int{
		"canonical":                11, // 9 vectors + 2 must-fail
		"jcs":                      9,  // simpleString has no expected output upstream
		"narrowing":                28,
		"signature":                4, // 3 vectors + the test key refused outside conformance
		"fixtures/invalid-by-rule": 4,
	}
	for sec, n := range want {
		if got := rep.Count(Pass, sec); got != n {
			t.Errorf("section %s: %d passed, want %d", sec, got, n)
		}
	}
	var sb strings.Builder
	rep.Write(&sb, false)
	t.Log("\n" + sb.String())
}
