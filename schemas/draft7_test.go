package schemas

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"regexp"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// compileTest compiles a schema document for a test, holding compileMu
// as the package does (compilePattern's cache needs it).
func compileTest(src string) (*schemaNode, error) {
	compileMu.Lock()
	defer compileMu.Unlock()
	d, err := compileDocument("test.schema.json", []byte(src))
	if err != nil {
		return nil, err
	}
	return d.nodes[""], nil
}

func mustParse(tb testing.TB, src string) any {
	tb.Helper()
	v, err := ParseJSON([]byte(src))
	if err != nil {
		tb.Fatalf("%s: %v", src, err)
	}
	return v
}

func TestAllShapesCompile(t *testing.T) {
	for _, s := range Shapes() {
		if _, err := compiledShape(s); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	if _, err := Validate("nope", nil); err == nil || !strings.Contains(err.Error(), "unknown shape") {
		t.Errorf("unknown shape: %v", err)
	}
}

// A keyword the validator does not implement must stop compilation, with
// the keyword named, wherever in the document it sits.
func TestUnsupportedKeywordsFailLoudly(t *testing.T) {
	cases := []struct{ schema, keyword string }{
		{`{"unevaluatedProperties": false}`, "unevaluatedProperties"},
		{`{"properties": {"a": {"minContains": 1}}}`, "minContains"},
		{`{"definitions": {"unused": {"contentEncoding": "base64"}}}`, "contentEncoding"},
		{`{"$defs": {"a": {}}}`, "$defs"},
		{`{"items": [{"type": "string", "typo": 1}]}`, "typo"},
		{`{"anyOf": [{"dependentRequired": {}}]}`, "dependentRequired"},
		{`{"if": {"type": "string"}, "then": {"prefixItems": []}}`, "prefixItems"},
		{`{"$ref": "other.json#/x"}`, "$ref"},
		{`{"$ref": "#/definitions/missing"}`, "$ref"},
		{`{"$ref": "#/definitions/a", "type": "string", "definitions": {"a": {}}}`, "type"},
		{`{"exclusiveMinimum": true, "minimum": 0}`, "exclusiveMinimum"},
		{`{"then": {"type": "string"}}`, "then"},
		{`{"pattern": "(?=x)"}`, "pattern"},
		{`{"patternProperties": {"(?!x)": {}}}`, "patternProperties"},
		{`{"properties": {"a": {"$id": "#a"}}}`, "$id"},
		{`{"$schema": "https://json-schema.org/draft/2020-12/schema"}`, "$schema"},
		{`{"type": "float"}`, "type"},
		{`{"minLength": -1}`, "minLength"},
		{`{"maxItems": 1.5}`, "maxItems"},
		{`{"multipleOf": 0}`, "multipleOf"},
		{`{"required": ["a", "a"]}`, "required"},
		{`{"enum": []}`, "enum"},
		{`{"additionalItems": false}`, "additionalItems"},
		{`{"properties": {"a": 5}}`, ""},
		{`{"definitions": {"a": {"$ref": "#/definitions/b"}, "b": {"allOf": [{"$ref": "#/definitions/a"}]}}}`, "$ref"},
	}
	for _, c := range cases {
		_, err := compileTest(c.schema)
		if err == nil {
			t.Errorf("%s: compiled", c.schema)
			continue
		}
		if c.keyword != "" && !strings.Contains(err.Error(), fmt.Sprintf("keyword %q", c.keyword)) {
			t.Errorf("%s: error does not name %s: %v", c.schema, c.keyword, err)
		}
	}
	// Annotations, and format as one, are accepted and ignored.
	n, err := compileTest(`{"$schema": "http://json-schema.org/draft-07/schema#", "$id": "https://x.invalid/s.json",
		"$comment": "c", "title": "t", "description": "d", "default": 1, "examples": [1], "readOnly": true,
		"writeOnly": false, "format": "date-time", "properties": {"a": {"format": "email", "$ref": "#/definitions/s"}},
		"definitions": {"s": {"type": "string"}}}`)
	if err != nil {
		t.Fatal(err)
	}
	if errs := run(n, mustParse(t, `{"a": "not an email", "b": "x"}`)); errs != nil {
		t.Errorf("format asserted: %v", errs)
	}
	if errs := run(n, mustParse(t, `{"a": 1}`)); len(errs) != 1 || errs[0].Path != "/a" || errs[0].Keyword != "type" {
		t.Errorf("$ref by absolute id: %v", errs)
	}
}

// keywordCases run against leasedeck and the reference alike. want is
// "" for valid, else the "path keyword" pairs leasedeck reports.
var keywordCases = []struct {
	schema, instance string
	want             string
}{
	{`{"type": "integer"}`, `1.0`, ""},
	{`{"type": "integer"}`, `1e2`, ""},
	{`{"type": "integer"}`, `-0`, ""},
	{`{"type": "integer"}`, `1.5`, " type"},
	{`{"type": "integer"}`, `1.5e1`, ""},
	{`{"type": "integer"}`, `1.55e1`, " type"},
	{`{"type": "integer"}`, `"1"`, " type"},
	{`{"type": "number"}`, `1`, ""},
	{`{"type": ["string", "null"]}`, `null`, ""},
	{`{"type": ["string", "null"]}`, `0`, " type"},
	{`{"type": ["integer", "boolean"]}`, `true`, ""},
	{`{"type": "object"}`, `[]`, " type"},
	{`{"type": "array"}`, `{}`, " type"},
	{`{"maximum": 9007199254740991}`, `9007199254740993`, " maximum"},
	{`{"maximum": 9007199254740991}`, `9007199254740991`, ""},
	{`{"maximum": 9007199254740991}`, `9007199254740991.5`, " maximum"},
	{`{"maximum": 9007199254740991}`, `9.007199254740991e15`, ""},
	{`{"maximum": 9007199254740991}`, `1e400`, " maximum"},
	{`{"minimum": 0}`, `-1e-400`, " minimum"},
	{`{"minimum": 0}`, `-0`, ""},
	{`{"minimum": 0.1}`, `0.1`, ""},
	{`{"minimum": 0.1}`, `0.09999999999999999999`, " minimum"},
	{`{"exclusiveMinimum": 0}`, `0`, " exclusiveMinimum"},
	{`{"exclusiveMinimum": 0}`, `1e-9`, ""},
	{`{"exclusiveMaximum": 16}`, `16`, " exclusiveMaximum"},
	{`{"exclusiveMaximum": 16}`, `15.999`, ""},
	{`{"multipleOf": 0.01}`, `3.14`, ""},
	{`{"multipleOf": 0.01}`, `3.141`, " multipleOf"},
	{`{"multipleOf": 3}`, `1e30`, " multipleOf"},
	{`{"multipleOf": 5}`, `1e30`, ""},
	{`{"multipleOf": 2.5}`, `-7.5`, ""},
	{`{"minLength": 2, "maxLength": 3}`, `"é"`, " minLength"},
	{`{"minLength": 2, "maxLength": 3}`, `"éé"`, ""},
	{`{"maxLength": 3}`, `"éééé"`, " maxLength"},
	{`{"maxLength": 1}`, `"💩"`, ""},
	{`{"maxLength": 1}`, `"\ud83d\udca9"`, ""},
	{`{"minLength": 1}`, `5`, ""},
	{`{"pattern": "b"}`, `"abc"`, ""},
	{`{"pattern": "^b"}`, `"abc"`, " pattern"},
	{`{"pattern": "^\\d+$"}`, `"١٢"`, " pattern"},
	{`{"enum": [1, "a", null, [1], {"a": 1}]}`, `1.0`, ""},
	{`{"enum": [1, "a", null, [1], {"a": 1}]}`, `[1.0]`, ""},
	{`{"enum": [1, "a", null, [1], {"a": 1}]}`, `{"a": 1e0}`, ""},
	{`{"enum": [1, "a", null, [1], {"a": 1}]}`, `"b"`, " enum"},
	{`{"enum": [1, "a", null, [1], {"a": 1}]}`, `false`, " enum"},
	{`{"enum": ["a","b","c","d","e","f","g","h","i", 1]}`, `"i"`, ""},
	{`{"enum": ["a","b","c","d","e","f","g","h","i", 1]}`, `1`, ""},
	{`{"enum": ["a","b","c","d","e","f","g","h","i", 1]}`, `"j"`, " enum"},
	{`{"const": "begin"}`, `"begin"`, ""},
	{`{"const": "begin"}`, `"end"`, " const"},
	{`{"const": {"a": [1, 2]}}`, `{"a": [1, 2.0]}`, ""},
	{`{"const": null}`, `false`, " const"},
	{`{"required": ["a", "b"]}`, `{"a": 1}`, " required"},
	{`{"required": ["a"]}`, `[]`, ""},
	{`{"minProperties": 1, "maxProperties": 2}`, `{}`, " minProperties"},
	{`{"minProperties": 1, "maxProperties": 2}`, `{"a":1,"b":2,"c":3}`, " maxProperties"},
	{`{"properties": {"a": {"type": "string"}}, "additionalProperties": false}`, `{"a": "x", "b": 1, "c": 2}`, " additionalProperties"},
	{`{"properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "number"}}`, `{"a": "x", "b": "y"}`, "/b type"},
	{`{"patternProperties": {"^x_": {"type": "number"}}, "additionalProperties": false}`, `{"x_a": 1, "y": 2}`, " additionalProperties"},
	{`{"patternProperties": {"^x_": {"type": "number"}, "a$": {"minimum": 5}}}`, `{"x_a": 1}`, "/x_a minimum"},
	{`{"properties": {"a~b/c": {"type": "number"}}}`, `{"a~b/c": "s"}`, "/a~0b~1c type"},
	{`{"propertyNames": {"pattern": "^[a-z]+$"}}`, `{"ok": 1, "Bad": 2, "Worse": 3}`, " propertyNames  propertyNames"},
	{`{"propertyNames": {"maxLength": 2}}`, `{"ok": 1}`, ""},
	{`{"propertyNames": false}`, `{}`, ""},
	{`{"propertyNames": false}`, `{"a": 1}`, " propertyNames"},
	{`{"dependencies": {"a": ["b", "c"]}}`, `{"a": 1, "b": 2}`, " dependencies"},
	{`{"dependencies": {"a": ["b"]}}`, `{"b": 1}`, ""},
	{`{"dependencies": {"a": {"required": ["z"]}}}`, `{"a": 1}`, " required"},
	{`{"items": {"type": "string"}}`, `["a", 1, "b", true]`, "/1 type /3 type"},
	{`{"items": [{"type": "string"}, {"type": "number"}]}`, `["a", 1, {}]`, ""},
	{`{"items": [{"type": "string"}, {"type": "number"}], "additionalItems": false}`, `["a", 1, {}]`, " additionalItems"},
	{`{"items": [{"type": "string"}], "additionalItems": {"type": "number"}}`, `[1, 2, "x"]`, "/0 type /2 type"},
	{`{"minItems": 2, "maxItems": 3}`, `[1]`, " minItems"},
	{`{"minItems": 2, "maxItems": 3}`, `[1, 2, 3, 4]`, " maxItems"},
	{`{"uniqueItems": true}`, `[1, "1", [1], {"a": 1}]`, ""},
	{`{"uniqueItems": true}`, `[1, 2, 1.0]`, " uniqueItems"},
	{`{"uniqueItems": true}`, `[{"a": [1], "b": 2}, {"b": 2, "a": [1.0]}]`, " uniqueItems"},
	{`{"contains": {"const": 3}}`, `[1, 2, 3]`, ""},
	{`{"contains": {"const": 3}}`, `[1, 2]`, " contains"},
	{`{"contains": {"const": 3}}`, `[]`, " contains"},
	{`{"contains": {"const": 3}}`, `"x"`, ""},
	{`{"allOf": [{"minimum": 1}, {"maximum": 2}]}`, `3`, " maximum"},
	{`{"anyOf": [{"type": "string"}, {"minimum": 5}]}`, `3`, " anyOf  minimum  type"},
	{`{"anyOf": [{"type": "string"}, {"minimum": 5}]}`, `7`, ""},
	{`{"oneOf": [{"type": "integer"}, {"minimum": 5}]}`, `7`, " oneOf"},
	{`{"oneOf": [{"type": "integer"}, {"minimum": 5}]}`, `7.5`, ""},
	{`{"oneOf": [{"type": "integer"}, {"minimum": 5}]}`, `1.5`, " minimum  oneOf  type"},
	{`{"not": {"type": "string"}}`, `"x"`, " not"},
	{`{"not": {"pattern": "^/"}}`, `5`, " not"},
	{`{"not": {"pattern": "^/"}}`, `"a"`, ""},
	{`{"allOf": [{"not": {"pattern": "^/"}}, {"not": {"pattern": "x"}}]}`, `"/x"`, " not  not"},
	{`{"allOf": [{"not": {"pattern": "^/"}}]}`, `null`, " not"},
	{`{"if": {"properties": {"op": {"const": "a"}}}, "then": {"required": ["x"]}, "else": {"required": ["y"]}}`, `{"op": "a"}`, " required"},
	{`{"if": {"properties": {"op": {"const": "a"}}}, "then": {"required": ["x"]}, "else": {"required": ["y"]}}`, `{"op": "b", "y": 1}`, ""},
	{`{"if": {"properties": {"op": {"const": "a"}}}, "then": {"required": ["x"]}}`, `{"op": "b"}`, ""},
	{`{"if": {"minimum": 5}}`, `1`, ""},
	{`{"properties": {"a": true, "b": false}}`, `{"a": 1, "b": 2}`, "/b false"},
	{`{"definitions": {"node": {"type": "object", "properties": {"next": {"$ref": "#/definitions/node"}, "v": {"type": "integer"}}}}, "$ref": "#/definitions/node"}`,
		`{"v": 1, "next": {"v": 2, "next": {"v": "x"}}}`, "/next/next/v type"},
	{`{"properties": {"self": {"$ref": "#"}}, "required": ["id"]}`, `{"id": 1, "self": {"self": {}}}`, "/self required /self/self required"},
	{`{"properties": {"a": {"$ref": "#/properties/b"}, "b": {"type": "string"}}}`, `{"a": 1}`, "/a type"},
	{`{"properties": {"a%25b": {"type": "string"}, "c": {"$ref": "#/properties/a%2525b"}}}`, `{"c": 1}`, "/c type"},
	{`{}`, `{"anything": [1, {"a": null}]}`, ""},
	{`true`, `1`, ""},
	{`false`, `1`, " false"},
}

func TestKeywords(t *testing.T) {
	for _, c := range keywordCases {
		n, err := compileTest(c.schema)
		if err != nil {
			t.Errorf("%s: %v", c.schema, err)
			continue
		}
		v := mustParse(t, c.instance)
		errs := run(n, v)
		var got []string
		for _, e := range errs {
			got = append(got, e.Path+" "+e.Keyword)
		}
		if !samePairs(got, c.want) {
			t.Errorf("%s on %s: got %q, want %q (%v)", c.schema, c.instance, got, c.want, errs)
		}

		// The reference must agree on the verdict.
		rc := jsonschema.NewCompiler()
		rc.DefaultDraft(jsonschema.Draft7)
		doc, _ := jsonschema.UnmarshalJSON(strings.NewReader(c.schema))
		if err := rc.AddResource("https://x.invalid/s.json", doc); err != nil {
			t.Fatal(err)
		}
		rs, err := rc.Compile("https://x.invalid/s.json")
		if err != nil {
			t.Fatalf("reference: %s: %v", c.schema, err)
		}
		if refErr := rs.Validate(v); (refErr == nil) != (errs == nil) {
			t.Errorf("%s on %s: leasedeck %v, reference %v", c.schema, c.instance, errs, refErr)
		}
	}
}

// samePairs compares "path keyword" pairs given as one space-separated
// string; paths can be empty, so pairs are rebuilt two tokens at a time.
func samePairs(got []string, want string) bool {
	toks := strings.Split(want, " ")
	var pairs []string
	for i := 0; i+1 < len(toks); i += 2 {
		pairs = append(pairs, toks[i]+" "+toks[i+1])
	}
	return strings.Join(pairs, "|") == strings.Join(got, "|")
}

// Numbers compare exactly, whatever Go type carries them.
func TestNumbers(t *testing.T) {
	n, err := compileTest(`{"type": "integer", "minimum": 0, "maximum": 9007199254740991}`)
	if err != nil {
		t.Fatal(err)
	}
	ok := []any{json.Number("0"), json.Number("9007199254740991"), json.Number("1.0"), json.Number("9.007199254740991e15"),
		int(5), int64(9007199254740991), int32(1), uint8(1), uint64(9007199254740991), float64(3), float32(2), float64(1<<53 - 1)}
	bad := []any{json.Number("9007199254740992"), json.Number("9007199254740993"), json.Number("-1"), json.Number("1.5"),
		json.Number("1e400"), json.Number("-1e-400"), int64(math.MaxInt64), int64(math.MinInt64), uint64(math.MaxUint64),
		float64(1 << 53), 0.5, math.NaN(), math.Inf(1), json.Number("abc"), json.Number("")}
	for _, v := range ok {
		if errs := run(n, v); errs != nil {
			t.Errorf("%T %v: %v", v, v, errs)
		}
	}
	for _, v := range bad {
		if errs := run(n, v); errs == nil {
			t.Errorf("%T %v accepted", v, v)
		}
	}
	// A float a caller built means its shortest decimal form: 0.1 is 0.1.
	f, _ := compileTest(`{"minimum": 0.1, "maximum": 0.1}`)
	if errs := run(f, 0.1); errs != nil {
		t.Errorf("0.1: %v", errs)
	}
	if errs := run(f, math.Nextafter(0.1, 1)); errs == nil {
		t.Error("the next float above 0.1 accepted")
	}
	// Huge exponents are compared symbolically, quickly.
	h, _ := compileTest(`{"maximum": 1e308, "minimum": -1e308, "type": "integer"}`)
	for _, lit := range []string{"1e999999999999999999999", "-1e99999999", "1e-99999999"} {
		if errs := run(h, json.Number(lit)); errs == nil {
			t.Errorf("%s accepted", lit)
		}
	}
	if errs := run(h, json.Number("1e308")); errs != nil {
		t.Errorf("1e308: %v", errs)
	}
	if errs := run(h, json.Number("0.00000000000000000000000000000000000001e38")); errs != nil {
		t.Errorf("1 written small: %v", errs)
	}
}

func TestDecimalCompare(t *testing.T) {
	lits := []string{"-1e400", "-9007199254740993", "-9007199254740992", "-1.5", "-1", "-0.5", "-1e-400", "0",
		"1e-400", "0.1", "0.25", "1", "1.5", "2", "10", "99.99", "100", "9007199254740991", "9007199254740992",
		"9007199254740993", "1e20", "1e400"}
	for i, a := range lits {
		for j, b := range lits {
			da, ok1 := parseDecimal(a, nil)
			db, ok2 := parseDecimal(b, nil)
			if !ok1 || !ok2 {
				t.Fatalf("%s %s", a, b)
			}
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := cmpDecimal(da, db); got != want {
				t.Errorf("cmp(%s, %s) = %d, want %d", a, b, got, want)
			}
		}
	}
	for _, eq := range [][2]string{{"1", "1.0"}, {"100", "1e2"}, {"0.5", "5e-1"}, {"-0", "0.0"}, {"12.50", "1.25E1"}} {
		a, _ := parseDecimal(eq[0], nil)
		b, _ := parseDecimal(eq[1], nil)
		if cmpDecimal(a, b) != 0 {
			t.Errorf("%s != %s", eq[0], eq[1])
		}
	}
	for _, bad := range []string{"", "-", "01", "1.", ".5", "1e", "1e+", "+1", "0x1", "1 "} {
		if _, ok := parseDecimal(bad, nil); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestCodePoints(t *testing.T) {
	for s, want := range map[string]int{
		"": 0, "abc": 3, "é": 1, "💩": 1, "\xed\xa0\x80": 1, "a\xed\xa0\x80b\xed\xbf\xbf": 4,
		"\xed\x9f\xbf": 1, // U+D7FF, a valid character
		"\xff\xfe":     2, "\xed": 1, "\xed\xa0": 2,
	} {
		if got := codePoints(s); got != want {
			t.Errorf("codePoints(%q) = %d, want %d", s, got, want)
		}
	}
	// From the parser: a lone surrogate escape is one code point.
	n, _ := compileTest(`{"maxLength": 2}`)
	if errs := run(n, mustParse(t, `"a\ud800"`)); errs != nil {
		t.Errorf("lone surrogate counted as more than one: %v", errs)
	}
}

// Go callers validate values they built by hand: int64 budgets, float64
// costs, []string lists.
func TestGoValues(t *testing.T) {
	manifest := map[string]any{
		"schema_version": "1.2",
		"agent":          map[string]any{"name": "w", "kind": "native", "runtime_agent": "unknown"},
		"intent":         map[string]any{"purpose": "p"},
		"allow": map[string]any{"tools": []string{"cdf_x"}, "read_paths": []any{"**"}, "write_paths": []string{},
			"hosts": []string{"api.example.com"}, "commands": []string{"git"}},
		"deny":      map[string]any{"commands": []string{}, "paths": []string{"~/.ssh/**"}, "hosts": []any{}},
		"budget":    map[string]any{"steps": int64(10), "cost_usd": 1.25, "depth": int(2), "fan_out": uint8(1), "tokens": float64(1000)},
		"approvals": []string{},
	}
	if errs, err := Validate(Manifest, manifest); err != nil || errs != nil {
		t.Fatalf("%v %v", errs, err)
	}
	manifest["budget"].(map[string]any)["depth"] = int64(17)
	manifest["budget"].(map[string]any)["steps"] = 2.5
	manifest["allow"].(map[string]any)["write_paths"] = []string{"ok/**", "../up"}
	errs, _ := Validate(Manifest, manifest)
	want := []string{"/allow/write_paths/1 not", "/budget/depth maximum", "/budget/steps type"}
	var got []string
	for _, e := range errs {
		got = append(got, e.Path+" "+e.Keyword)
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %v, want %v", errs, want)
	}
	// A Go value that is no JSON value is refused where it sits.
	manifest["budget"].(map[string]any)["depth"] = struct{}{}
	errs, _ = Validate(Manifest, manifest)
	found := false
	for _, e := range errs {
		found = found || (e.Path == "/budget/depth" && e.Keyword == "type" && strings.Contains(e.Message, "struct"))
	}
	if !found {
		t.Errorf("struct value: %v", errs)
	}
	// A map that contains itself ends in an error, not a stack overflow.
	loop := map[string]any{}
	loop["self"] = loop
	n, _ := compileTest(`{"properties": {"self": {"$ref": "#"}}}`)
	if errs := run(n, loop); len(errs) == 0 {
		t.Error("a self-containing map validated")
	}
}

// The error contract: leaves at JSON pointers, sorted, deduplicated, with
// messages a person can act on.
func TestErrorShapes(t *testing.T) {
	check := func(shape Shape, doc string, want ...Error) {
		t.Helper()
		_, errs, err := ValidateJSON(shape, []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			found := false
			for _, e := range errs {
				found = found || (e.Path == w.Path && e.Keyword == w.Keyword && strings.Contains(e.Message, w.Message))
			}
			if !found {
				t.Errorf("no %q %s %q in %v", w.Path, w.Keyword, w.Message, errs)
			}
		}
		for i := 1; i < len(errs); i++ {
			a, b := errs[i-1], errs[i]
			if a.Path > b.Path || (a.Path == b.Path && a.Keyword > b.Keyword) {
				t.Errorf("not sorted: %v before %v", a, b)
			}
			if a == b {
				t.Errorf("duplicate %v", a)
			}
		}
	}
	manifest := string(mustRead(t, "../contract/fixtures/valid/agent-lease-manifest.minimal.json"))
	set := func(from, to string) string {
		if !strings.Contains(manifest, from) {
			t.Fatalf("fixture lacks %s", from)
		}
		return strings.Replace(manifest, from, to, 1)
	}
	check(Manifest, `{"schema_version": "1.2"}`,
		Error{"", "required", `missing required members "agent", "intent", "allow", "deny", "budget", "approvals"`})
	check(Manifest, `[1]`, Error{"", "type", "must be object, not array"})

	v := mustParse(t, manifest).(map[string]any)
	v["allow"].(map[string]any)["write_paths"] = []any{"../x", "ok", `C:\x`}
	v["allow"].(map[string]any)["tool_args"] = map[string]any{"bad key": map[string]any{}, "ok": 5}
	v["budget"] = map[string]any{"depth": json.Number("17"), "steps": json.Number("1.5")}
	b, _ := json.Marshal(v)
	check(Manifest, string(b),
		Error{"/allow/write_paths/0", "not", `"../x" must not match the forbidden pattern (^|/)\.\.(/|$)`},
		Error{"/allow/write_paths/2", "not", `"C:\\x" must not match the forbidden pattern ^[A-Za-z]:`},
		Error{"/allow/write_paths/2", "not", `"C:\\x" must not match the forbidden pattern \\`},
		Error{"/allow/tool_args", "propertyNames", `member name "bad key" is not allowed: does not match the pattern ^[A-Za-z0-9_]`},
		Error{"/allow/tool_args/ok", "type", "must be object, not integer"},
		Error{"/budget/depth", "maximum", "17 must be <= 16"},
		Error{"/budget/steps", "type", "must be integer, not number"},
	)
	_ = set

	// anyOf: the group, and each alternative's leaves beneath it.
	check(LeaseRecord, `{"schema_version":"1.2","at":"2026-01-01T00:00:00.000Z","event":"revoked","lease_id":"01234567-89ab-cdef-0123-456789abcdef","reason":"r","by":"someone"}`,
		Error{"/by", "anyOf", "matches none of the allowed forms"},
		Error{"/by", "pattern", `"someone" does not match the pattern`},
		Error{"/by", "enum", `"someone" is not one of "issuer"`},
	)
	// if/then: the then-branch's leaves, at the object.
	check(LeaseRecord, `{"schema_version":"1.2","at":"2026-01-01T00:00:00.000Z","event":"refused","lease_id":"01234567-89ab-cdef-0123-456789abcdef"}`,
		Error{"", "required", `missing required members "reasons", "declared_hash"`})
	// contains, at the array.
	check(CDIAssessment, `{"dimensions": [{"id": "scope-definition", "score": 9, "evidence": "", "name": "", "level_label": ""}]}`,
		Error{"/dimensions", "contains", `has no item matching {"properties":{"id":{"enum":["provenance-integrity"]}}`},
		Error{"/dimensions", "minItems", "must have at least 6 items, not 1"},
		Error{"/dimensions/0/score", "maximum", "9 must be <= 5"},
	)
	// propertyNames under not: the forbidden pattern, named.
	check(AuditEvent, `{"schema_version":"1.0","timestamp":"2026-01-01T00:00:00Z","event_type":"a.b","details":{"file_path":"x","fine":1}}`,
		Error{"/details", "propertyNames", `member name "file_path" is not allowed: must not match the forbidden pattern (^|[^A-Za-z0-9])(authorization|`})
	// Messages cut long values.
	_, errs, _ := ValidateJSON(AuditEvent, []byte(`{"schema_version":"1.0","timestamp":"x","event_type":"a.b","summary":"`+strings.Repeat("s", 400)+`"}`))
	for _, e := range errs {
		if len(e.Message) > 200 {
			t.Errorf("message too long (%d bytes): %s", len(e.Message), e.Message)
		}
	}
}

// Shapes compile lazily, once, safely from many goroutines.
func TestConcurrentFirstUse(t *testing.T) {
	docs := map[Shape]any{}
	for _, f := range corpusFixtures(t) {
		if f.shape != "" && strings.Contains(f.name, "/valid/") || strings.HasPrefix(f.name, "seed:") {
			docs[f.shape] = f.v
		}
	}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, s := range Shapes() {
				if v, ok := docs[s]; ok {
					if errs, err := Validate(s, v); err != nil || errs != nil {
						t.Errorf("%s: %v %v", s, errs, err)
					}
				}
				if errs, _ := Validate(s, "not an object"); errs == nil {
					t.Errorf("%s accepted a string", s)
				}
			}
		}()
	}
	wg.Wait()
}

// The fast pattern matcher must agree with the regexp engine on every
// pattern it takes, for strings built from the pattern's own alphabet.
func TestPatternMatcher(t *testing.T) {
	patterns := []string{
		`^[0-9a-f]{64}$`, `^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`, `^\d+\.\d+$`,
		`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`, `^[A-Za-z0-9_][A-Za-z0-9_.:/-]{0,127}$`, `^/`, `^~`,
		`^[A-Za-z]:`, `\\`, "[\u0000-\u001f\u007f]", `^R[1-9][0-9]?$`, `^runtime_error:[a-z0-9_]{1,64}$`,
		`^vendor:[a-z0-9-]{1,32}:[A-Za-z0-9_.-]{1,64}$`, `^[a-z0-9][a-z0-9-]{0,79}$`, `ab*c`, `a*`, `^a*$`, `a+b?c*$`,
		`x.y`, `^.{2,3}$`, `[^a-z]`, `é+`, `^[é-ü]{2}`, `\x{FFFD}`, `a?b?c`, `^a?a$`, `(?s)^.*$`, `(^|/)\.\.(/|$)`,
		`^(\*|(\*\.)?[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*)$`, `(?i)abc`, `^$`,
	}
	rng := rand.New(rand.NewSource(1))
	fast := 0
	for _, src := range patterns {
		compileMu.Lock()
		p, err := compilePattern(src)
		compileMu.Unlock()
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if p.fast {
			fast++
		}
		re := regexp.MustCompile(src)
		alphabet := []rune("az09AZ-_.:/~\\*é💩\n\x00\x7f\uFFFD")
		for _, r := range src {
			alphabet = append(alphabet, r)
		}
		for i := 0; i < 3000; i++ {
			var b strings.Builder
			for n := rng.Intn(70); n > 0; n-- {
				if rng.Intn(40) == 0 {
					b.WriteByte(0xff) // invalid UTF-8
					continue
				}
				b.WriteRune(alphabet[rng.Intn(len(alphabet))])
			}
			if rng.Intn(4) == 0 {
				b.WriteString(strings.Repeat("a", rng.Intn(130)))
			}
			s := b.String()
			if p.match(s) != re.MatchString(s) {
				t.Fatalf("pattern %q on %q: matcher %v, regexp %v (fast %v)", src, s, p.match(s), re.MatchString(s), p.fast)
			}
		}
		for _, s := range []string{"", strings.Repeat("0", 64), strings.Repeat("a", 128), strings.Repeat("a", 127), "1.2", "/x", "a\\b"} {
			if p.match(s) != re.MatchString(s) {
				t.Fatalf("pattern %q on %q: matcher %v, regexp %v", src, s, p.match(s), re.MatchString(s))
			}
		}
	}
	if fast < 15 {
		t.Errorf("only %d patterns took the fast form", fast)
	}
}

// FuzzPatternMatcher: for any pattern the fast form accepts, it agrees
// with the regexp engine.
func FuzzPatternMatcher(f *testing.F) {
	for _, s := range [][2]string{{`^[0-9a-f]{64}$`, "ab"}, {`a*b?c`, "aac"}, {`^\d+\.\d+$`, "1.2"}, {`[^a]b{2,}`, "xbbb"}, {`^.?é+$`, "éé"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, src, s string) {
		if len(src) > 64 || !utf8.ValidString(src) {
			return
		}
		re, err := regexp.Compile(src)
		if err != nil {
			return
		}
		compileMu.Lock()
		p, err := compilePattern(src)
		delete(patternCache, src)
		compileMu.Unlock()
		if err != nil {
			t.Fatalf("regexp compiles %q, compilePattern does not: %v", src, err)
		}
		if p.match(s) != re.MatchString(s) {
			t.Fatalf("pattern %q on %q: matcher %v, regexp %v (fast %v)", src, s, p.match(s), re.MatchString(s), p.fast)
		}
	})
}

// TestEveryKnownKeywordHasACompiler: a keyword listed as known but given
// no compiler would be refused as unimplemented after passing the check
// that is meant to refuse only unknown keywords.
func TestEveryKnownKeywordHasACompiler(t *testing.T) {
	d := &schemaDoc{name: "t", nodes: map[string]*schemaNode{}}
	for k := range knownKeywords {
		c := objectCompiler{d: d, n: &schemaNode{}, ptr: "/x", s: map[string]any{k: nil}}
		if err := c.keyword(k, nil); err != nil && strings.Contains(err.Error(), notImplemented) {
			t.Errorf("%s is a known keyword with no compiler: %v", k, err)
		}
	}
	for _, k := range []string{"$defs", "unevaluatedProperties", "dependentRequired", ""} {
		c := objectCompiler{d: d, n: &schemaNode{}, ptr: "/x", s: map[string]any{k: nil}}
		if err := c.keyword(k, nil); err == nil || !strings.Contains(err.Error(), notImplemented) {
			t.Errorf("%q is not draft-07 but compiled: %v", k, err)
		}
	}
}
