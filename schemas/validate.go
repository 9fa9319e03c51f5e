package schemas

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/leasedeck/leasedeck/contract"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var printer = message.NewPrinter(language.English)

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

const lifecycleURL = "https://leasedeck.invalid/lifecycle.schema.json"

// Schemas are compiled one shape at a time, on first use: a hook process
// that validates one lifecycle request must not pay for compiling the
// whole contract (tens of milliseconds).
var (
	compileMu  sync.Mutex
	compiled   = map[Shape]*jsonschema.Schema{}
	schemaDocs sync.Map // url (without fragment) → parsed schema document, for messages
)

func contractFile(s Shape) string { return string(s) + ".schema.json" }

func compiledShape(s Shape) (*jsonschema.Schema, error) {
	compileMu.Lock()
	defer compileMu.Unlock()
	if sch, ok := compiled[s]; ok {
		return sch, nil
	}
	known := false
	for _, k := range Shapes() {
		known = known || k == s
	}
	if !known {
		return nil, fmt.Errorf("unknown shape %q", s)
	}
	var raw []byte
	var url string
	switch s {
	case LifecycleRequest, LifecycleResponse:
		raw, url = lifecycleSchema, lifecycleURL
	default:
		b, err := contract.Schema(contractFile(s))
		if err != nil {
			return nil, err
		}
		raw, url = b, "https://leasedeck.invalid/contract/"+contractFile(s)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", s, err)
	}
	schemaDocs.Store(url, doc)
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("schema %s: %w", s, err)
	}
	if s == LifecycleResponse {
		url += "#/definitions/bridgeResponse"
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", s, err)
	}
	compiled[s] = sch
	return sch, nil
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
func Validate(shape Shape, v any) ([]Error, error) {
	sch, err := compiledShape(shape)
	if err != nil {
		return nil, err
	}
	err = sch.Validate(v)
	if err == nil {
		return nil, nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return []Error{{Path: "", Keyword: "invalid", Message: err.Error()}}, nil
	}
	return flatten(v, ve), nil
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

// flatten keeps the leaves of the validator's cause tree: the keywords that
// actually failed, rather than the allOf/$ref/if-then wrappers above them.
func flatten(instance any, root *jsonschema.ValidationError) []Error {
	var out []Error
	seen := map[string]bool{}
	add := func(item Error) {
		key := item.Path + "\x00" + item.Keyword + "\x00" + item.Message
		if !seen[key] {
			seen[key] = true
			out = append(out, item)
		}
	}
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		switch k := e.ErrorKind.(type) {
		case *kind.PropertyNames:
			// The validator checks a member name as a separate instance,
			// so its causes carry the wrong location: report the object.
			add(Error{Path: propertyNamesLocation(instance, e, k.Property), Keyword: "propertyNames",
				Message: fmt.Sprintf("member name %q is not allowed: %s", k.Property, leafMessages(e))})
			return
		case *kind.AnyOf, *kind.OneOf:
			// Report the group and, below, each alternative's failure:
			// which one the author meant is not ours to guess.
			kw := e.ErrorKind.KeywordPath()
			add(Error{Path: pointer(e.InstanceLocation), Keyword: kw[len(kw)-1],
				Message: "matches none of the allowed forms: " + leafMessages(e)})
		case *kind.Not:
			msg := "must not match " + describeSchema(e.SchemaURL)
			if s, ok := resolveTokens(instance, e.InstanceLocation).(string); ok {
				msg = fmt.Sprintf("%q %s", s, msg)
			}
			add(Error{Path: pointer(e.InstanceLocation), Keyword: "not", Message: msg})
			return
		}
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		kw := e.ErrorKind.KeywordPath()
		keyword := "schema"
		if len(kw) > 0 {
			keyword = kw[len(kw)-1]
		}
		add(Error{
			Path:    pointer(e.InstanceLocation),
			Keyword: keyword,
			Message: e.ErrorKind.LocalizedString(printer),
		})
	}
	walk(root)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Keyword < out[j].Keyword
	})
	return out
}

