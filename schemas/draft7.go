package schemas

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"
)

// leasedeck's own JSON Schema draft-07 validator.
//
// It implements the keywords the embedded schemas use, and a few more that
// cost nothing to get right; a schema using any other keyword fails to
// compile with an error naming it, so that a schema update can never be
// half-checked in silence. Supported:
//
//	assertions   type (a name or a list; "integer" is any number with no
//	             fractional part, so 1.0 is one), enum, const, multipleOf,
//	             minimum, maximum, exclusiveMinimum, exclusiveMaximum (the
//	             draft-07 numeric form), minLength, maxLength (in code
//	             points), pattern (RE2, unanchored), minItems, maxItems,
//	             uniqueItems, minProperties, maxProperties, required
//	applicators  properties, patternProperties, additionalProperties,
//	             propertyNames, dependencies (both forms), items (schema and
//	             tuple form), additionalItems, contains, allOf, anyOf, oneOf,
//	             not, if/then/else, $ref to a JSON pointer in the same
//	             document ("#", "#/definitions/..."), definitions, and the
//	             boolean schemas true and false
//	annotations  $schema (draft-07 only, at the root), $id (at the root),
//	             $comment, title, description, default, examples, readOnly,
//	             writeOnly and format, which draft-07 does not assert by
//	             default and neither does this
//
// Draft-07 ignores the siblings of $ref; a schema that gives $ref an
// asserting sibling is refused rather than silently half-applied.

// typeMask is a set of JSON Schema type names.
type typeMask uint8

const (
	tNull typeMask = 1 << iota
	tBoolean
	tObject
	tArray
	tNumber
	tInteger
	tString
)

var typeNames = []struct {
	name string
	mask typeMask
}{
	{"array", tArray}, {"boolean", tBoolean}, {"integer", tInteger}, {"null", tNull},
	{"number", tNumber}, {"object", tObject}, {"string", tString},
}

func (m typeMask) String() string {
	var names []string
	for _, t := range typeNames {
		if m&t.mask != 0 {
			names = append(names, t.name)
		}
	}
	return strings.Join(names, " or ")
}

// schemaNode is one compiled schema (an object or a boolean).
type schemaNode struct {
	loc   string // its JSON pointer in the document, for messages
	never bool   // the false schema
	empty bool   // asserts nothing: true, {} or annotations only

	ref *schemaNode

	types typeMask // 0: any type

	enum        []any               // enum (or const) values; nil when absent
	enumStrings map[string]struct{} // the string members of a large enum
	isConst     bool

	minLength, maxLength int // -1: absent
	pattern              *pattern

	minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf *limit

	properties         map[string]*schemaNode
	propertyList       []namedNode // properties, sorted by name
	patternProperties  []patternNode
	additional         *schemaNode // nil: any member allowed
	required           []string
	propertyNames      *schemaNode
	depRequired        []dependency
	depSchemas         []namedNode
	minProps, maxProps int

	items           *schemaNode   // the single-schema form
	tupleItems      []*schemaNode // the array form
	additionalItems *schemaNode
	minItems        int
	maxItems        int
	uniqueItems     bool
	contains        *schemaNode

	allOf, anyOf, oneOf []*schemaNode
	not                 *schemaNode
	ifS, thenS, elseS   *schemaNode

	notText      string // what `not` forbids, for messages
	containsText string // what `contains` asks for, for messages

	// forbidden holds the {"not": {"pattern": P}} forms of this schema's
	// not and allOf, taken out of them at compile time: the path lists use
	// five each, and checking a pattern directly is much cheaper than
	// three levels of subschema. Errors are the same `not` errors.
	forbidden []forbiddenPattern

	// Which groups of keywords are present, so the validator can skip
	// the rest.
	stringChecks, numberChecks, objectChecks, arrayChecks, applicators bool

	done bool  // compiled; a node reached again through a $ref cycle is not yet
	mark uint8 // checkCycles' colour
}

type forbiddenPattern struct {
	re   *pattern
	text string
}

type namedNode struct {
	name string
	node *schemaNode
}

type patternNode struct {
	re   *pattern
	node *schemaNode
}

type dependency struct {
	name     string
	required []string
}

// schemaDoc is a compiled schema document: every schema position in it,
// by JSON pointer.
type schemaDoc struct {
	name  string
	root  any
	id    string
	nodes map[string]*schemaNode
}

// schemaError is a schema the validator cannot compile: an unsupported or
// malformed keyword, or an unresolvable $ref.
type schemaError struct {
	doc, loc, keyword, msg string
}

