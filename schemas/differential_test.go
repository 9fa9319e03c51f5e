package schemas

// The differential test holds leasedeck's draft-07 validator to a reference
// implementation, github.com/santhosh-tekuri/jsonschema/v6, which is a
// test-only dependency: nothing outside _test.go files imports it, so the
// binary does not carry its package init (it compiles every draft's
// metaschema at process start).
//
// For every instance both validators must give the same verdict. For an
// invalid one, the errors must agree too: every (path, keyword) leaf
// leasedeck reports must be a node of the reference's error tree, and
// every leaf the reference reports must be one leasedeck reports, except
// for these systematic, deliberate differences:
//
//   - propertyNames: the reference (v6.0.3) records the failure with an
//     instance location slice it later reuses, so the location can name a
//     sibling or a descendant. Both sides are compared by the refused
//     member name instead, and leasedeck's path must be the object that
//     holds it. The reference's causes below a propertyNames node are the
//     name's own failures and have no location of their own.
//   - contains: the reference reports why each item failed the contains
//     schema; leasedeck reports one `contains` error at the array, since no
//     single item was meant to match.
//   - type: when a value has the wrong type, leasedeck reports `type` and
//     nothing else for that value; the reference also reports keywords
//     such as `not` or `enum` that a wrongly typed value trivially fails
//     (a number "matches" {"pattern": "^/"}, so not-pattern fails on it).
//   - length: a lone UTF-16 surrogate, which ParseJSON keeps as its three
//     WTF-8 bytes, is one code point to leasedeck and three to the
//     reference; the reference is given U+FFFD in its place, which is one
//     code point to both and fails or passes every contract pattern alike.
//   - numbers: the reference converts each number to big.Rat, which takes
//     time and memory proportional to the exponent; instances with an
//     exponent beyond ±400 are not given to it (leasedeck keeps them
//     symbolic; TestNumbers covers them).

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand"
	"path"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/leasedeck/leasedeck/contract"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// ---- the reference ----

var (
	refMu       sync.Mutex
	refCompiled = map[Shape]*jsonschema.Schema{}
)

func refSchema(tb testing.TB, s Shape) *jsonschema.Schema {
	tb.Helper()
	refMu.Lock()
	defer refMu.Unlock()
	if sch, ok := refCompiled[s]; ok {
		return sch
	}
	raw, url := lifecycleSchema, "https://leasedeck.invalid/lifecycle.schema.json"
	if s != LifecycleRequest && s != LifecycleResponse {
		b, err := contract.Schema(contractFile(s))
		if err != nil {
			tb.Fatal(err)
		}
		raw, url = b, "https://leasedeck.invalid/contract/"+contractFile(s)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
	if err != nil {
		tb.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	if err := c.AddResource(url, doc); err != nil {
		tb.Fatal(err)
	}
	if s == LifecycleResponse {
		url += "#/definitions/bridgeResponse"
	}
	sch, err := c.Compile(url)
	if err != nil {
		tb.Fatal(err)
	}
	refCompiled[s] = sch
	return sch
}

type refNode struct {
	path, keyword string
	property      string // propertyNames: the refused member name
	underContains bool   // below a contains failure
	underPropName bool   // below a propertyNames failure
	leaf          bool   // a leaf as the old flatten() reported it
}

func refKeyword(e *jsonschema.ValidationError) string {
	switch e.ErrorKind.(type) {
	case *kind.Dependency, *kind.DependentRequired:
		return "dependencies"
	case *kind.FalseSchema:
		return "false"
	case *kind.Not:
		return "not" // v6.0.3 gives Not an empty keyword path
	}
	kw := e.ErrorKind.KeywordPath()
	if len(kw) == 0 {
		return "schema"
	}
	return kw[len(kw)-1]
}

func refPointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(escapeToken(t))
	}
	return b.String()
}

