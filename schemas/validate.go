// Package schemas holds the document shapes leasedeck reads and writes: the
// contract's JSON Schemas and the bridge's lifecycle schema, validated by
// leasedeck's own draft-07 engine (draft7*.go, no start-up cost), strict JSON
// parsing, and the canonical bytes (RFC 8785) every hash and signature uses.
package schemas

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"

	"github.com/leasedeck/leasedeck/contract"
)

// Shape names a document shape leasedeck validates: the contract's schemas
// and the bridge's lifecycle request and response.
type Shape string

// The shapes leasedeck knows. The first four are the ones it writes and
// reads in normal operation; the rest are validated by the conformance run.
const (
	Manifest          Shape = "agent-lease-manifest"
	Lease             Shape = "agent-lease"
	LeaseRecord       Shape = "lease-record"
	AuditEvent        Shape = "audit-event"
	LifecycleRequest  Shape = "lifecycle-request"
	LifecycleResponse Shape = "lifecycle-response"
	CDIAssessment     Shape = "cdi-assessment"
	CDISignal         Shape = "cdi-signal"
	ConfigCore        Shape = "config-core"
	Provenance        Shape = "provenance"
)

// Shapes lists every shape Validate accepts, in a stable order.
func Shapes() []Shape {
	return []Shape{Manifest, Lease, LeaseRecord, AuditEvent, LifecycleRequest, LifecycleResponse,
		CDIAssessment, CDISignal, ConfigCore, Provenance}
}

// Error is one schema violation: where in the instance (a JSON pointer),
// which schema keyword refused it, and a message for a person.
type Error struct {
	Path    string `json:"path"`
	Keyword string `json:"keyword"`
	Message string `json:"message"`
}

func (e Error) String() string {
	p := e.Path
	if p == "" {
		p = "/"
	}
	return fmt.Sprintf("%s %s %s", p, e.Keyword, e.Message)
}

//go:embed lifecycle.schema.json
var lifecycleSchema []byte

// Schemas are compiled one shape at a time, on first use: a hook process
// that validates one lifecycle request must not pay for compiling the
// whole contract. A compiled shape is kept for the life of the process.
var (
	compileMu sync.Mutex                // serialises compiling; guards docs and patternCache
	compiled  sync.Map                  // Shape → *shapeEntry, read without the lock
	docs      = map[string]*schemaDoc{} // file name → compiled document
)

type shapeEntry struct {
	root *schemaNode
	err  error
}

func contractFile(s Shape) string { return string(s) + ".schema.json" }

func compiledShape(s Shape) (*schemaNode, error) {
	if e, ok := compiled.Load(s); ok {
		e := e.(*shapeEntry)
		return e.root, e.err
	}
	known := false
	for _, k := range Shapes() {
		known = known || k == s
	}
	if !known {
		return nil, fmt.Errorf("unknown shape %q", s)
	}
	compileMu.Lock()
	defer compileMu.Unlock()
	if e, ok := compiled.Load(s); ok {
		e := e.(*shapeEntry)
		return e.root, e.err
	}
	root, err := compileShape(s)
	compiled.Store(s, &shapeEntry{root, err})
	return root, err
}

func compileShape(s Shape) (*schemaNode, error) {
	name, entry := contractFile(s), ""
	switch s {
	case LifecycleRequest:
		name = "lifecycle.schema.json"
	case LifecycleResponse:
		name, entry = "lifecycle.schema.json", "/definitions/bridgeResponse"
	}
	doc, ok := docs[name]
	if !ok {
		raw := lifecycleSchema
		if name != "lifecycle.schema.json" {
			var err error
			if raw, err = contract.Schema(name); err != nil {
				return nil, err
			}
		}
		var err error
		if doc, err = compileDocument(name, raw); err != nil {
			return nil, err
		}
		docs[name] = doc
	}
	root, ok := doc.nodes[entry]
	if !ok {
		return nil, fmt.Errorf("schema %s has no schema at #%s", name, entry)
	}
	return root, nil
}

// ParseShape maps a user's spelling to a Shape ("manifest" and "lease" are
// accepted as short names).
func ParseShape(name string) (Shape, error) {
	switch name {
	case "manifest":
		return Manifest, nil
	case "lease":
		return Lease, nil
	case "record":
		return LeaseRecord, nil
	case "audit":
		return AuditEvent, nil
	}
	for _, s := range Shapes() {
		if string(s) == name {
			return s, nil
		}
	}
	names := make([]string, 0, len(Shapes()))
	for _, s := range Shapes() {
		names = append(names, string(s))
	}
	return "", fmt.Errorf("unknown shape %q (known: %s)", name, strings.Join(names, ", "))
}

// Validate checks v (a tree from ParseJSON) against shape. It returns the
// violations, most specific first and sorted by path, or nil when v is
// valid. The error result is only for an unknown shape or a schema set that
// failed to load, never for an invalid instance.
//
// Besides ParseJSON's types, v may hold what Go callers build by hand:
// float64, float32, the integer types and []string.
func Validate(shape Shape, v any) ([]Error, error) {
	root, err := compiledShape(shape)
	if err != nil {
		return nil, err
	}
	return run(root, v), nil
}

// ValidateJSON parses data and validates it. A syntax error is returned as
// the error; schema violations as the slice.
func ValidateJSON(shape Shape, data []byte) (any, []Error, error) {
	v, err := ParseJSON(data)
	if err != nil {
		return nil, nil, err
	}
	errs, err := Validate(shape, v)
	return v, errs, err
}
