package schemas

import "fmt"

// validateApplicators applies the in-place applicators: allOf, anyOf and
// oneOf, then not, then if/then/else. Unless collecting every error it
// stops at the first that fails.
func (vd *validator) validateApplicators(n *schemaNode, v any) bool {
	ok := vd.applyAll(n, v)
	if !ok && !vd.collect {
		return false
	}
	if !vd.applyNot(n, v) {
		if !vd.collect {
			return false
		}
		ok = false
	}
	if n.ifS != nil {
		branch := n.elseS
		if vd.probe(n.ifS, v) {
			branch = n.thenS
		}
		if branch != nil && !vd.validate(branch, v) {
			ok = false
		}
	}
	return ok
}

// applyAll checks allOf, anyOf and oneOf.
func (vd *validator) applyAll(n *schemaNode, v any) bool {
	ok := true
	fail := func() bool {
		ok = false
		return !vd.collect
	}
	for _, c := range n.allOf {
		if !vd.validate(c, v) && fail() {
			return false
		}
	}
	if n.anyOf != nil {
		matched := false
		for _, c := range n.anyOf {
			if vd.probe(c, v) {
				matched = true
				break
			}
		}
		if !matched {
			if vd.collect {
				vd.group("anyOf", n.anyOf, v)
			}
			if fail() {
				return false
			}
		}
	}
	if n.oneOf != nil && !vd.applyOneOf(n, v) {
		ok = false
	}
	return ok
}

// applyOneOf checks oneOf: exactly one alternative must match.
func (vd *validator) applyOneOf(n *schemaNode, v any) bool {
	first, second := -1, -1
	for i, c := range n.oneOf {
		if vd.probe(c, v) {
			if first < 0 {
				first = i
			} else {
				second = i
				break
			}
		}
	}
	switch {
	case first < 0:
		if vd.collect {
			vd.group("oneOf", n.oneOf, v)
		}
		return false
	case second >= 0:
		if vd.collect {
			msg := fmt.Sprintf("matches more than one of the allowed forms (%d and %d)", first, second)
			vd.add("oneOf", msg, msg)
		}
		return false
	}
	return true
}

// applyNot checks not, including the forbidden patterns hoisted out of
// allOf (see hoistForbidden).
func (vd *validator) applyNot(n *schemaNode, v any) bool {
	ok := true
	for _, f := range n.forbidden {
		// {"not": {"pattern": P}}: any non-string satisfies {"pattern": P},
		// so only a string that does not match P passes.
		s, isStr := v.(string)
		if isStr && !f.re.match(s) {
			continue
		}
		if !vd.collect {
			return false
		}
		detail := "must not match " + f.text
		if isStr {
			vd.add("not", fmt.Sprintf("%q %s", s, detail), detail)
		} else {
			vd.add("not", detail, detail)
		}
		ok = false
	}
	if n.not != nil && vd.probe(n.not, v) {
		if vd.collect {
			detail := "must not match " + n.notText
			if s, isStr := v.(string); isStr {
				vd.add("not", fmt.Sprintf("%q %s", s, detail), detail)
			} else {
				vd.add("not", detail, detail)
			}
		}
		ok = false
	}
	return ok
}
