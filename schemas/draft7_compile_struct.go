package schemas

import (
	"sort"
	"strconv"
)

// The keyword families that hold subschemas: arrays, objects and the
// in-place applicators.

func (c *objectCompiler) arrayKeywords(k string, v any) error {
	n := c.n
	var err error
	switch k {
	case "minItems":
		n.minItems, err = c.count(k)
	case "maxItems":
		n.maxItems, err = c.count(k)
	case "uniqueItems":
		b, ok := v.(bool)
		if !ok {
			return c.fail(k, "must be a boolean")
		}
		n.uniqueItems = b
	case "items":
		if arr, ok := v.([]any); ok {
			n.tupleItems = make([]*schemaNode, len(arr))
			for i := range arr {
				if n.tupleItems[i], err = c.sub(arr[i], k, strconv.Itoa(i)); err != nil {
					return err
				}
			}
		} else {
			n.items, err = c.sub(v, k)
		}
	case "additionalItems":
		if _, tuple := c.s["items"].([]any); !tuple {
			return c.fail(k, "has no effect unless items is an array of schemas")
		}
		n.additionalItems, err = c.sub(v, k)
	case "contains":
		if n.contains, err = c.sub(v, k); err != nil {
			return err
		}
		n.containsText = describeForm(v)
	}
	return err
}

func (c *objectCompiler) objectKeywords(k string, v any) error {
	n := c.n
	var err error
	switch k {
	case "minProperties":
		n.minProps, err = c.count(k)
	case "maxProperties":
		n.maxProps, err = c.count(k)
	case "required":
		n.required, err = c.d.stringList(c.ptr, k, v)
	case "properties":
		return c.properties(k, v)
	case "patternProperties":
		return c.patternProperties(k, v)
	case "additionalProperties":
		n.additional, err = c.sub(v, k)
	case "propertyNames":
		n.propertyNames, err = c.sub(v, k)
	case "dependencies":
		return c.dependencies(k, v)
	}
	return err
}

func (c *objectCompiler) properties(k string, v any) error {
	props, ok := v.(map[string]any)
	if !ok {
		return c.fail(k, "must be an object of schemas")
	}
	c.n.properties = make(map[string]*schemaNode, len(props))
	for name := range props {
		sub, err := c.sub(props[name], k, name)
		if err != nil {
			return err
		}
		c.n.properties[name] = sub
		c.n.propertyList = append(c.n.propertyList, namedNode{name, sub})
	}
	return nil
}

// sortedNames lists an object's member names in order, so that the
// compiled lists (and the first error) do not depend on map order.
func sortedNames(m map[string]any) []string {
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

func (c *objectCompiler) patternProperties(k string, v any) error {
	pats, ok := v.(map[string]any)
	if !ok {
		return c.fail(k, "must be an object of schemas")
	}
	for _, name := range sortedNames(pats) {
		re, err := compilePattern(name)
		if err != nil {
			return c.fail(k, "%q is not an RE2 regular expression: %v", name, err)
		}
		sub, err := c.sub(pats[name], k, name)
		if err != nil {
			return err
		}
		c.n.patternProperties = append(c.n.patternProperties, patternNode{re, sub})
	}
	return nil
}

func (c *objectCompiler) dependencies(k string, v any) error {
	deps, ok := v.(map[string]any)
	if !ok {
		return c.fail(k, "must be an object")
	}
	for _, name := range sortedNames(deps) {
		if arr, ok := deps[name].([]any); ok {
			req, err := c.d.stringList(c.ptr, k, arr)
			if err != nil {
				return err
			}
			c.n.depRequired = append(c.n.depRequired, dependency{name, req})
			continue
		}
		sub, err := c.sub(deps[name], k, name)
		if err != nil {
			return err
		}
		c.n.depSchemas = append(c.n.depSchemas, namedNode{name, sub})
	}
	return nil
}

func (c *objectCompiler) applicatorKeywords(k string, v any) error {
	n := c.n
	var err error
	switch k {
	case "allOf":
		n.allOf, err = c.schemaList(k)
	case "anyOf":
		n.anyOf, err = c.schemaList(k)
	case "oneOf":
		n.oneOf, err = c.schemaList(k)
	case "not":
		if n.not, err = c.sub(v, k); err != nil {
			return err
		}
		n.notText = describeNot(v)
	case "if":
		n.ifS, err = c.sub(v, k)
	case "then", "else":
		if _, ok := c.s["if"]; !ok {
			return c.fail(k, "has no effect without if")
		}
		sub, err := c.sub(v, k)
		if err != nil {
			return err
		}
		if k == "then" {
			n.thenS = sub
		} else {
			n.elseS = sub
		}
	}
	return err
}
