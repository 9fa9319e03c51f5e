package bridge

import (
	"bytes"
	"encoding/json"
	"testing"
	"testing/quick"
)

// An output is what an Encoder without HTML escaping writes for the same
// members (their names sorted here, so a map has the same order).
func TestJSONOutIsWhatAnEncoderWrites(t *testing.T) {
	if err := quick.Check(func(reason, ctx string, flag bool, notes []string) bool {
		o := obj{{"a", reason}, {"b", obj{{"c", ctx}, {"d", flag}}}, {"e", notes}}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		enc.Encode(map[string]any{"a": reason, "b": map[string]any{"c": ctx, "d": flag}, "e": notes})
		return bytes.Equal(jsonOut(o), want.Bytes())
	}, &quick.Config{MaxCount: 3000}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"<a & b>", "bad \xff", "\u2028", "\x00\x1f"} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		enc.Encode(map[string]any{"reason": s})
		if got := jsonOut(obj{{"reason", s}}); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%q: got %s, want %s", s, got, want.Bytes())
		}
	}
}