func (e *schemaError) Error() string {
	return fmt.Sprintf("schema %s at %s: keyword %q: %s", e.doc, e.loc, e.keyword, e.msg)
}

const draft07 = "http://json-schema.org/draft-07/schema"

// annotations are the keywords draft-07 defines without assertion, plus
// format, which draft-07 does not assert unless asked to.
var annotations = map[string]bool{
	"$comment": true, "title": true, "description": true, "default": true, "examples": true,
	"readOnly": true, "writeOnly": true, "format": true, "$schema": true, "$id": true,
}

// knownKeywords are the keywords compileObject implements; keywordFamily
// says which method compiles each.
var knownKeywords = map[string]bool{
	"$ref": true, "$schema": true, "$id": true, "$comment": true, "title": true, "description": true,
	"default": true, "examples": true, "readOnly": true, "writeOnly": true, "format": true,
	"definitions": true, "type": true, "enum": true, "const": true, "multipleOf": true, "minimum": true,
	"maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true, "minLength": true,
	"maxLength": true, "minItems": true, "maxItems": true, "minProperties": true, "maxProperties": true,
	"pattern": true, "uniqueItems": true, "items": true, "additionalItems": true, "contains": true,
	"required": true, "properties": true, "patternProperties": true, "additionalProperties": true,
	"propertyNames": true, "dependencies": true, "allOf": true, "anyOf": true, "oneOf": true, "not": true,
	"if": true, "then": true, "else": true,
}

// compileDocument compiles every schema position in a document, reachable
// or not, so that an unsupported keyword anywhere in it is reported.
func compileDocument(name string, raw []byte) (*schemaDoc, error) {
	root, err := ParseJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	d := &schemaDoc{name: name, root: root, nodes: map[string]*schemaNode{}}
	if m, ok := root.(map[string]any); ok {
		if id, ok := m["$id"].(string); ok {
			d.id, _, _ = strings.Cut(id, "#")
		}
	}
	if _, err := d.node(""); err != nil {
		return nil, err
	}
	if err := d.checkCycles(); err != nil {
		return nil, err
	}
	return d, nil
}

func (d *schemaDoc) fail(ptr, keyword, format string, args ...any) error {
	return &schemaError{doc: d.name, loc: "#" + ptr, keyword: keyword, msg: fmt.Sprintf(format, args...)}
}

func escapeToken(t string) string {
	if !strings.ContainsAny(t, "~/") {
		return t
	}
	return strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
}

