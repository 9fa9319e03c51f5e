package schemas

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// A validation runs twice only when the instance is invalid: first as a
// yes/no check that stops at the first failure and allocates nothing, then,
// if that says no, again collecting every error with its location. Valid
// documents, the common case, pay for the first pass alone.

// maxValidateDepth bounds instance nesting during validation. ParseJSON
// already stops at MaxDepth; this catches a Go value that contains itself.
const maxValidateDepth = 2 * MaxDepth

type pathTok struct {
	key string
	idx int // ≥ 0: an array index; -1: the member key
}

// verr is an Error plus what group keywords need to summarise it.
type verr struct {
	Error
	detail string // the message without the instance value in it
	group  bool   // anyOf/oneOf: a summary of other errors, not a leaf
}

type validator struct {
	collect bool // collecting errors, rather than answering yes or no
	errs    []verr
	path    []pathTok
}

var validatorPool = sync.Pool{New: func() any { return &validator{path: make([]pathTok, 0, 16)} }}

// run validates v against root and returns its errors, sorted and
// deduplicated, or nil.
func run(root *schemaNode, v any) []Error {
	vd := validatorPool.Get().(*validator)
	defer validatorPool.Put(vd)
	vd.collect, vd.errs, vd.path = false, vd.errs[:0], vd.path[:0]
	if vd.validate(root, v) {
		return nil
	}
	vd.collect, vd.path = true, vd.path[:0]
	vd.validate(root, v)
	out := make([]Error, 0, len(vd.errs))
	seen := make(map[Error]bool, len(vd.errs))
	for _, e := range vd.errs {
		if !seen[e.Error] {
			seen[e.Error] = true
			out = append(out, e.Error)
		}
	}
	clear(vd.errs)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Keyword < out[j].Keyword
	})
	if len(out) == 0 {
		// Unreachable unless the two passes disagree; never report valid.
		out = append(out, Error{Keyword: "invalid", Message: "the document is invalid"})
	}
	return out
}

func (vd *validator) pointer() string {
	var b strings.Builder
	for _, t := range vd.path {
		b.WriteByte('/')
		if t.idx >= 0 {
			b.WriteString(strconv.Itoa(t.idx))
		} else {
			b.WriteString(escapeToken(t.key))
		}
	}
	return b.String()
}

func (vd *validator) add(keyword, msg, detail string) {
	vd.errs = append(vd.errs, verr{Error: Error{Path: vd.pointer(), Keyword: keyword, Message: msg}, detail: detail})
}

// addAbout adds an error whose message names the instance value first.
func (vd *validator) addAbout(v any, keyword, detail string) {
	vd.add(keyword, describeValue(v)+" "+detail, detail)
}

// probe answers whether v is valid against n without collecting errors.
func (vd *validator) probe(n *schemaNode, v any) bool {
	if n.empty {
		return true
	}
	was := vd.collect
	vd.collect = false
	ok := vd.validate(n, v)
	vd.collect = was
	return ok
}

func (vd *validator) validate(n *schemaNode, v any) bool {
	if n.empty {
		return true
	}
	if n.ref != nil {
		return vd.validate(n.ref, v) // draft-07: siblings of $ref are annotations
	}
	if n.never {
		if vd.collect {
			vd.add("false", "no value is allowed here", "no value is allowed here")
		}
		return false
	}
	if len(vd.path) > maxValidateDepth {
		if vd.collect {
			vd.add("invalid", fmt.Sprintf("nesting deeper than %d levels", maxValidateDepth), "nested too deeply")
		}
		return false
	}

	// Type, then enum/const: either failing is the whole story for this
	// value (as in the reference validator), so both stop here.
	var ok bool
	switch x := v.(type) {
	case string:
		if !vd.typeAndEnum(n, tString, v) {
			return false
		}
		ok = !n.stringChecks || vd.validateString(n, x)
	case map[string]any:
		if !vd.typeAndEnum(n, tObject, v) {
			return false
		}
		ok = !n.objectChecks || vd.validateObject(n, x)
	case []any, []string:
		if !vd.typeAndEnum(n, tArray, v) {
			return false
		}
		ok = !n.arrayChecks || vd.validateArray(n, v)
	case bool:
		if !vd.typeAndEnum(n, tBoolean, v) {
			return false
		}
		ok = true
	case nil:
		if !vd.typeAndEnum(n, tNull, v) {
			return false
		}
		ok = true
	default:
		var buf [32]byte
		num, isNum, valid := numberOf(v, buf[:0])
		if !isNum || !valid {
			if vd.collect {
				msg := fmt.Sprintf("a Go %T is not a JSON value", v)
				if isNum {
					msg = fmt.Sprintf("%v is not a JSON number", v)
				}
				vd.add("type", msg, msg)
			}
			return false
		}
		t := tNumber
		if num.isInt() {
			t |= tInteger
		}
		if !vd.typeAndEnum(n, t, v) {
			return false
		}
		ok = !n.numberChecks || vd.validateNumber(n, v, &num)
	}
	if !ok && !vd.collect {
		return false
	}
	if n.applicators && !vd.validateApplicators(n, v) {
		ok = false
	}
	return ok
}

