package bridge

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/leasedeck/leasedeck/redact"
	"github.com/leasedeck/leasedeck/schemas"
)

// ---- reading native payloads ----

// InputError is a native payload that is not what the client documents.
type InputError struct {
	Client string
	// Pointer is the JSON pointer of the offending member ("" = the document).
	Pointer string
	Msg     string
}

func (e *InputError) Error() string {
	p := e.Pointer
	if p == "" {
		p = "/"
	}
	return fmt.Sprintf("%s hook input: %s: %s", e.Client, p, e.Msg)
}

// ErrUnknownEvent is wrapped by the error for an event name an adapter does
// not know (a newer client, or a hook installed on the wrong event).
var ErrUnknownEvent = errors.New("unknown hook event")

// payload is a decoded native hook input with typed accessors that record
// the first type error.
type payload struct {
	client string
	m      map[string]any
}

func decodePayload(client string, stdin []byte) (*payload, error) {
	if len(strings.TrimSpace(string(stdin))) == 0 {
		return nil, &InputError{Client: client, Msg: "empty input (expected one JSON object on stdin)"}
	}
	v, err := schemas.ParseJSON(stdin)
	if err != nil {
		return nil, &InputError{Client: client, Msg: "not JSON: " + err.Error()}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, &InputError{Client: client, Msg: "expected a JSON object, got " + typeName(v)}
	}
	return &payload{client: client, m: m}, nil
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// str returns the first of keys that holds a string; a key holding another
// type is an error, null counts as absent.
func (p *payload) str(keys ...string) (string, error) {
	for _, k := range keys {
		v, ok := p.m[k]
		if !ok || v == nil {
			continue
		}
		s, ok := v.(string)
		if !ok {
			return "", &InputError{Client: p.client, Pointer: "/" + redact.EscapePointer(k), Msg: "expected a string, got " + typeName(v)}
		}
		return s, nil
	}
	return "", nil
}

func (p *payload) need(keys ...string) (string, error) {
	s, err := p.str(keys...)
	if err != nil {
		return "", err
	}
	if s == "" {
		return "", &InputError{Client: p.client, Pointer: "/" + redact.EscapePointer(keys[0]), Msg: "missing (required)"}
	}
	return s, nil
}

func (p *payload) boolean(k string) bool {
	b, _ := p.m[k].(bool)
	return b
}

func (p *payload) int64(k string) *int64 {
	n, ok := p.m[k].(json.Number)
	if !ok {
		return nil
	}
	if i, err := n.Int64(); err == nil && i >= 0 {
		return &i
	}
	if f, err := n.Float64(); err == nil && f >= 0 && f < 1<<53 {
		i := int64(f)
		return &i
	}
	return nil
}

func (p *payload) object(k string) (map[string]any, error) {
	v, ok := p.m[k]
	if !ok || v == nil {
		return nil, nil
	}
	o, ok := v.(map[string]any)
	if !ok {
		return nil, &InputError{Client: p.client, Pointer: "/" + redact.EscapePointer(k), Msg: "expected an object, got " + typeName(v)}
	}
	return o, nil
}

// toolInput reads tool_input, which must be an object when present.
func (p *payload) toolInput(key string) (map[string]any, error) {
	o, err := p.object(key)
	if err != nil {
		return nil, err
	}
	if o == nil {
		o = map[string]any{}
	}
	return o, nil
}

// hashValue is the SHA-256 of a JSON value: of the string's bytes for a
// string, else of its canonical bytes (falling back to encoding/json for
// values RFC 8785 cannot express, such as integers beyond 2^53).
func hashValue(v any) (string, int) {
	if s, ok := v.(string); ok {
		return schemas.SHA256Hex([]byte(s)), len(s)
	}
	b, err := schemas.Canonical(v)
	if err != nil {
		b, _ = json.Marshal(v)
	}
	return schemas.SHA256Hex(b), len(b)
}

// digestResult reduces a tool result to a ResultDigest. summary describes
// the shape, never the text: a Read's output is file contents.
func digestResult(tool string, v any, status string) *ResultDigest {
	sum, n := hashValue(v)
	d := &ResultDigest{SHA256: sum, Bytes: n}
	var parts []string
	if status != "" {
		parts = append(parts, status)
	}
	switch x := v.(type) {
	case string:
		parts = append(parts, redact.HumanBytes(len(x)))
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			switch y := x[k].(type) {
			case string:
				if k == "error" || k == "exitCode" || k == "exit_code" {
					parts = append(parts, k+" "+redact.OneLine(firstLine(y), 80))
				} else {
					parts = append(parts, k+" "+redact.HumanBytes(len(y)))
				}
			case bool:
				if y {
					parts = append(parts, k)
				}
			case json.Number:
				parts = append(parts, k+" "+y.String())
			}
		}
	case nil:
		parts = append(parts, "no output")
	default:
		parts = append(parts, redact.HumanBytes(n))
	}
	d.Summary = redact.OneLine(tool+": "+strings.Join(parts, ", "), 200)
	return d
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// copyMap is a shallow copy, so that translation never aliases the
// client's payload tree.
func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
