package record

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/leasedeck/leasedeck/contract"
	"github.com/leasedeck/leasedeck/schemas"
)

// Field names a free-text member whose length the contract caps.
type Field struct {
	Schema  string // contract schema file
	Pointer string // JSON pointer to the member's subschema
}

// The capped free-text members leasedeck writes.
var (
	LeaseReason    = Field{"lease-record.schema.json", "/properties/reason"}
	LeasePlatform  = Field{"lease-record.schema.json", "/properties/platform"}
	AuditSummary   = Field{"audit-event.schema.json", "/properties/summary"}
	AuditReasoning = Field{"audit-event.schema.json", "/properties/reasoning"}
	// DetailString is every string value in an audit event's details.
	DetailString = Field{"audit-event.schema.json", "/properties/details/additionalProperties"}
)

// CappedFields lists every capped free-text member, for tests that walk
// them all.
func CappedFields() []Field {
	return []Field{LeaseReason, LeasePlatform, AuditSummary, AuditReasoning, DetailString}
}

// NoCap is what Cap returns for a member the schema does not cap.
const NoCap = -1

var capsOnce = sync.OnceValues(loadCaps)

// Cap is the member's maxLength in code points, read from the embedded
// contract schema (never copied by hand), or NoCap.
func Cap(f Field) int {
	caps, _ := capsOnce()
	if n, ok := caps[f]; ok {
		return n
	}
	return NoCap
}

func loadCaps() (map[Field]int, error) {
	caps := map[Field]int{}
	docs := map[string]any{}
	var problems []string
	for _, f := range CappedFields() {
		doc, ok := docs[f.Schema]
		if !ok {
			b, err := contract.Schema(f.Schema)
			if err == nil {
				doc, err = schemas.ParseJSON(b)
			}
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s: %v", f.Schema, err))
				continue
			}
			docs[f.Schema] = doc
		}
		n, err := positiveIntAt(doc, f.Pointer, "maxLength")
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s#%s: %v", f.Schema, f.Pointer, err))
			continue
		}
		caps[f] = n
	}
	if len(problems) > 0 {
		return caps, fmt.Errorf("record caps: %s", strings.Join(problems, "; "))
	}
	return caps, nil
}

// MaxTokens is the largest token count a usage figure may hold: the
// lease-record schema's maximum for usage.tokens (the largest integer a
// JSON number carries exactly).
func MaxTokens() float64 {
	v, _ := maxTokensOnce()
	return v
}

var maxTokensOnce = sync.OnceValues(func() (float64, error) {
	b, err := contract.Schema("lease-record.schema.json")
	if err != nil {
		return 0, err
	}
	doc, err := schemas.ParseJSON(b)
	if err != nil {
		return 0, err
	}
	n, err := positiveIntAt(doc, "/definitions/usage/properties/tokens", "maximum")
	return float64(n), err
})

func positiveIntAt(doc any, pointer, keyword string) (int, error) {
	node := doc
	for _, tok := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		obj, ok := node.(map[string]any)
		if !ok {
			return 0, fmt.Errorf("no object at %q", tok)
		}
		if node, ok = obj[tok]; !ok {
			return 0, fmt.Errorf("no member %q", tok)
		}
	}
	obj, ok := node.(map[string]any)
	if !ok {
		return 0, fmt.Errorf("not a schema object")
	}
	v, ok := obj[keyword]
	if !ok {
		return 0, fmt.Errorf("no %s", keyword)
	}
	n, err := strconv.Atoi(fmt.Sprint(v))
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%s %v is not a positive integer", keyword, v)
	}
	return n, nil
}
