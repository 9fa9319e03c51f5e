package wire

import (
	"encoding/json"

	"github.com/leasedeck/leasedeck/schemas"
)

// Doc is a JSON document carried inside a message: a declared manifest, a
// tool input. It decodes with schemas.ParseJSON, so numbers keep their
// literal text (hashes and signatures see the bytes the caller sent) and
// duplicate member names are refused. Set reports that the member was
// present, even as null.
type Doc struct {
	V   any
	Set bool
}

// DocOf wraps a value to send.
func DocOf(v any) Doc { return Doc{V: v, Set: v != nil} }

// IsZero makes an unset Doc disappear under `omitzero`.
func (d Doc) IsZero() bool { return !d.Set && d.V == nil }

// MarshalJSON writes the document.
func (d Doc) MarshalJSON() ([]byte, error) {
	if raw, ok := d.V.(json.RawMessage); ok {
		return raw, nil
	}
	return json.Marshal(d.V)
}

// UnmarshalJSON reads the document with schemas.ParseJSON.
func (d *Doc) UnmarshalJSON(b []byte) error {
	v, err := schemas.ParseJSON(b)
	if err != nil {
		return err
	}
	d.V, d.Set = v, true
	return nil
}

// Object is the document as a JSON object; absent or null is an empty
// object. ok is false for any other JSON value.
func (d Doc) Object() (obj map[string]any, ok bool) {
	if d.V == nil {
		return map[string]any{}, true
	}
	obj, ok = d.V.(map[string]any)
	return obj, ok
}
