package schemas

import (
	"sort"
	"strconv"
	"strings"
)

// objectCompiler compiles one schema object into its node. Each keyword
// family has its own method, so that one family's rules read on their
// own and no single function has to know every keyword.
type objectCompiler struct {
	d   *schemaDoc
	n   *schemaNode
	ptr string
	s   map[string]any
}

// keyword compiles keyword k with the method for its family. A keyword
// outside knownKeywords is refused, never skipped. (A direct switch
// rather than a table of methods: it keeps the compiler on the stack.)
func (c *objectCompiler) keyword(k string, v any) error {
	switch k {
	case "$ref":
		return nil // compiled first, by ref
	case "$schema", "$id", "definitions":
		return c.document(k, v)
	case "$comment", "title", "description", "default", "examples", "readOnly", "writeOnly", "format":
		return nil // annotations assert nothing
	case "type", "enum", "const":
		return c.typeEnumConst(k, v)
	case "multipleOf", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		return c.numberKeywords(k)
	case "minLength", "maxLength", "pattern":
		return c.stringKeywords(k, v)
	case "minItems", "maxItems", "uniqueItems", "items", "additionalItems", "contains":
		return c.arrayKeywords(k, v)
	case "minProperties", "maxProperties", "required", "properties", "patternProperties",
		"additionalProperties", "propertyNames", "dependencies":
		return c.objectKeywords(k, v)
	case "allOf", "anyOf", "oneOf", "not", "if", "then", "else":
		return c.applicatorKeywords(k, v)
	}
	return c.fail(k, notImplemented)
}

// notImplemented is the error for a keyword this validator does not know.
const notImplemented = "not implemented by leasedeck's draft-07 validator"

