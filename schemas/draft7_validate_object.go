package schemas

import "fmt"

// validateObject applies the object keywords in the order of their
// families: sizes, members, member names, dependencies. Unless collecting
// every error it stops at the first that fails.
func (vd *validator) validateObject(n *schemaNode, obj map[string]any) bool {
	ok := vd.objectSize(n, obj)
	if !ok && !vd.collect {
		return false
	}
	if !vd.objectMembers(n, obj) {
		if !vd.collect {
			return false
		}
		ok = false
	}
	if n.propertyNames != nil && !n.propertyNames.empty && !vd.objectNames(n, obj) {
		if !vd.collect {
			return false
		}
		ok = false
	}
	return vd.objectDependencies(n, obj) && ok
}

// objectSize checks required, minProperties and maxProperties.
func (vd *validator) objectSize(n *schemaNode, obj map[string]any) bool {
	ok := true
	fail := func() bool {
		ok = false
		return !vd.collect
	}
	if len(n.required) > 0 {
		var missing []string
		for _, name := range n.required {
			if _, has := obj[name]; !has {
				if !vd.collect {
					return false
				}
				missing = append(missing, name)
			}
		}
		if len(missing) > 0 {
			ok = false
			msg := "missing required member " + quoteList(missing)
			if len(missing) > 1 {
				msg = "missing required members " + quoteList(missing)
			}
			vd.add("required", msg, msg)
		}
	}
	if n.minProps > 0 && len(obj) < n.minProps {
		if vd.collect {
			msg := fmt.Sprintf("must have at least %d members, not %d", n.minProps, len(obj))
			vd.add("minProperties", msg, msg)
		}
		if fail() {
			return false
		}
	}
	if n.maxProps >= 0 && len(obj) > n.maxProps {
		if vd.collect {
			msg := fmt.Sprintf("must have at most %d members, not %d", n.maxProps, len(obj))
			vd.add("maxProperties", msg, msg)
		}
		if fail() {
			return false
		}
	}
	return ok
}

// objectMembers checks each member against properties,
// patternProperties and additionalProperties.
func (vd *validator) objectMembers(n *schemaNode, obj map[string]any) bool {
	if n.patternProperties == nil && n.additional == nil {
		return vd.namedMembers(n, obj)
	}
	if len(obj) == 0 {
		return true
	}
	ok := true
	fail := func() bool {
		ok = false
		return !vd.collect
	}
	var refused []string
	visit := func(k string, v any) bool {
		matched := false
		if c := n.properties[k]; c != nil {
			matched = true
			if !vd.member(c, k, v) && fail() {
				return false
			}
		}
		for _, pp := range n.patternProperties {
			if pp.re.match(k) {
				matched = true
				if !vd.member(pp.node, k, v) && fail() {
					return false
				}
			}
		}
		if matched || n.additional == nil {
			return true
		}
		if n.additional.never {
			if fail() {
				return false
			}
			refused = append(refused, k)
		} else if !vd.member(n.additional, k, v) && fail() {
			return false
		}
		return true
	}
	if vd.collect {
		for _, k := range sortedKeys(obj) { // for a stable error order
			visit(k, obj[k])
		}
	} else {
		for k, v := range obj {
			if !visit(k, v) {
				return false
			}
		}
	}
	if len(refused) > 0 {
		msg := "member " + quoteList(refused) + " is not allowed"
		if len(refused) > 1 {
			msg = "members " + quoteList(refused) + " are not allowed"
		}
		vd.add("additionalProperties", msg, msg)
	}
	return ok
}

// namedMembers is objectMembers when only properties applies: it walks
// whichever side is smaller.
func (vd *validator) namedMembers(n *schemaNode, obj map[string]any) bool {
	ok := true
	if len(obj) < len(n.propertyList) {
		for k, v := range obj {
			if c := n.properties[k]; c != nil && !vd.member(c, k, v) {
				if !vd.collect {
					return false
				}
				ok = false
			}
		}
		return ok
	}
	for _, p := range n.propertyList {
		if v, has := obj[p.name]; has && !vd.member(p.node, p.name, v) {
			if !vd.collect {
				return false
			}
			ok = false
		}
	}
	return ok
}

// objectNames checks every member name against propertyNames.
func (vd *validator) objectNames(n *schemaNode, obj map[string]any) bool {
	if !vd.collect {
		for k := range obj {
			if !vd.validate(n.propertyNames, k) {
				return false
			}
		}
		return true
	}
	ok := true
	for _, k := range sortedKeys(obj) {
		if vd.probe(n.propertyNames, k) {
			continue
		}
		ok = false
		// Find out why, then report it at the object: the name
		// has no location of its own.
		start := len(vd.errs)
		vd.validate(n.propertyNames, k)
		why := summarize(vd.errs[start:], vd.pointer())
		vd.errs = vd.errs[:start]
		msg := fmt.Sprintf("member name %q is not allowed: %s", k, why)
		vd.add("propertyNames", msg, msg)
	}
	return ok
}

// objectDependencies checks dependencies, both the list and the schema
// forms.
func (vd *validator) objectDependencies(n *schemaNode, obj map[string]any) bool {
	ok := true
	fail := func() bool {
		ok = false
		return !vd.collect
	}
	for _, dep := range n.depRequired {
		if _, has := obj[dep.name]; !has {
			continue
		}
		var missing []string
		for _, r := range dep.required {
			if _, has := obj[r]; !has {
				missing = append(missing, r)
			}
		}
		if len(missing) > 0 {
			if vd.collect {
				msg := fmt.Sprintf("member %q requires %s", dep.name, quoteList(missing))
				vd.add("dependencies", msg, msg)
			}
			if fail() {
				return false
			}
		}
	}
	for _, dep := range n.depSchemas {
		if _, has := obj[dep.name]; has && !vd.validate(dep.node, obj) && fail() {
			return false
		}
	}
	return ok
}
