package conformance

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// JSONReport is the machine-readable form of a run (`leasedeck conformance
// --json`). Its first four members have the shape the contract's own
// reference runner (conformance/runner.mjs in the published package)
// returns — validCount, invalidCount, canonicalChecked, failures — so a
// tool that reads that runner's output reads this one; the rest says what
// the reference runner does not: every section's counts, what was left
// unchecked and why, and each case.
type JSONReport struct {
	ValidCount       int            `json:"validCount"`
	InvalidCount     int            `json:"invalidCount"`
	CanonicalChecked bool           `json:"canonicalChecked"`
	Failures         []string       `json:"failures"`
	Conformant       bool           `json:"conformant"`
	Implementation   string         `json:"implementation"`
	Sections         []SectionCount `json:"sections"`
	Total            SectionCount   `json:"total"`
	Unchecked        []string       `json:"unchecked"`
	Cases            []JSONCase     `json:"cases"`
}

// SectionCount is one section's tally.
type SectionCount struct {
	Section   string `json:"section"`
	Passed    int    `json:"passed"`
	Failed    int    `json:"failed"`
	Unchecked int    `json:"unchecked"`
}

// JSONCase is one case of the corpus.
type JSONCase struct {
	Section string `json:"section"`
	Name    string `json:"name"`
	Status  string `json:"status"`
	Detail  string `json:"detail,omitempty"`
}

// JSON builds the machine-readable report; implementation names the
// implementation under test (e.g. "leasedeck v1.2.3").
func (r Report) JSON(implementation string) JSONReport {
	out := JSONReport{
		Failures:       []string{},
		Unchecked:      []string{},
		Cases:          make([]JSONCase, 0, len(r.Results)),
		Conformant:     r.OK() && r.Count(Unchecked, "") == 0,
		Implementation: implementation,
	}
	for _, x := range r.Results {
		id := x.Section + "/" + x.Name
		if strings.HasPrefix(x.Section, "fixtures/") {
			id = strings.TrimPrefix(x.Section, "fixtures/") + "/" + x.Name
		}
		switch x.Status {
		case Fail:
			out.Failures = append(out.Failures, id+": "+x.Detail)
		case Unchecked:
			out.Unchecked = append(out.Unchecked, id+": "+x.Detail)
		}
		st := string(x.Status)
		if x.Status == Fail {
			st = "fail"
		}
		out.Cases = append(out.Cases, JSONCase{Section: x.Section, Name: x.Name, Status: st, Detail: x.Detail})
	}
	out.ValidCount = r.count("fixtures/valid")
	out.InvalidCount = r.count("fixtures/invalid")
	out.CanonicalChecked = r.Count(Pass, "canonical") > 0 && r.Count(Fail, "canonical") == 0
	for _, s := range Sections {
		c := SectionCount{Section: s, Passed: r.Count(Pass, s), Failed: r.Count(Fail, s), Unchecked: r.Count(Unchecked, s)}
		out.Sections = append(out.Sections, c)
	}
	out.Total = SectionCount{Section: "total", Passed: r.Count(Pass, ""), Failed: r.Count(Fail, ""), Unchecked: r.Count(Unchecked, "")}
	return out
}

// count is how many cases a section holds, whatever their outcome.
func (r Report) count(section string) int {
	n := 0
	for _, x := range r.Results {
		if x.Section == section {
			n++
		}
	}
	return n
}

// WriteJSON prints the machine-readable report, indented, with a newline.
func (r Report) WriteJSON(w io.Writer, implementation string) error {
	b, err := json.MarshalIndent(r.JSON(implementation), "", "  ")
	if err != nil {
		return fmt.Errorf("conformance report: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