// refNodes lists every node of the reference's error tree, marking the
// ones the old flatten() reported (leaves, anyOf/oneOf groups, not,
// propertyNames).
func refNodes(root *jsonschema.ValidationError) []refNode {
	var out []refNode
	var walk func(e *jsonschema.ValidationError, inContains, inPropName bool)
	walk = func(e *jsonschema.ValidationError, inContains, inPropName bool) {
		n := refNode{path: refPointer(e.InstanceLocation), keyword: refKeyword(e),
			underContains: inContains, underPropName: inPropName}
		switch k := e.ErrorKind.(type) {
		case *kind.PropertyNames:
			n.property, n.leaf = k.Property, true
			out = append(out, n)
			for _, c := range e.Causes {
				walk(c, inContains, true)
			}
			return
		case *kind.Not:
			n.leaf = true
			out = append(out, n)
			return
		case *kind.AnyOf, *kind.OneOf:
			n.leaf = true
		case *kind.Contains:
			n.leaf = true
			out = append(out, n)
			for _, c := range e.Causes {
				walk(c, true, inPropName)
			}
			return
		}
		if len(e.Causes) == 0 {
			n.leaf = true
		}
		out = append(out, n)
		for _, c := range e.Causes {
			walk(c, inContains, inPropName)
		}
	}
	walk(root, false, false)
	return out
}

// refValidate runs the reference on v: nil when valid.
func refValidate(tb testing.TB, s Shape, v any) []refNode {
	err := refSchema(tb, s).Validate(forReference(v))
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		tb.Fatalf("reference failed: %v", err)
	}
	return refNodes(ve)
}

// forReference replaces lone surrogates (WTF-8) by U+FFFD; see above.
func forReference(v any) any {
	switch x := v.(type) {
	case string:
		return replaceSurrogates(x)
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[replaceSurrogates(k)] = forReference(e)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = forReference(e)
		}
		return a
	}
	return v
}