func (vd *validator) typeAndEnum(n *schemaNode, t typeMask, v any) bool {
	if n.types != 0 && n.types&t == 0 {
		if vd.collect {
			msg := fmt.Sprintf("must be %s, not %s", n.types, jsonTypeName(v))
			vd.add("type", msg, msg)
		}
		return false
	}
	if n.enum != nil && !n.inEnum(v) {
		if vd.collect {
			if n.isConst {
				vd.addAbout(v, "const", "must be "+describeValue(n.enum[0]))
			} else {
				vd.addAbout(v, "enum", "is not one of "+listValues(n.enum))
			}
		}
		return false
	}
	return true
}

func (n *schemaNode) inEnum(v any) bool {
	if s, isStr := v.(string); isStr && n.enumStrings != nil {
		_, found := n.enumStrings[s]
		return found
	}
	for _, e := range n.enum {
		if jsonEqual(v, e) {
			return true
		}
	}
	return false
}

// codePoints counts the code points of s. ParseJSON keeps a lone UTF-16
// surrogate as its three WTF-8 bytes; that is one code point, not three.
func codePoints(s string) int {
	n := utf8.RuneCountInString(s)
	for i := strings.IndexByte(s, 0xED); i >= 0 && i+2 < len(s); {
		if s[i+1] >= 0xA0 && s[i+1] <= 0xBF && s[i+2] >= 0x80 && s[i+2] <= 0xBF {
			n -= 2
			i += 3
		} else {
			i++
		}
		j := strings.IndexByte(s[i:], 0xED)
		if j < 0 {
			break
		}
		i += j
	}
	return n
}

func (vd *validator) validateString(n *schemaNode, s string) bool {
	ok := true
	if n.minLength > 0 && len(s) < 4*n.minLength {
		if l := codePoints(s); l < n.minLength {
			if !vd.collect {
				return false
			}
			ok = false
			vd.addAbout(s, "minLength", fmt.Sprintf("must be at least %d characters long, not %d", n.minLength, l))
		}
	}
	if n.maxLength >= 0 && len(s) > n.maxLength {
		if l := codePoints(s); l > n.maxLength {
			if !vd.collect {
				return false
			}
			ok = false
			vd.addAbout(s, "maxLength", fmt.Sprintf("must be at most %d characters long, not %d", n.maxLength, l))
		}
	}
	if n.pattern != nil && !n.pattern.match(s) {
		if !vd.collect {
			return false
		}
		ok = false
		vd.addAbout(s, "pattern", "does not match the pattern "+n.pattern.text)
	}
	return ok
}

func (vd *validator) validateNumber(n *schemaNode, v any, num *number) bool {
	ok := true
	check := func(l *limit, keyword string, bad func(c int) bool, rel string) bool {
		if l == nil || !bad(cmpNumber(num, l)) {
			return true
		}
		ok = false
		if vd.collect {
			vd.addAbout(v, keyword, "must be "+rel+" "+l.text)
		}
		return vd.collect
	}
	if !check(n.minimum, "minimum", func(c int) bool { return c < 0 }, ">=") ||
		!check(n.maximum, "maximum", func(c int) bool { return c > 0 }, "<=") ||
		!check(n.exclusiveMinimum, "exclusiveMinimum", func(c int) bool { return c <= 0 }, ">") ||
		!check(n.exclusiveMaximum, "exclusiveMaximum", func(c int) bool { return c >= 0 }, "<") {
		return false
	}
	if n.multipleOf != nil && !isMultipleOf(num, n.multipleOf) {
		if !vd.collect {
			return false
		}
		ok = false
		vd.addAbout(v, "multipleOf", "must be a multiple of "+n.multipleOf.text)
	}
	return ok
}

func (vd *validator) push(key string, idx int) { vd.path = append(vd.path, pathTok{key, idx}) }
func (vd *validator) pop()                     { vd.path = vd.path[:len(vd.path)-1] }

func (vd *validator) member(n *schemaNode, key string, v any) bool {
	if n.empty {
		return true
	}
	vd.push(key, -1)
	ok := vd.validate(n, v)
	vd.pop()
	return ok
}