// lookup resolves a JSON pointer in the document.
func (d *schemaDoc) lookup(ptr string) (any, bool) {
	cur := d.root
	if ptr == "" {
		return cur, true
	}
	if ptr[0] != '/' {
		return nil, false
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[tok]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i := 0
			if tok == "" || (tok[0] == '0' && len(tok) > 1) {
				return nil, false
			}
			for _, ch := range tok {
				if ch < '0' || ch > '9' || i > len(c) {
					return nil, false
				}
				i = i*10 + int(ch-'0')
			}
			if i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// node compiles the schema at ptr, once.
func (d *schemaDoc) node(ptr string) (*schemaNode, error) {
	if n, ok := d.nodes[ptr]; ok {
		return n, nil
	}
	raw, ok := d.lookup(ptr)
	if !ok {
		return nil, d.fail(ptr, "$ref", "no schema at this location")
	}
	return d.build(ptr, raw)
}

// sub compiles a subschema whose value the caller holds.
func (d *schemaDoc) sub(raw any, ptr string, keyword ...string) (*schemaNode, error) {
	switch len(keyword) {
	case 1:
		ptr = ptr + "/" + escapeToken(keyword[0])
	case 2:
		ptr = ptr + "/" + escapeToken(keyword[0]) + "/" + escapeToken(keyword[1])
	}
	return d.build(ptr, raw)
}

func (d *schemaDoc) build(ptr string, raw any) (*schemaNode, error) {
	if n, ok := d.nodes[ptr]; ok {
		return n, nil
	}
	n := &schemaNode{loc: ptr, minLength: -1, maxLength: -1, maxItems: -1, maxProps: -1}
	d.nodes[ptr] = n // before compiling, so a $ref cycle finds it
	switch s := raw.(type) {
	case bool:
		n.never, n.empty, n.done = !s, s, true
		return n, nil
	case map[string]any:
		if err := d.compileObject(n, ptr, s); err != nil {
			return nil, err
		}
		return n, nil
	}
	return nil, d.fail(ptr, "", "a schema must be an object or a boolean, not %s", jsonTypeName(raw))
}

// onlyPattern returns P for a compiled {"pattern": P} (annotations aside).
func (n *schemaNode) onlyPattern() *pattern {
	if !n.done || n.pattern == nil || n.never || n.ref != nil || n.types != 0 || n.enum != nil ||
		n.minLength >= 0 || n.maxLength >= 0 || n.minimum != nil || n.maximum != nil ||
		n.exclusiveMinimum != nil || n.exclusiveMaximum != nil || n.multipleOf != nil ||
		n.checksObject() || n.checksArray() || n.allOf != nil || n.anyOf != nil ||
		n.oneOf != nil || n.not != nil || n.ifS != nil || n.forbidden != nil {
		return nil
	}
	return n.pattern
}

// forbiddenOf returns P and its message text for a compiled
// {"not": {"pattern": P}} (annotations aside).
func (n *schemaNode) forbiddenOf() (forbiddenPattern, bool) {
	if !n.done || n.not == nil || n.never || n.ref != nil || n.types != 0 || n.enum != nil ||
		n.minLength >= 0 || n.maxLength >= 0 || n.pattern != nil || n.minimum != nil ||
		n.maximum != nil || n.exclusiveMinimum != nil || n.exclusiveMaximum != nil ||
		n.multipleOf != nil || n.checksObject() || n.checksArray() || n.allOf != nil ||
		n.anyOf != nil || n.oneOf != nil || n.ifS != nil || n.forbidden != nil {
		return forbiddenPattern{}, false
	}
	p := n.not.onlyPattern()
	if p == nil {
		return forbiddenPattern{}, false
	}
	return forbiddenPattern{p, n.notText}, true
}

func (n *schemaNode) hoistForbidden() {
	if n.not != nil {
		if p := n.not.onlyPattern(); p != nil {
			n.forbidden = append(n.forbidden, forbiddenPattern{p, n.notText})
			n.not = nil
		}
	}
	var rest []*schemaNode
	for _, c := range n.allOf {
		if f, ok := c.forbiddenOf(); ok {
			n.forbidden = append(n.forbidden, f)
		} else {
			rest = append(rest, c)
		}
	}
	if len(rest) != len(n.allOf) {
		n.allOf = rest
	}
}

// isTrivial: an empty schema already compiled (true or {}). A node still
// being compiled (reached through a $ref cycle) is not known to be empty.
func (n *schemaNode) isTrivial() bool { return n.done && n.empty }

func (n *schemaNode) isEmpty() bool {
	return !n.never && n.ref == nil && n.types == 0 && n.enum == nil && n.minLength < 0 &&
		n.maxLength < 0 && n.pattern == nil && n.minimum == nil && n.maximum == nil &&
		n.exclusiveMinimum == nil && n.exclusiveMaximum == nil && n.multipleOf == nil &&
		!n.checksObject() && !n.checksArray() && n.allOf == nil && n.anyOf == nil &&
		n.oneOf == nil && n.not == nil && n.ifS == nil && n.forbidden == nil
}

func (n *schemaNode) checksObject() bool {
	return n.properties != nil || n.patternProperties != nil || n.additional != nil ||
		n.required != nil || n.propertyNames != nil || n.depRequired != nil ||
		n.depSchemas != nil || n.minProps > 0 || n.maxProps >= 0
}

func (n *schemaNode) checksArray() bool {
	return n.items != nil || n.tupleItems != nil || n.additionalItems != nil || n.minItems > 0 ||
		n.maxItems >= 0 || n.uniqueItems || n.contains != nil
}

// enumIndexMin is the enum size from which string members are looked up
// in a map rather than compared in turn.
const enumIndexMin = 8

func (n *schemaNode) setEnum(values []any) {
	n.enum = values
	strs := 0
	for _, v := range values {
		if _, ok := v.(string); ok {
			strs++
		}
	}
	if strs >= enumIndexMin {
		n.enumStrings = make(map[string]struct{}, strs)
		for _, v := range values {
			if s, ok := v.(string); ok {
				n.enumStrings[s] = struct{}{}
			}
		}
	}
}

func (d *schemaDoc) compileType(ptr string, v any) (typeMask, error) {
	var names []any
	switch t := v.(type) {
	case string:
		names = []any{t}
	case []any:
		if len(t) == 0 {
			return 0, d.fail(ptr, "type", "must name at least one type")
		}
		names = t
	default:
		return 0, d.fail(ptr, "type", "must be a type name or an array of them")
	}
	var m typeMask
	for _, name := range names {
		s, _ := name.(string)
		found := false
		for _, t := range typeNames {
			if t.name == s {
				if m&t.mask != 0 {
					return 0, d.fail(ptr, "type", "names %q twice", s)
				}
				m |= t.mask
				found = true
			}
		}
		if !found {
			return 0, d.fail(ptr, "type", "%v is not a JSON Schema type", name)
		}
	}
	return m, nil
}

func (d *schemaDoc) stringList(ptr, k string, v any) ([]string, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, d.fail(ptr, k, "must be an array of strings")
	}
	out := make([]string, 0, len(arr))
	seen := map[string]bool{}
	for _, e := range arr {
		s, ok := e.(string)
		if !ok {
			return nil, d.fail(ptr, k, "must be an array of strings")
		}
		if seen[s] {
			return nil, d.fail(ptr, k, "names %q twice", s)
		}
		seen[s] = true
		out = append(out, s)
	}
	return out, nil
}

// resolveRef turns a $ref into a JSON pointer in this document.
func (d *schemaDoc) resolveRef(ptr string, v any) (string, error) {
	ref, ok := v.(string)
	if !ok {
		return "", d.fail(ptr, "$ref", "must be a string")
	}
	frag, local := strings.CutPrefix(ref, "#")
	if !local && d.id != "" {
		frag, local = strings.CutPrefix(ref, d.id+"#")
	}
	if !local {
		return "", d.fail(ptr, "$ref", "%q is not a reference into this document; only local references (#/...) are supported", ref)
	}
	target, err := url.PathUnescape(frag)
	if err != nil || (target != "" && target[0] != '/') {
		return "", d.fail(ptr, "$ref", "%q is not a JSON pointer fragment", ref)
	}
	if _, ok := d.lookup(target); !ok {
		return "", d.fail(ptr, "$ref", "%q resolves to nothing", ref)
	}
	return target, nil
}

// checkCycles refuses a schema that could apply itself to the same
// instance forever: a cycle of $ref and in-place applicators (allOf, not,
// if, ...) with no step into a member or an item.
func (d *schemaDoc) checkCycles() error {
	const (
		white = iota
		grey
		black
	)
	var visit func(n *schemaNode) *schemaNode
	visit = func(n *schemaNode) *schemaNode {
		switch n.mark {
		case grey:
			return n
		case black:
			return nil
		}
		n.mark = grey
		for _, c := range [...]*schemaNode{n.ref, n.not, n.ifS, n.thenS, n.elseS} {
			if c != nil {
				if bad := visit(c); bad != nil {
					return bad
				}
			}
		}
		for _, list := range [...][]*schemaNode{n.allOf, n.anyOf, n.oneOf} {
			for _, c := range list {
				if bad := visit(c); bad != nil {
					return bad
				}
			}
		}
		for _, dep := range n.depSchemas {
			if bad := visit(dep.node); bad != nil {
				return bad
			}
		}
		n.mark = black
		return nil
	}
	for _, n := range d.nodes {
		if bad := visit(n); bad != nil {
			return d.fail(bad.loc, "$ref", "a reference cycle that never moves into a member or an item")
		}
	}
	return nil
}

// describeNot says what a `not` forbids, compactly: the pattern when the
// forbidden form is just one, else its description, else its JSON.
func describeNot(sub any) string {
	if m, ok := sub.(map[string]any); ok {
		if p, ok := m["pattern"].(string); ok && len(m) <= 2 {
			return "the forbidden pattern " + printablePattern(p)
		}
		if desc, ok := m["description"].(string); ok && desc != "" {
			return desc
		}
	}
	return describeForm(sub)
}

// describeForm renders a subschema as compact JSON without $comments.
func describeForm(sub any) string {
	b, err := json.Marshal(withoutComments(sub))
	if err != nil {
		return "the forbidden form"
	}
	const max = 240
	if len(b) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(b[cut]) {
			cut--
		}
		return string(b[:cut]) + "…"
	}
	return string(b)
}

func withoutComments(v any) any {
	switch x := v.(type) {
	case map[string]any:
		c := make(map[string]any, len(x))
		for k, e := range x {
			if k != "$comment" {
				c[k] = withoutComments(e)
			}
		}
		return c
	case []any:
		c := make([]any, len(x))
		for i, e := range x {
			c[i] = withoutComments(e)
		}
		return c
	}
	return v
}

func jsonTypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case map[string]any:
		return "object"
	case []any, []string:
		return "array"
	}
	var buf [32]byte
	if n, ok, valid := numberOf(v, buf[:0]); ok {
		if !valid {
			return "an invalid number"
		}
		if n.isInt() {
			return "integer"
		}
		return "number"
	}
	return fmt.Sprintf("a Go %T", v)
}