func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		t = strings.ReplaceAll(t, "~", "~0")
		b.WriteString(strings.ReplaceAll(t, "/", "~1"))
	}
	return b.String()
}

// MarshalErrors renders errors as a JSON array, for --json outputs.
func MarshalErrors(errs []Error) []byte {
	b, _ := json.Marshal(errs)
	return b
}

// leafMessages joins the messages of the failing leaves under e, for a
// one-line summary of why a group keyword failed.
func leafMessages(e *jsonschema.ValidationError) string {
	var msgs []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if _, isNot := e.ErrorKind.(*kind.Not); isNot {
			msgs = append(msgs, "must not match "+describeSchema(e.SchemaURL))
			return
		}
		if len(e.Causes) == 0 {
			msgs = append(msgs, e.ErrorKind.LocalizedString(printer))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(e)
	return strings.Join(msgs, "; ")
}

// describeSchema renders the subschema at url compactly, so that a `not`
// failure says which forbidden form matched (e.g. a `..` segment pattern).
func describeSchema(url string) string {
	i := strings.Index(url, "#")
	if i < 0 {
		return "the forbidden form"
	}
	doc, ok := schemaDocs.Load(url[:i])
	if !ok {
		return "the forbidden form"
	}
	sub := resolvePointer(doc, url[i+1:])
	if m, ok := sub.(map[string]any); ok && m["not"] != nil {
		sub = m["not"]
	}
	if m, ok := sub.(map[string]any); ok {
		if p, ok := m["pattern"].(string); ok && len(m) <= 2 {
			return "the forbidden pattern " + p
		}
		if d, ok := m["description"].(string); ok && d != "" {
			return d
		}
		delete(m, "$comment")
	}
	b, err := json.Marshal(sub)
	if err != nil || sub == nil {
		return "the forbidden form"
	}
	return string(b)
}

func resolvePointer(doc any, ptr string) any {
	if ptr == "" {
		return doc
	}
	cur := doc
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			cur = c[tok]
		case []any:
			n := 0
			if _, err := fmt.Sscanf(tok, "%d", &n); err != nil || n < 0 || n >= len(c) {
				return nil
			}
			cur = c[n]
		default:
			return nil
		}
	}
	return cur
}

// propertyNamesLocation finds the object holding the refused member name.
// The validator (v6.0.3) records a propertyNames failure with a location
// slice it later reuses, so the recorded location can name a sibling; we
// trust it only when that object really has the member, and otherwise
// search the instance, preferring an object whose member name matches the
// schema property the propertyNames keyword sits under.
func propertyNamesLocation(instance any, e *jsonschema.ValidationError, name string) string {
	if obj, ok := resolveTokens(instance, e.InstanceLocation).(map[string]any); ok {
		if _, has := obj[name]; has {
			return pointer(e.InstanceLocation)
		}
	}
	var want string
	if i := strings.LastIndex(e.SchemaURL, "/properties/"); i >= 0 {
		want = strings.TrimSuffix(e.SchemaURL[i+len("/properties/"):], "/propertyNames")
	}
	var found []string
	var walk func(v any, path []string)
	walk = func(v any, path []string) {
		switch x := v.(type) {
		case map[string]any:
			if _, has := x[name]; has && (want == "" || (len(path) > 0 && path[len(path)-1] == want)) {
				found = append(found, pointer(path))
			}
			for k, c := range x {
				walk(c, append(path[:len(path):len(path)], k))
			}
		case []any:
			for i, c := range x {
				walk(c, append(path[:len(path):len(path)], fmt.Sprint(i)))
			}
		}
	}
	walk(instance, nil)
	if len(found) == 0 {
		return pointer(e.InstanceLocation)
	}
	sort.Strings(found)
	return found[0]
}

func resolveTokens(v any, tokens []string) any {
	cur := v
	for _, t := range tokens {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[t]
		case []any:
			n := -1
			fmt.Sscanf(t, "%d", &n)
			if n < 0 || n >= len(c) {
				return nil
			}
			cur = c[n]
		default:
			return nil
		}
	}
	return cur
}