func (d *schemaDoc) compileObject(n *schemaNode, ptr string, s map[string]any) error {
	// Refuse an unknown keyword first, naming the first in sorted order
	// so the message is stable.
	var unknown []string
	for k := range s {
		if !knownKeywords[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return d.fail(ptr, unknown[0], notImplemented)
	}

	c := objectCompiler{d: d, n: n, ptr: ptr, s: s}
	if err := c.ref(); err != nil {
		return err
	}
	for k, v := range s {
		if err := c.keyword(k, v); err != nil {
			return err
		}
	}
	n.finish()
	return nil
}

// finish derives what the validator's fast paths test, once the node's
// keywords are all compiled.
func (n *schemaNode) finish() {
	if n.ifS != nil && n.thenS == nil && n.elseS == nil {
		n.ifS = nil // if alone asserts nothing
	}
	// A subschema that asserts nothing is the same as none; dropping it
	// keeps the validator on its fast paths (additionalProperties: true
	// would otherwise make it visit every member).
	if n.additional != nil && n.additional.isTrivial() {
		n.additional = nil
	}
	if n.items != nil && n.items.isTrivial() {
		n.items = nil
	}
	n.hoistForbidden()
	n.stringChecks = n.minLength > 0 || n.maxLength >= 0 || n.pattern != nil
	n.numberChecks = n.minimum != nil || n.maximum != nil || n.exclusiveMinimum != nil ||
		n.exclusiveMaximum != nil || n.multipleOf != nil
	n.objectChecks = n.checksObject()
	n.arrayChecks = n.checksArray()
	n.applicators = n.allOf != nil || n.anyOf != nil || n.oneOf != nil || n.not != nil ||
		n.ifS != nil || n.forbidden != nil
	n.done = true
	n.empty = n.isEmpty()
}

func (c *objectCompiler) fail(k, format string, args ...any) error {
	return c.d.fail(c.ptr, k, format, args...)
}

// sub compiles the subschema v found under keyword path k.
func (c *objectCompiler) sub(v any, k ...string) (*schemaNode, error) {
	return c.d.sub(v, c.ptr, k...)
}

// ref compiles $ref before the other keywords, because it decides
// whether they may be there at all.
func (c *objectCompiler) ref() error {
	ref, ok := c.s["$ref"]
	if !ok {
		return nil
	}
	var siblings []string
	for k := range c.s {
		if k != "$ref" && !annotations[k] && k != "definitions" {
			siblings = append(siblings, k)
		}
	}
	if len(siblings) > 0 {
		sort.Strings(siblings)
		return c.fail(siblings[0], "draft-07 ignores every sibling of $ref; move it into the referenced schema or wrap the $ref in allOf")
	}
	target, err := c.d.resolveRef(c.ptr, ref)
	if err != nil {
		return err
	}
	c.n.ref, err = c.d.node(target)
	return err
}

// document compiles the keywords that say where the schema lives:
// $schema, $id and definitions.
func (c *objectCompiler) document(k string, v any) error {
	switch k {
	case "$schema":
		str, ok := v.(string)
		if !ok || c.ptr != "" || strings.TrimSuffix(str, "#") != draft07 {
			return c.fail(k, "only %s# is supported, and only at the document root", draft07)
		}
	case "$id":
		if _, ok := v.(string); !ok || c.ptr != "" {
			return c.fail(k, "an $id below the document root would change how $ref resolves; it is not supported")
		}
	case "definitions":
		defs, ok := v.(map[string]any)
		if !ok {
			return c.fail(k, "must be an object of schemas")
		}
		for name := range defs {
			if _, err := c.sub(defs[name], k, name); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *objectCompiler) typeEnumConst(k string, v any) error {
	var err error
	switch k {
	case "type":
		c.n.types, err = c.d.compileType(c.ptr, v)
	case "enum":
		arr, ok := v.([]any)
		if !ok || len(arr) == 0 {
			return c.fail(k, "must be a non-empty array")
		}
		c.n.setEnum(arr)
	case "const":
		c.n.setEnum([]any{v})
		c.n.isConst = true
	}
	return err
}

// num compiles a numeric bound.
func (c *objectCompiler) num(k string) (*limit, error) {
	l, ok := newLimit(c.s[k])
	if !ok {
		if _, isBool := c.s[k].(bool); isBool && strings.HasPrefix(k, "exclusive") {
			return nil, c.fail(k, "the draft-04 boolean form is not draft-07; give the bound as a number")
		}
		return nil, c.fail(k, "must be a number")
	}
	return l, nil
}

// count compiles a length or size bound.
func (c *objectCompiler) count(k string) (int, error) {
	l, ok := newLimit(c.s[k])
	if !ok || l.d.neg || !l.d.isInt() || !l.isInt64 || l.i > 1<<31 {
		return 0, c.fail(k, "must be a non-negative integer")
	}
	return int(l.i), nil
}

func (c *objectCompiler) numberKeywords(k string) error {
	n := c.n
	var err error
	switch k {
	case "multipleOf":
		if n.multipleOf, err = c.num(k); err != nil {
			return err
		}
		if n.multipleOf.d.neg || n.multipleOf.d.isZero() {
			return c.fail(k, "must be greater than 0")
		}
	case "minimum":
		n.minimum, err = c.num(k)
	case "maximum":
		n.maximum, err = c.num(k)
	case "exclusiveMinimum":
		n.exclusiveMinimum, err = c.num(k)
	case "exclusiveMaximum":
		n.exclusiveMaximum, err = c.num(k)
	}
	return err
}

func (c *objectCompiler) stringKeywords(k string, v any) error {
	n := c.n
	var err error
	switch k {
	case "minLength":
		n.minLength, err = c.count(k)
	case "maxLength":
		n.maxLength, err = c.count(k)
	case "pattern":
		str, ok := v.(string)
		if !ok {
			return c.fail(k, "must be a string")
		}
		if n.pattern, err = compilePattern(str); err != nil {
			return c.fail(k, "%q is not an RE2 regular expression: %v", str, err)
		}
	}
	return err
}

// schemaList compiles allOf, anyOf or oneOf.
func (c *objectCompiler) schemaList(k string) ([]*schemaNode, error) {
	arr, ok := c.s[k].([]any)
	if !ok || len(arr) == 0 {
		return nil, c.fail(k, "must be a non-empty array of schemas")
	}
	out := make([]*schemaNode, len(arr))
	for i := range arr {
		var err error
		if out[i], err = c.sub(arr[i], k, strconv.Itoa(i)); err != nil {
			return nil, err
		}
	}
	return out, nil
}
