package schemas

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

func TestCanonicalTable(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"sorted members", `{"b":1,"a":2,"A":3,"_":4}`, `{"A":3,"_":4,"a":2,"b":1}`},
		{"nested", `{"x":{"z":[3,{"d":1,"c":2}],"y":null}}`, `{"x":{"y":null,"z":[3,{"c":2,"d":1}]}}`},
		{"numbers", `[1.0,-0,1e21,1e-7,0.5,100,1E+2]`, `[1,0,1e+21,1e-7,0.5,100,100]`},
		{"escapes", `"\u0007\u007f\/\"é"`, "\"\\u0007\u007f/\\\"é\""},
		{"lone surrogate", `"\udc00x"`, `"\udc00x"`},
		{"pair", `"\ud83d\ude00"`, "\"\U0001F600\""},
		{"whitespace", " { \"a\" :\t[ ] }\n", `{"a":[]}`},
		{"max safe", `9007199254740991`, `9007199254740991`},
	}
	for _, c := range cases {
		got, err := CanonicalJSON([]byte(c.in))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if string(got) != c.want {
			t.Errorf("%s: got %s, want %s", c.name, got, c.want)
		}
	}
}

func TestCanonicalRefuses(t *testing.T) {
	for _, v := range []any{math.NaN(), math.Inf(1), math.Inf(-1), map[string]any{"n": math.NaN()}} {
		if _, err := Canonical(v); err == nil {
			t.Errorf("Canonical(%v) succeeded", v)
		}
	}
	// Integers beyond 2^53−1 are refused rather than rounded through float64.
	for _, in := range []string{`9007199254740993`, `{"tokens":18446744073709551617}`, `-9007199254740995`} {
		if _, err := CanonicalJSON([]byte(in)); err == nil {
			t.Errorf("CanonicalJSON(%s) succeeded", in)
		}
	}
	if _, err := CanonicalJSON([]byte(`1e400`)); err == nil {
		t.Error("1e400 (outside double range) canonicalised")
	}
}

func TestAbsentMembersDropped(t *testing.T) {
	got, err := Canonical(map[string]any{"a": Absent, "b": nil})
	if err != nil || string(got) != `{"b":null}` {
		t.Fatalf("got %s, %v", got, err)
	}
}

func TestParseRejects(t *testing.T) {
	for _, in := range []string{``, `   `, `{`, `{"a":1,"a":2}`, `[1,]`, `01`, `{"a":1} x`, `"\x"`, "\"a\x01\"", `nul`, `NaN`, `Infinity`, `{'a':1}`, "\"\xff\""} {
		if _, err := ParseJSON([]byte(in)); err == nil {
			t.Errorf("ParseJSON(%q) succeeded", in)
		}
	}
	deep := strings.Repeat("[", MaxDepth+2) + strings.Repeat("]", MaxDepth+2)
	if _, err := ParseJSON([]byte(deep)); err == nil {
		t.Error("excessive nesting accepted")
	}
}

// Unknown members, top level and nested, survive decode → encode.
func TestRoundTripKeepsUnknownFields(t *testing.T) {
	in := `{"schema_version":"1.9","a_field_from_a_newer_writer":{"x":[1,2]},"agent":{"name":"w","kind":"native","runtime_agent":"cdf-native","a_field_from_a_newer_writer":true}}`
	v, err := ParseJSON([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	out, err := Canonical(v)
	if err != nil {
		t.Fatal(err)
	}
	if c := bytes.Count(out, []byte("a_field_from_a_newer_writer")); c != 2 {
		t.Fatalf("unknown field count %d in %s", c, out)
	}
	again, _ := CanonicalJSON(out)
	if !bytes.Equal(again, out) {
		t.Fatalf("canonical form is not a fixed point: %s vs %s", again, out)
	}
}

func TestValidateErrorsHavePointers(t *testing.T) {
	errs, err := Validate(Manifest, map[string]any{"schema_version": "1.2"})
	if err != nil {
		t.Fatal(err)
	}
	if len(errs) == 0 || errs[0].Path != "" || errs[0].Keyword != "required" {
		t.Fatalf("got %v", errs)
	}
	if _, err := Validate("nope", nil); err == nil {
		t.Fatal("unknown shape accepted")
	}
}

// FuzzCanonical: any document that parses canonicalises to bytes that
// parse again to the same canonical bytes, and nothing panics.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{`{"b":[1,2.5e3,"x"],"a":null}`, `"\ud800"`, `[true,false,{}]`, `-0.0`, `1e-7`, `{"\ud835\udc00":1,"\uff21":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ParseJSON(data)
		if err != nil {
			return
		}
		c1, err := Canonical(v)
		if err != nil {
			return // e.g. an integer beyond 2^53
		}
		c2, err := CanonicalJSON(c1)
		if err != nil {
			t.Fatalf("canonical output does not reparse: %q: %v", c1, err)
		}
		if !bytes.Equal(c1, c2) {
			t.Fatalf("not idempotent: %q then %q", c1, c2)
		}
	})
}

func BenchmarkCanonicalLease(b *testing.B) {
	raw := mustRead(b, "../contract/fixtures/valid/agent-lease.populated.json")
	v, err := ParseJSON(raw)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Canonical(v); err != nil {
			b.Fatal(err)
		}
	}
}