func sortedKeys(obj map[string]any) []string {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (vd *validator) validateObject(n *schemaNode, obj map[string]any) bool {
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

	if n.patternProperties == nil && n.additional == nil {
		// Only named properties: walk whichever side is smaller.
		if len(obj) < len(n.propertyList) {
			for k, v := range obj {
				if c := n.properties[k]; c != nil && !vd.member(c, k, v) && fail() {
					return false
				}
			}
		} else {
			for _, p := range n.propertyList {
				if v, has := obj[p.name]; has && !vd.member(p.node, p.name, v) && fail() {
					return false
				}
			}
		}
	} else if len(obj) > 0 {
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
	}

	if n.propertyNames != nil && !n.propertyNames.empty {
		if !vd.collect {
			for k := range obj {
				if !vd.validate(n.propertyNames, k) {
					return false
				}
			}
		} else {
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
		}
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

func arrayLen(v any) int {
	switch a := v.(type) {
	case []any:
		return len(a)
	case []string:
		return len(a)
	}
	return 0
}

func arrayAt(v any, i int) any {
	switch a := v.(type) {
	case []any:
		return a[i]
	case []string:
		return a[i]
	}
	return nil
}

func (vd *validator) item(n *schemaNode, i int, v any) bool {
	if n.empty {
		return true
	}
	vd.push("", i)
	ok := vd.validate(n, v)
	vd.pop()
	return ok
}

func (vd *validator) validateArray(n *schemaNode, arr any) bool {
	ok := true
	fail := func() bool {
		ok = false
		return !vd.collect
	}
	size := arrayLen(arr)
	if size < n.minItems {
		if vd.collect {
			msg := fmt.Sprintf("must have at least %d items, not %d", n.minItems, size)
			vd.add("minItems", msg, msg)
		}
		if fail() {
			return false
		}
	}
	if n.maxItems >= 0 && size > n.maxItems {
		if vd.collect {
			msg := fmt.Sprintf("must have at most %d items, not %d", n.maxItems, size)
			vd.add("maxItems", msg, msg)
		}
		if fail() {
			return false
		}
	}
	if n.items != nil && !n.items.empty {
		for i := 0; i < size; i++ {
			if !vd.item(n.items, i, arrayAt(arr, i)) && fail() {
				return false
			}
		}
	}
	if n.tupleItems != nil {
		for i := 0; i < size; i++ {
			if i < len(n.tupleItems) {
				if !vd.item(n.tupleItems[i], i, arrayAt(arr, i)) && fail() {
					return false
				}
				continue
			}
			if n.additionalItems == nil {
				break
			}
			if n.additionalItems.never {
				if vd.collect {
					msg := fmt.Sprintf("must have at most %d items, not %d", len(n.tupleItems), size)
					vd.add("additionalItems", msg, msg)
				}
				if fail() {
					return false
				}
				break
			}
			if !vd.item(n.additionalItems, i, arrayAt(arr, i)) && fail() {
				return false
			}
		}
	}
	if n.uniqueItems && size > 1 {
		seen := make(map[string]int, size)
		for i := 0; i < size; i++ {
			k := equalityKey(arrayAt(arr, i))
			if j, dup := seen[k]; dup {
				if vd.collect {
					msg := fmt.Sprintf("items %d and %d are equal", j, i)
					vd.add("uniqueItems", msg, msg)
				}
				if fail() {
					return false
				}
				break
			}
			seen[k] = i
		}
	}
	if n.contains != nil {
		found := false
		for i := 0; i < size && !found; i++ {
			found = vd.probe(n.contains, arrayAt(arr, i))
		}
		if !found {
			if vd.collect {
				msg := "has no item matching " + n.containsText
				vd.add("contains", msg, msg)
			}
			if fail() {
				return false
			}
		}
	}
	return ok
}

func (vd *validator) validateApplicators(n *schemaNode, v any) bool {
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
	if n.oneOf != nil {
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
			if fail() {
				return false
			}
		case second >= 0:
			if vd.collect {
				msg := fmt.Sprintf("matches more than one of the allowed forms (%d and %d)", first, second)
				vd.add("oneOf", msg, msg)
			}
			if fail() {
				return false
			}
		}
	}
	for _, f := range n.forbidden {
		// {"not": {"pattern": P}}: any non-string satisfies {"pattern": P},
		// so only a string that does not match P passes.
		s, isStr := v.(string)
		if isStr && !f.re.match(s) {
			continue
		}
		if vd.collect {
			detail := "must not match " + f.text
			if isStr {
				vd.add("not", fmt.Sprintf("%q %s", s, detail), detail)
			} else {
				vd.add("not", detail, detail)
			}
		}
		if fail() {
			return false
		}
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
		if fail() {
			return false
		}
	}
	if n.ifS != nil {
		branch := n.elseS
		if vd.probe(n.ifS, v) {
			branch = n.thenS
		}
		if branch != nil && !vd.validate(branch, v) && fail() {
			return false
		}
	}
	return ok
}

// group reports an anyOf or oneOf that no alternative satisfied: the
// group itself, summarising, and below it each alternative's own errors,
// since which form the author meant is not ours to guess.
func (vd *validator) group(keyword string, alts []*schemaNode, v any) {
	start := len(vd.errs)
	for _, c := range alts {
		vd.validate(c, v)
	}
	here := vd.pointer()
	msg := "matches none of the allowed forms: " + summarize(vd.errs[start:], here)
	vd.errs = append(vd.errs, verr{Error: Error{Path: here, Keyword: keyword, Message: msg}, detail: msg, group: true})
}

// summarize joins the details of leaf errors, naming the location of any
// that lie below `here`.
func summarize(errs []verr, here string) string {
	var parts []string
	seen := map[string]bool{}
	for _, e := range errs {
		if e.group {
			continue
		}
		part := e.detail
		if e.Path != here {
			part = e.Path + ": " + part
		}
		if !seen[part] {
			seen[part] = true
			parts = append(parts, part)
		}
	}
	return strings.Join(parts, "; ")
}

// describeValue renders an instance value for a message: strings quoted
// and cut to a readable length, numbers as written.
func describeValue(v any) string {
	const maxRunes = 64
	switch x := v.(type) {
	case string:
		if utf8.RuneCountInString(x) > maxRunes {
			cut := 0
			for i := range x {
				if cut == maxRunes {
					return strconv.Quote(x[:i]) + "…"
				}
				cut++
			}
		}
		return strconv.Quote(x)
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(x)
	case map[string]any:
		return "an object"
	case []any, []string:
		return "an array"
	}
	return fmt.Sprint(v)
}

func listValues(values []any) string {
	const show = 8
	parts := make([]string, 0, min(len(values), show)+1)
	for i, v := range values {
		if i == show {
			parts = append(parts, fmt.Sprintf("… (%d allowed values)", len(values)))
			break
		}
		parts = append(parts, describeValue(v))
	}
	return strings.Join(parts, ", ")
}

func quoteList(names []string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = strconv.Quote(n)
	}
	return strings.Join(parts, ", ")
}

// jsonEqual is JSON equality: numbers by value (1 equals 1.0), objects
// regardless of member order.
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, has := y[k]
			if !has || !jsonEqual(xv, yv) {
				return false
			}
		}
		return true
	case []any, []string:
		switch b.(type) {
		case []any, []string:
		default:
			return false
		}
		if arrayLen(a) != arrayLen(b) {
			return false
		}
		for i := 0; i < arrayLen(a); i++ {
			if !jsonEqual(arrayAt(a, i), arrayAt(b, i)) {
				return false
			}
		}
		return true
	}
	var ba, bb [32]byte
	na, okA, validA := numberOf(a, ba[:0])
	nb, okB, validB := numberOf(b, bb[:0])
	if !okA || !okB || !validA || !validB {
		return false
	}
	if na.isInt64 && nb.isInt64 {
		return na.i == nb.i
	}
	var ca, cb [20]byte
	return cmpDecimal(na.dec(ca[:0]), nb.dec(cb[:0])) == 0
}

