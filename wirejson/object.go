package wirejson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/leasedeck/leasedeck/schemas"
)

// Object is a JSON object read for a fixed set of member names. It reads
// members by their exact name, as the registry writes them; a member whose
// name differs from a wanted one only in case is refused, since
// encoding/json would have taken it for that member (so that what this
// reads is never something encoding/json would read differently).
type Object struct {
	m map[string]any
}

// ParseObject parses line (one JSON document, which must be an object)
// for the member names wanted.
func ParseObject(line []byte, wanted ...string) (Object, error) {
	v, err := schemas.ParseJSON(line)
	if err != nil {
		return Object{}, err
	}
	return objectOf(v, "", wanted)
}

func objectOf(v any, name string, wanted []string) (Object, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return Object{}, typeError(name, "an object", v)
	}
	for k := range m {
		for _, w := range wanted {
			if k != w && bytes.EqualFold([]byte(k), []byte(w)) {
				return Object{}, fmt.Errorf("member %q is not %q (names are matched exactly)", k, w)
			}
		}
	}
	return Object{m: m}, nil
}

// Has reports whether the member is present and not null.
func (o Object) Has(name string) bool { return o.m[name] != nil }

// Object reads a member that is an object (absent or null: ok false).
func (o Object) Object(name string, wanted ...string) (obj Object, ok bool, err error) {
	v := o.m[name]
	if v == nil {
		return Object{}, false, nil
	}
	obj, err = objectOf(v, name, wanted)
	return obj, err == nil, err
}

// String reads a string member (absent or null: "").
func (o Object) String(name string) (string, error) {
	switch v := o.m[name].(type) {
	case nil:
		return "", nil
	case string:
		return v, validText(name, v)
	default:
		return "", typeError(name, "a string", v)
	}
}

// Bool reads a boolean member (absent or null: false).
func (o Object) Bool(name string) (bool, error) {
	switch v := o.m[name].(type) {
	case nil:
		return false, nil
	case bool:
		return v, nil
	default:
		return false, typeError(name, "a boolean", v)
	}
}

// Int64 reads an integer member (absent or null: 0); a fraction, an
// exponent or a value out of range is an error, as encoding/json has it.
func (o Object) Int64(name string) (int64, error) {
	lit, err := o.number(name)
	if err != nil || lit == "" {
		return 0, err
	}
	n, err := strconv.ParseInt(lit, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("member %q: %s is not an integer that fits 64 bits", name, lit)
	}
	return n, nil
}

// Uint64 reads a non-negative integer member (absent or null: 0).
func (o Object) Uint64(name string) (uint64, error) {
	lit, err := o.number(name)
	if err != nil || lit == "" {
		return 0, err
	}
	n, err := strconv.ParseUint(lit, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("member %q: %s is not an unsigned integer that fits 64 bits", name, lit)
	}
	return n, nil
}

func (o Object) number(name string) (string, error) {
	switch v := o.m[name].(type) {
	case nil:
		return "", nil
	case json.Number:
		return string(v), nil
	default:
		return "", typeError(name, "a number", v)
	}
}

// Strings reads an array of strings (absent or null: nil).
func (o Object) Strings(name string) ([]string, error) {
	switch v := o.m[name].(type) {
	case nil:
		return nil, nil
	case []any:
		out := make([]string, len(v))
		for i, e := range v {
			s, ok := e.(string)
			if !ok {
				return nil, typeError(name+"["+strconv.Itoa(i)+"]", "a string", e)
			}
			if err := validText(name, s); err != nil {
				return nil, err
			}
			out[i] = s
		}
		return out, nil
	default:
		return nil, typeError(name, "an array", v)
	}
}

// validText refuses a string that is not UTF-8: the parser keeps an
// unpaired surrogate escape as its WTF-8 bytes, which encoding/json would
// have read as U+FFFD.
func validText(name, s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("member %q holds an unpaired UTF-16 surrogate", name)
	}
	return nil
}

func typeError(name, want string, v any) error {
	got := "null"
	switch v.(type) {
	case string:
		got = "a string"
	case bool:
		got = "a boolean"
	case json.Number:
		got = "a number"
	case []any:
		got = "an array"
	case map[string]any:
		got = "an object"
	}
	if name == "" {
		return fmt.Errorf("expected %s, got %s", want, got)
	}
	return fmt.Errorf("member %q must be %s, not %s", name, want, got)
}