func replaceSurrogates(s string) string {
	if !strings.Contains(s, "\xed") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0xED && i+2 < len(s) && s[i+1] >= 0xA0 && s[i+1] <= 0xBF && s[i+2] >= 0x80 && s[i+2] <= 0xBF {
			b.WriteString("\uFFFD")
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// hugeExponent reports a number the reference cannot afford (see above).
func hugeExponent(v any) bool {
	switch x := v.(type) {
	case json.Number:
		s := strings.ToLower(string(x))
		if i := strings.IndexByte(s, 'e'); i >= 0 {
			e := strings.TrimLeft(s[i+1:], "+-")
			e = strings.TrimLeft(e, "0")
			return len(e) > 3 || (len(e) == 3 && e > "400")
		}
		return len(s) > 400
	case map[string]any:
		for _, e := range x {
			if hugeExponent(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if hugeExponent(e) {
				return true
			}
		}
	}
	return false
}

// ---- the comparison ----

type diffStats struct {
	valid, invalid, errors int
	keywords               map[string]int // errors by keyword
}

// compare validates v with both and reports any difference.
func compare(t testing.TB, s Shape, v any, label string, st *diffStats) {
	t.Helper()
	if hugeExponent(v) {
		return
	}
	mine, err := Validate(s, v)
	if err != nil {
		t.Fatalf("%s %s: %v", s, label, err)
	}
	ref := refValidate(t, s, v)
	if (len(mine) == 0) != (ref == nil) {
		doc, _ := json.Marshal(v)
		t.Fatalf("%s %s: verdicts differ: leasedeck %v, reference %v\ninstance: %s", s, label, mine, ref, doc)
	}
	if st != nil {
		if len(mine) == 0 {
			st.valid++
		} else {
			st.invalid++
			st.errors += len(mine)
			if st.keywords == nil {
				st.keywords = map[string]int{}
			}
			for _, e := range mine {
				st.keywords[e.Keyword]++
			}
		}
	}
	if len(mine) == 0 {
		return
	}
	if msg := errorsDiffer(v, mine, ref); msg != "" {
		doc, _ := json.Marshal(v)
		if len(doc) > 2000 {
			doc = append(doc[:2000], "…"...)
		}
		t.Fatalf("%s %s: %s\nleasedeck: %v\nreference: %+v\ninstance: %s", s, label, msg, mine, ref, doc)
	}
}

func errorsDiffer(v any, mine []Error, ref []refNode) string {
	type pk struct{ path, keyword string }
	all := map[pk]bool{}
	refNames := map[string]bool{}
	for _, r := range ref {
		all[pk{r.path, r.keyword}] = true
		if r.keyword == "propertyNames" {
			refNames[r.property] = true
		}
	}
	mineSet := map[pk]bool{}
	typeAt := map[string]bool{}
	myNames := map[string]bool{}
	for _, e := range mine {
		e.Path = replaceSurrogates(e.Path) // as the reference saw the member names
		mineSet[pk{e.Path, e.Keyword}] = true
		switch e.Keyword {
		case "type":
			typeAt[e.Path] = true
		case "propertyNames":
			name, ok := memberNameIn(e.Message)
			if !ok {
				return fmt.Sprintf("propertyNames message %q does not quote the member name", e.Message)
			}
			name = replaceSurrogates(name)
			obj, _ := resolveTokens(forReference(v), splitPointer(e.Path)).(map[string]any)
			if _, has := obj[name]; !has {
				return fmt.Sprintf("propertyNames error at %q, which has no member %q", e.Path, name)
			}
			myNames[name] = true
			continue
		}
		if !all[pk{e.Path, e.Keyword}] {
			return fmt.Sprintf("leasedeck reports %s %s, the reference does not", e.Path, e.Keyword)
		}
	}
	for name := range refNames {
		if !myNames[name] {
			return fmt.Sprintf("the reference refuses member name %q, leasedeck does not", name)
		}
	}
	for name := range myNames {
		if !refNames[name] {
			return fmt.Sprintf("leasedeck refuses member name %q, the reference does not", name)
		}
	}
	for _, r := range ref {
		if !r.leaf || r.underContains || r.underPropName || r.keyword == "propertyNames" {
			continue
		}
		if typeAt[r.path] && r.keyword != "type" {
			continue
		}
		if !mineSet[pk{r.path, r.keyword}] {
			return fmt.Sprintf("the reference reports %s %s, leasedeck does not", r.path, r.keyword)
		}
	}
	return ""
}

// memberNameIn reads the quoted name from `member name "x" is not allowed: ...`.
func memberNameIn(msg string) (string, bool) {
	rest, ok := strings.CutPrefix(msg, "member name ")
	if !ok {
		return "", false
	}
	var name string
	if _, err := fmt.Sscanf(rest, "%q", &name); err != nil {
		return "", false
	}
	return name, true
}

func splitPointer(p string) []string {
	if p == "" {
		return nil
	}
	toks := strings.Split(p[1:], "/")
	for i, t := range toks {
		toks[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return toks
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

// ---- instances ----

type fixture struct {
	name  string
	shape Shape // "" when no shape matches its name
	v     any
}

func corpusFixtures(tb testing.TB) []fixture {
	tb.Helper()
	var out []fixture
	err := fs.WalkDir(contract.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".expect.json") {
			return err
		}
		if !strings.Contains(p, "fixtures/") {
			return nil
		}
		raw, err := fs.ReadFile(contract.FS(), p)
		if err != nil {
			return err
		}
		v, err := ParseJSON(raw)
		if err != nil {
			return nil // an invalid-JSON fixture
		}
		f := fixture{name: p, v: v}
		prefix := strings.SplitN(path.Base(p), ".", 2)[0]
		for _, s := range Shapes() {
			if string(s) == prefix {
				f.shape = s
			}
		}
		out = append(out, f)
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	for _, src := range lifecycleSeeds {
		v, err := ParseJSON([]byte(src.json))
		if err != nil {
			tb.Fatalf("seed %s: %v", src.json, err)
		}
		out = append(out, fixture{name: "seed:" + src.json, shape: src.shape, v: v})
	}
	return out
}

// The contract has no lifecycle fixtures; these are valid requests and
// responses, one per op, for the mutator to start from.
var lifecycleSeeds = []struct {
	shape Shape
	json  string
}{
	{LifecycleRequest, `{"op":"begin","client":"claude-code","prompt":"fix the bug","turn":null,"client_version":"1.0","adapter_version":null,"project":"p","session":"s","integration_mode":"managed_hook"}`},
	{LifecycleRequest, `{"op":"pre-tool","admission_id":"a1","tool":"Bash","tool_input":{"command":"ls"},"project":null}`},
	{LifecycleRequest, `{"op":"post-tool","admission_id":"a1","tool":"Bash","status":"success","duration_ms":12,"result":{"ok":true}}`},
	{LifecycleRequest, `{"op":"telemetry","admission_id":"a1","model":"m","runtime_ms":5,"input_tokens":10,"output_tokens":20,"cache_tokens":null,"cost_amount":0.25,"cost_currency":"USD","cost_source":"provider_reported"}`},
	{LifecycleRequest, `{"op":"finalize","admission_id":"a1","stop_reason":"completed","assistant_summary":"done","changed_files":["a.go","b.go"]}`},
	{LifecycleRequest, `{"op":"abort","admission_id":null,"reason":"user"}`},
	{LifecycleResponse, `{"op":"pre-tool","decision":"allow","schema_version":"1.0","admission_id":"a1","trace_id":null,"integration_mode":"managed_hook","certification_strength":"managed_hook","telemetry_quality":"complete","reason":null,"warnings":["w"],"context":null}`},
	{LifecycleResponse, `{"op":"begin","decision":"deny","schema_version":"1.0"}`},
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = deepCopy(e)
		}
		return a
	}
	return v
}

// schemaStrings gathers strings a schema names (enum and const values,
// property names), so that mutations hit the interesting branches.
func schemaStrings(tb testing.TB, s Shape) (values, names []string) {
	raw := lifecycleSchema
	if s != LifecycleRequest && s != LifecycleResponse {
		raw, _ = contract.Schema(contractFile(s))
	}
	doc, err := ParseJSON(raw)
	if err != nil {
		tb.Fatal(err)
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				switch k {
				case "enum":
					for _, ev := range e.([]any) {
						if str, ok := ev.(string); ok {
							values = append(values, str)
						}
					}
				case "const":
					if str, ok := e.(string); ok {
						values = append(values, str)
					}
				case "properties", "required":
					if props, ok := e.(map[string]any); ok {
						for name := range props {
							names = append(names, name)
						}
					}
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(doc)
	sort.Strings(values)
	sort.Strings(names)
	return values, names
}

var interestingStrings = []string{
	"", "x", "../x", "a/../b", "..", "a/..", "../", "/abs", "~/x", "~", "C:x", "c:/x", `a\b`, "*", "**/*.go",
	"*.example.com", "a.*.com", "API.example.com", "example.com.", "host:80", "http://x.com", "x y", "x\ty",
	"127.0.0.1", "localhost", "-bad.com", "a-.com", "tool name", "cdf_tool", "server/tool", "git", "/usr/bin/git",
	"rm;ls", "a+b", ".hidden", strings.Repeat("a", 64), strings.Repeat("a", 120), strings.Repeat("a", 121),
	strings.Repeat("a", 128), strings.Repeat("a", 129), strings.Repeat("b", 253), strings.Repeat("b", 254),
	strings.Repeat("é", 120), strings.Repeat("é", 121), strings.Repeat("é", 500), strings.Repeat("é", 501),
	strings.Repeat("x", 300), strings.Repeat("x", 301), "a\u0001b", "x\x7f", "line\nbreak", "\xed\xa0\x80",
	strings.Repeat("\xed\xa0\x80", 120), "tab\there", "💩", strings.Repeat("💩", 121), "\xff\xfe",
	"01234567-89ab-cdef-0123-456789abcdef", "01234567-89AB-cdef-0123-456789abcdef", "01234567-89ab-cdef-0123-456789abcde",
	strings.Repeat("0a", 32), strings.Repeat("0a", 31) + "0", strings.Repeat("0A", 32), strings.Repeat("0a", 33),
	"2026-10-05T12:00:00.000Z", "2026-10-05T12:00:00Z", "2026-10-05T12:00:00.123456+02:00", "2026-10-05 12:00:00",
	"1.2", "1", "1.2.3", "v1.2", "R1", "R0", "R12", "R123", "runtime_error:x_1", "runtime_error:", "vendor:acme:X.y-1",
	"vendor:Acme:x", "issuer", "a.b", "a.b.c", "A.b", "a", "spec-1", "-spec", "file_path", "filePath", "path",
	"tokenCount", "fooToken", "my-secret", "Authorization", "contentType", "safe_key", "requestId", "apiToken",
}

var interestingNumbers = []string{
	"0", "-0", "1", "-1", "1.5", "1.0", "1e2", "1E+2", "1.5e1", "2.5e-1", "16", "17", "256", "257", "5", "6", "0.1",
	"9007199254740991", "9007199254740992", "9007199254740993", "9007199254740991.0", "9.007199254740991e15",
	"9.007199254740993e15", "-9007199254740993", "1e400", "-1e400", "1e-400", "123456789012345678901234567890",
	"0.0", "-0.0", "4", "3.0000000000000000001", "1e15", "100000000000000000000",
}

type mutator struct {
	rng    *rand.Rand
	byKey  map[string][]any // values seen under each member name in the fixtures
	values []string         // schema enum values
	names  []string         // schema property names
	pool   []any            // subtrees of fixtures
}

func (m *mutator) scalar() any {
	switch m.rng.Intn(6) {
	case 0:
		return json.Number(interestingNumbers[m.rng.Intn(len(interestingNumbers))])
	case 1:
		if len(m.values) > 0 {
			return m.values[m.rng.Intn(len(m.values))]
		}
		fallthrough
	case 2, 3:
		return interestingStrings[m.rng.Intn(len(interestingStrings))]
	case 4:
		return []any{true, false, nil}[m.rng.Intn(3)]
	}
	return deepCopy(m.pool[m.rng.Intn(len(m.pool))])
}

func (m *mutator) value() any {
	switch m.rng.Intn(8) {
	case 0:
		return map[string]any{}
	case 1:
		return []any{m.scalar()}
	case 2:
		return []any{}
	case 3:
		return deepCopy(m.pool[m.rng.Intn(len(m.pool))])
	}
	return m.scalar()
}

func (m *mutator) key() string {
	if len(m.names) > 0 && m.rng.Intn(2) == 0 {
		return m.names[m.rng.Intn(len(m.names))]
	}
	return interestingStrings[m.rng.Intn(len(interestingStrings))]
}

type slot struct {
	get func() any
	set func(any)
	del func()
}

func slots(v any, out *[]slot) {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			e := x[k]
			*out = append(*out, slot{
				get: func() any { return x[k] },
				set: func(n any) { x[k] = n },
				del: func() { delete(x, k) },
			})
			slots(e, out)
		}
	case []any:
		for i, e := range x {
			i := i
			*out = append(*out, slot{
				get: func() any { return x[i] },
				set: func(n any) { x[i] = n },
			})
			slots(e, out)
		}
	}
}

// mutate changes v in place (v must be a container) and returns it.
func (m *mutator) mutate(v any) any {
	var all []slot
	slots(v, &all)
	if len(all) == 0 {
		return m.value()
	}
	s := all[m.rng.Intn(len(all))]
	switch m.rng.Intn(15) {
	case 0: // drop a member
		if s.del != nil {
			s.del()
		} else {
			s.set(m.value())
		}
	case 1, 2: // replace a value
		s.set(m.value())
	case 3: // add a member to an object
		if obj, ok := s.get().(map[string]any); ok {
			obj[m.key()] = m.value()
		} else if obj, ok := v.(map[string]any); ok {
			obj[m.key()] = m.value()
		}
	case 4: // grow or shrink an array
		switch a := s.get().(type) {
		case []any:
			if len(a) > 0 && m.rng.Intn(3) == 0 {
				s.set(append(a, deepCopy(a).([]any)...)) // double it: maxItems, uniqueness
			} else if len(a) > 0 && m.rng.Intn(2) == 0 {
				s.set(a[:len(a)-1])
			} else if len(a) > 0 && m.rng.Intn(2) == 0 {
				s.set(append(a, deepCopy(a[m.rng.Intn(len(a))])))
			} else {
				s.set(append(a, m.scalar()))
			}
		default:
			s.set([]any{s.get()})
		}
	case 5: // nest
		cur := s.get()
		for d := m.rng.Intn(6) + 1; d > 0; d-- {
			if m.rng.Intn(2) == 0 {
				cur = []any{cur}
			} else {
				cur = map[string]any{m.key(): cur}
			}
		}
		s.set(cur)
	case 6: // tweak a string
		if str, ok := s.get().(string); ok {
			tweaks := []string{str + "x", "/" + str, str + "/..", strings.ToUpper(str), str + " ", str + "é",
				str + "\xed\xa0\x80", str + strings.Repeat("z", 120), "", str[:len(str)/2], `\` + str}
			s.set(tweaks[m.rng.Intn(len(tweaks))])
		} else {
			s.set(m.scalar())
		}
	case 7: // a number
		s.set(json.Number(interestingNumbers[m.rng.Intn(len(interestingNumbers))]))
	case 8: // a schema value (enum members, ops, events)
		if len(m.values) > 0 {
			s.set(m.values[m.rng.Intn(len(m.values))])
		} else {
			s.set(m.scalar())
		}
	case 9: // move a subtree somewhere else
		s.set(deepCopy(all[m.rng.Intn(len(all))].get()))
	case 10, 11, 12: // a value some fixture has under the same member name
		if obj, ok := s.get().(map[string]any); ok && len(obj) > 0 {
			keys := sortedKeys(obj)
			k := keys[m.rng.Intn(len(keys))]
			if seen := m.byKey[k]; len(seen) > 0 {
				obj[k] = deepCopy(seen[m.rng.Intn(len(seen))])
			}
		}
	case 14: // double every array: maxItems, uniqueness, long lists
		for _, sl := range all {
			if a, ok := sl.get().([]any); ok {
				sl.set(append(a, deepCopy(a).([]any)...))
			}
		}
	case 13: // an unknown member, which these schemas allow
		if obj, ok := s.get().(map[string]any); ok {
			obj[fmt.Sprintf("x_extra_%d", m.rng.Intn(100))] = m.value()
		}
	}
	return v
}

func collectByKey(v any, out map[string][]any) {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			out[k] = append(out[k], x[k])
			collectByKey(x[k], out)
		}
	case []any:
		for _, e := range x {
			collectByKey(e, out)
		}
	}
}

func collectPool(v any, out *[]any) {
	*out = append(*out, v)
	switch x := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			collectPool(x[k], out)
		}
	case []any:
		for _, e := range x {
			collectPool(e, out)
		}
	}
}

// mutationsPerShape is the number of generated instances per shape.
func mutationsPerShape() int {
	switch {
	case testing.Short():
		return 500
	case raceEnabled:
		return 2000
	}
	return 10000
}

func TestDifferential(t *testing.T) {
	fixtures := corpusFixtures(t)
	var pool []any
	byKey := map[string][]any{}
	for _, f := range fixtures {
		collectPool(f.v, &pool)
		if strings.Contains(f.name, "/valid/") || strings.HasPrefix(f.name, "seed:") {
			collectByKey(f.v, byKey)
		}
	}
	total := diffStats{keywords: map[string]int{}}
	for _, s := range Shapes() {
		t.Run(string(s), func(t *testing.T) {
			var st diffStats
			// Every fixture against every shape: a fixture of another
			// shape is a rich invalid instance.
			for _, f := range fixtures {
				compare(t, s, f.v, f.name, &st)
			}
			values, names := schemaStrings(t, s)
			m := &mutator{rng: rand.New(rand.NewSource(int64(len(s)) * 7919)), values: values, names: names, pool: pool, byKey: byKey}
			var seeds []any
			for _, f := range fixtures {
				if f.shape == s {
					seeds = append(seeds, f.v)
				}
			}
			if len(seeds) == 0 {
				t.Fatalf("no seed instances for %s", s)
			}
			for i := 0; i < mutationsPerShape(); i++ {
				v := deepCopy(seeds[m.rng.Intn(len(seeds))])
				for k := m.rng.Intn(4) - 1; k >= 0; k-- {
					v = m.mutate(v)
				}
				compare(t, s, v, fmt.Sprintf("mutation %d", i), &st)
			}
			t.Logf("%s: %d instances, %d valid, %d invalid (%d errors)", s, st.valid+st.invalid, st.valid, st.invalid, st.errors)
			if st.valid < 10 || st.invalid < 100 {
				t.Errorf("too one-sided a mix to prove anything: %+v", st)
			}
			total.valid += st.valid
			total.invalid += st.invalid
			total.errors += st.errors
			for k, n := range st.keywords {
				total.keywords[k] += n
			}
		})
	}
	t.Logf("all shapes: %d instances, %d valid, %d invalid (%d errors); errors by keyword: %v",
		total.valid+total.invalid, total.valid, total.invalid, total.errors, total.keywords)
	// Every asserting keyword the schemas use must have been seen failing.
	// (const appears only in if-conditions and in the then-branches they
	// guard, where it cannot fail; TestKeywords covers it.)
	for _, k := range []string{"type", "enum", "required", "pattern", "minLength", "maxLength",
		"minimum", "maximum", "minItems", "maxItems", "contains", "anyOf", "not", "propertyNames"} {
		if total.keywords[k] < 3 && !t.Failed() && !testing.Short() {
			t.Errorf("keyword %s failed only %d times: the generator does not reach it", k, total.keywords[k])
		}
	}
}

// FuzzValidateDifferential: arbitrary JSON, as the manifest and the lease,
// must get the same verdict from both validators.
func FuzzValidateDifferential(f *testing.F) {
	for _, fx := range corpusFixtures(f) {
		if fx.shape == Manifest || fx.shape == Lease || fx.shape == LeaseRecord {
			b, _ := json.Marshal(fx.v)
			f.Add(b)
		}
	}
	f.Add([]byte(`{"budget":{"steps":9007199254740993}}`))
	f.Add([]byte(`"\ud800"`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ParseJSON(data)
		if err != nil {
			return
		}
		for _, s := range []Shape{Manifest, Lease} {
			compare(t, s, v, "fuzz input", nil)
		}
	})
}