// equalityKey renders v so that two values have the same key exactly when
// they are JSON-equal.
func equalityKey(v any) string {
	var b strings.Builder
	writeEqualityKey(&b, v)
	return b.String()
}

func writeEqualityKey(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("n")
	case bool:
		if x {
			b.WriteString("t")
		} else {
			b.WriteString("f")
		}
	case string:
		b.WriteString("s")
		b.WriteString(strconv.Quote(x))
	case map[string]any:
		b.WriteString("{")
		for _, k := range sortedKeys(x) {
			b.WriteString(strconv.Quote(k))
			b.WriteString(":")
			writeEqualityKey(b, x[k])
			b.WriteString(",")
		}
		b.WriteString("}")
	case []any, []string:
		b.WriteString("[")
		for i := 0; i < arrayLen(v); i++ {
			writeEqualityKey(b, arrayAt(v, i))
			b.WriteString(",")
		}
		b.WriteString("]")
	default:
		var buf [32]byte
		if n, ok, valid := numberOf(v, buf[:0]); ok && valid {
			var db [20]byte
			d := n.dec(db[:0])
			fmt.Fprintf(b, "d%t:%s:%d", d.neg, d.digits, d.exp)
			return
		}
		fmt.Fprintf(b, "?%T:%v", v, v)
	}
}
