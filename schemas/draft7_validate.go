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
		var typed bool
		if ok, typed = vd.numberValue(n, v); !typed {
			return false
		}
	}
	if !ok && !vd.collect {
		return false
	}
	if n.applicators && !vd.validateApplicators(n, v) {
		ok = false
	}
	return ok
}

// numberValue is validate for a value of none of the other JSON types:
// a number, or a Go value that is no JSON value at all. typed reports
// whether it passed type, enum and const; ok whether it then passed the
// number keywords.
func (vd *validator) numberValue(n *schemaNode, v any) (ok, typed bool) {
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
		return false, false
	}
	t := tNumber
	if num.isInt() {
		t |= tInteger
	}
	if !vd.typeAndEnum(n, t, v) {
		return false, false
	}
	return !n.numberChecks || vd.validateNumber(n, v, &num), true
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
