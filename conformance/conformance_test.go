package conformance

import (
	"encoding/json"
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
		"jcs":                      10, // simpleString's expected output is derived from RFC 8785 (_inferred/)
		"narrowing":                28,
		"signature":                4, // 3 vectors + the test key refused outside conformance
		"fixtures/invalid-by-rule": 4,
		"fixtures/round-trip":      32, // every valid fixture whose schema is vendored
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

// TestJSONReport checks the machine-readable report: the reference runner's
// members are there with the right counts, and it agrees with the text one.
func TestJSONReport(t *testing.T) {
	rep := Run(contract.FS())
	var sb strings.Builder
	if err := rep.WriteJSON(&sb, "leasedeck test"); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(sb.String()), &got); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	for _, k := range []string{"validCount", "invalidCount", "canonicalChecked", "failures", "sections", "total", "unchecked", "cases"} {
		if _, ok := got[k]; !ok {
			t.Errorf("report has no %q", k)
		}
	}
	j := rep.JSON("x")
	if j.ValidCount != rep.count("fixtures/valid") || j.InvalidCount != rep.count("fixtures/invalid") {
		t.Errorf("counts: %d valid, %d invalid", j.ValidCount, j.InvalidCount)
	}
	if len(j.Failures) != rep.Count(Fail, "") || len(j.Unchecked) != rep.Count(Unchecked, "") {
		t.Errorf("failures %d / unchecked %d disagree with the report", len(j.Failures), len(j.Unchecked))
	}
	if j.Conformant != (rep.OK() && rep.Count(Unchecked, "") == 0) {
		t.Errorf("conformant = %v", j.Conformant)
	}
	// A failing case must show up as a failure, so the report can fail.
	bad := Report{Results: []Result{{Section: "canonical", Name: "x", Status: Fail, Detail: "boom"}}}
	if jb := bad.JSON("x"); jb.Conformant || len(jb.Failures) != 1 || jb.Failures[0] != "canonical/x: boom" {
		t.Errorf("a failing run reported as %+v", jb)
	}
}
