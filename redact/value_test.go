package redact

import (
	"math/rand/v2"
	"reflect"
	"sort"
	"strconv"
	"testing"
)

// redactValueReference is RedactValue as it was: every pointer spelled
// out on the way down, sort.Strings, every string redacted and boxed anew.
func redactValueReference(v any, path string, underSecret bool, findings *[]Finding) any {
	switch x := v.(type) {
	case string:
		if underSecret && !rules().isReference(x) {
			*findings = append(*findings, Finding{Kind: "secret-field", Path: path, Start: 0, End: len(x)})
			return Redacted
		}
		r, fs := Redact(x)
		for _, f := range fs {
			f.Path = path
			*findings = append(*findings, f)
		}
		return r
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out := make(map[string]any, len(x))
		for _, k := range keys {
			out[k] = redactValueReference(x[k], path+"/"+EscapePointer(k), underSecret || IsSecretKey(k), findings)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = redactValueReference(e, path+"/"+strconv.Itoa(i), underSecret, findings)
		}
		return out
	default:
		return v
	}
}

// randomTree is a JSON tree of tool-input shape: members with ordinary,
// secret-announcing and pointer-escaping names, strings that hold
// secrets or not, references, arrays, numbers and nulls.
func randomTree(r *rand.Rand, depth int) any {
	texts := append(append([]string{}, ordinaryCommands...), "ghp_aB3cD6eF9gH2iJ5kL8mN1oP4qR7sT0uV3wX6y",
		"curl -H 'Authorization: Bearer abcdefghijklmnop' https://x.example.com", "$TOKEN", "hunter2",
		"https://user:pa55word@example.com/x", "", "aB3cD6eF9gH2iJ5kL8mN1oP4qR7sT0uV3wX6yZ9aB3cD6eF9")
	keys := []string{"command", "description", "password", "api_key", "a/b", "x~y", "env", "GITHUB_TOKEN", "dbPassword", "cwd", "args"}
	switch n := r.IntN(10); {
	case depth > 2 || n < 5:
		return texts[r.IntN(len(texts))]
	case n == 5:
		return float64(r.IntN(100))
	case n == 6:
		return nil
	case n == 7:
		a := make([]any, r.IntN(4))
		for i := range a {
			a[i] = randomTree(r, depth+1)
		}
		return a
	}
	m := map[string]any{}
	for range r.IntN(12) {
		m[keys[r.IntN(len(keys))]] = randomTree(r, depth+1)
	}
	return m
}

// TestRedactValueMatchesReference: the redacted copy and the findings are
// the former code's, and FindingsIn finds what RedactValue finds, on
// random trees.
func TestRedactValueMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for range 5000 {
		v := randomTree(r, 0)
		var want []Finding
		wantOut := redactValueReference(v, "", false, &want)
		got, found := RedactValue(v)
		if !reflect.DeepEqual(got, wantOut) || !reflect.DeepEqual(found, want) {
			t.Fatalf("RedactValue(%#v) = %#v %+v, the reference %#v %+v", v, got, found, wantOut, want)
		}
		if only := FindingsIn(v); !reflect.DeepEqual(only, want) {
			t.Fatalf("FindingsIn(%#v) = %+v, RedactValue finds %+v", v, only, want)
		}
	}
}
