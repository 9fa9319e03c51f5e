package wirejson

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"testing"
	"testing/quick"

	"github.com/leasedeck/leasedeck/schemas"
)

// marshalNoHTML is what an Encoder with SetEscapeHTML(false) writes.
func marshalNoHTML(t testing.TB, v any) ([]byte, error) {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), err
}

func checkSame(t *testing.T, v any) {
	t.Helper()
	want, werr := json.Marshal(v)
	got, gerr := AppendValue(nil, v, true)
	if (werr != nil) != (gerr != nil) || (werr == nil && !bytes.Equal(got, want)) {
		t.Fatalf("%#v:\n got  %s (%v)\n want %s (%v)", v, got, gerr, want, werr)
	}
	want, werr = marshalNoHTML(t, v)
	got, gerr = AppendValue(nil, v, false)
	if (werr != nil) != (gerr != nil) || (werr == nil && !bytes.Equal(got, want)) {
		t.Fatalf("%#v without HTML escaping:\n got  %s (%v)\n want %s (%v)", v, got, gerr, want, werr)
	}
}

func TestAppendValueWritesWhatMarshalWrites(t *testing.T) {
	for _, v := range []any{
		nil, true, false, "", "plain", "<a & b>", "quote \" back \\ slash", "\b\f\n\r\t\x00\x1f\x7f",
		"bad \xff utf-8 \xed\xa0\x80", "line\u2028para\u2029", "émoji 😀", json.Number("12.5e-3"), json.Number(""),
		json.Number("-0"), json.Number("01"), json.Number("1."), json.Number("x"), 0.0, -0.0, 1e21, 1e-7, 123456789.125,
		math.Inf(1), math.NaN(), 5e-324, 42, int64(-7), uint64(math.MaxUint64), []string{"a", "<"}, []string(nil),
		[]any{}, []any(nil), []any{1.5, "x", nil, []any{true}}, map[string]any{}, map[string]any(nil),
		map[string]any{"b": 1.0, "a": map[string]any{"z": "<", "é": json.Number("3")}, "": []any{}},
		struct {
			A string `json:"a"`
		}{"<reflected>"},
	} {
		checkSame(t, v)
	}
}

func TestAppendFloatWritesWhatMarshalWrites(t *testing.T) {
	if err := quick.Check(func(f float64, exp int8) bool {
		v := f * math.Pow(10, float64(exp%40))
		want, werr := json.Marshal(v)
		got, gerr := AppendValue(nil, v, true)
		return (werr != nil) == (gerr != nil) && bytes.Equal(got, want)
	}, &quick.Config{MaxCount: 20000}); err != nil {
		t.Fatal(err)
	}
}

// FuzzAppendValue holds the writer to json.Marshal on every document the
// parser reads (the values a hook forwards), and on every string.
func FuzzAppendValue(f *testing.F) {
	for _, s := range []string{`{"command":"npm test","timeout":120000,"x":[1,2.5e10,"<&>",null,true]}`, `"\u2028\ud83d\ude00"`, `-0.0e+00`, `[{"":{}}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkSame(t, string(data))
		if v, err := schemas.ParseJSON(data); err == nil {
			checkSame(t, v)
		}
	})
}

// sample is a message shape read both ways in the tests.
type sample struct {
	S string   `json:"s"`
	N int64    `json:"n"`
	U uint64   `json:"u"`
	B bool     `json:"b"`
	L []string `json:"l"`
	O *inner   `json:"o"`
}

type inner struct {
	X string `json:"x"`
}

var sampleNames = []string{"s", "n", "u", "b", "l", "o"}

func readSample(line []byte) (sample, error) {
	var s sample
	o, err := ParseObject(line, sampleNames...)
	if err != nil {
		return s, err
	}
	if s.S, err = o.String("s"); err != nil {
		return s, err
	}
	if s.N, err = o.Int64("n"); err != nil {
		return s, err
	}
	if s.U, err = o.Uint64("u"); err != nil {
		return s, err
	}
	if s.B, err = o.Bool("b"); err != nil {
		return s, err
	}
	if s.L, err = o.Strings("l"); err != nil {
		return s, err
	}
	in, ok, err := o.Object("o", "x")
	if err != nil {
		return s, err
	}
	if ok {
		s.O = &inner{}
		if s.O.X, err = in.String("x"); err != nil {
			return s, err
		}
	}
	return s, nil
}

func TestObjectReadsWhatMarshalWrote(t *testing.T) {
	if err := quick.Check(func(s string, n int64, u uint64, b bool, l []string, x string, withO bool) bool {
		want := sample{S: s, N: n, U: u, B: b, L: l, O: &inner{X: x}}
		if !withO {
			want.O = nil
		}
		line, _ := json.Marshal(want)
		var viaJSON sample
		json.Unmarshal(line, &viaJSON)
		got, err := readSample(line)
		return err == nil && reflect.DeepEqual(got, viaJSON)
	}, &quick.Config{MaxCount: 5000}); err != nil {
		t.Fatal(err)
	}
}

func TestObjectRefusesWhatEncodingJSONWouldReadOtherwise(t *testing.T) {
	for _, line := range []string{
		`{"S":"x"}`, `{"s":"a","s":"b"}`, `{"o":{"X":"y"}}`, `{"n":1.5}`, `{"n":1e3}`, `{"u":-1}`,
		`{"n":99999999999999999999}`, `{"s":"\ud800"}`, `{"l":["a",null]}`, `{"s":1}`, `{"o":[]}`, `[]`, `{"s":"x"} x`,
	} {
		if got, err := readSample([]byte(line)); err == nil {
			t.Errorf("%s read as %+v, want an error", line, got)
		}
	}
}

// FuzzObject: whatever ParseObject reads, encoding/json reads the same.
func FuzzObject(f *testing.F) {
	for _, s := range []string{`{"s":"a\u00e9\n","n":-3,"u":7,"b":true,"l":["x"],"o":{"x":"y"},"z":[{}]}`, `{"o":null,"l":null}`, `{}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := readSample(data)
		if err != nil {
			return
		}
		var want sample
		if jerr := json.Unmarshal(data, &want); jerr != nil {
			t.Fatalf("%q: read as %+v, but encoding/json refuses it: %v", data, got, jerr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got  %+v\n json %+v", data, got, want)
		}
	})
}
