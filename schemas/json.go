package schemas

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth bounds nesting so that a hostile document cannot exhaust the
// stack or the heap through recursion alone.
const MaxDepth = 256

// SyntaxError reports malformed JSON with the byte offset where reading
// stopped, so a user can find the fault in a large file.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at byte %d: %s", e.Offset, e.Msg)
}

// ParseJSON decodes one JSON document into the generic tree the validator
// and the canonicaliser share: map[string]any, []any, json.Number, string,
// bool and nil.
//
// It differs from encoding/json in ways that matter for signed artefacts:
// numbers keep their literal text (a large integer never passes through
// float64), an unpaired UTF-16 surrogate escape is kept as its WTF-8 bytes
// instead of being replaced (so it canonicalises back to the same escape),
// duplicate member names are an error (I-JSON, RFC 7493), and trailing
// data after the document is an error.
func ParseJSON(data []byte) (any, error) {
	p := parser{data: data}
	p.skipSpace()
	if p.pos >= len(p.data) {
		return nil, &SyntaxError{Offset: p.pos, Msg: "empty input"}
	}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos != len(p.data) {
		return nil, p.errf("unexpected data after the document")
	}
	return v, nil
}

type parser struct {
	data []byte
	pos  int
}

func (p *parser) errf(format string, args ...any) error {
	return &SyntaxError{Offset: p.pos, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (any, error) {
	if depth > MaxDepth {
		return nil, p.errf("nesting deeper than %d levels", MaxDepth)
	}
	p.skipSpace()
	if p.pos >= len(p.data) {
		return nil, p.errf("unexpected end of input")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		return p.strValue()
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		return nil, p.errf("unexpected character %q", rune(c))
	}
}

func (p *parser) literal(word string) error {
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		return p.errf("invalid literal (expected %s)", word)
	}
	p.pos += len(word)
	return nil
}

func (p *parser) object(depth int) (any, error) {
	p.pos++ // {
	var obj map[string]any
	if depth == 0 {
		// A journal line or a message has a dozen or more members: made
		// that size at once, the map is not rebuilt as it grows past 8.
		obj = make(map[string]any, topLevelMembers)
	} else {
		obj = map[string]any{}
	}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return obj, nil
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.errf("expected a member name in double quotes")
		}
		keyAt := p.pos
		key, err := p.key()
		if err != nil {
			return nil, err
		}
		if _, dup := obj[key]; dup {
			return nil, &SyntaxError{Offset: keyAt, Msg: fmt.Sprintf("duplicate member name %q", key)}
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.errf("expected ':' after member name")
		}
		p.pos++
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		obj[key] = v
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.errf("unexpected end of input in object")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return obj, nil
		default:
			return nil, p.errf("expected ',' or '}' in object")
		}
	}
}

func (p *parser) array(depth int) (any, error) {
	p.pos++ // [
	arr := []any{}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return arr, nil
	}
	for {
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.errf("unexpected end of input in array")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return arr, nil
		default:
			return nil, p.errf("expected ',' or ']' in array")
		}
	}
}

func (p *parser) number() (any, error) {
	start := p.pos
	if p.data[p.pos] == '-' {
		p.pos++
	}
	digits := func() int {
		n := 0
		for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	intStart := p.pos
	if digits() == 0 {
		return nil, p.errf("invalid number")
	}
	if p.data[intStart] == '0' && p.pos-intStart > 1 {
		return nil, &SyntaxError{Offset: intStart, Msg: "invalid number: leading zero"}
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return nil, p.errf("invalid number: no digits after '.'")
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return nil, p.errf("invalid number: no digits in exponent")
		}
	}
	return json.Number(p.data[start:p.pos]), nil
}

// key reads a member name. Journals repeat the same few dozen names on
// every line, so plain names are interned: one allocation per distinct
// name per process instead of one per member. The table is an immutable
// map behind an atomic pointer, replaced on the rare insert, so a lookup
// neither locks nor allocates.
func (p *parser) key() (string, error) {
	start := p.pos + 1
	for i := start; i < len(p.data) && i-start <= maxInternLen; i++ {
		c := p.data[i]
		if c == '"' {
			if s, ok := (*internTable.Load())[string(p.data[start:i])]; ok {
				p.pos = i + 1
				return s, nil
			}
			break
		}
		if c == '\\' || c < 0x20 || c >= 0x80 {
			break
		}
	}
	s, err := p.str()
	if err == nil && len(s) <= maxInternLen {
		intern(s)
	}
	return s, err
}

const (
	maxInternLen = 40
	maxInterned  = 4096 // bounded: hostile input cannot grow it without limit
	// topLevelMembers is the room a document's outer object is made with:
	// 14 fill a map's 16 slots (an audit line has 13), where 16 would
	// make room for 32.
	topLevelMembers = 14
)

// strValue reads a string member value. Journals repeat a few words on
// every line (a schema version, an event type, an outcome, an actor's
// kind, a tool's name), so a short string made of letters, '.', '_' and
// '-' only is interned as an interface value: neither its bytes nor its
// boxing are allocated again. Identifiers, hashes, times and text (which
// carry digits or spaces) are not, so they cannot crowd the table.
func (p *parser) strValue() (any, error) {
	start := p.pos + 1
	for i := start; i < len(p.data) && i-start <= maxValueInternLen; i++ {
		c := p.data[i]
		if c == '"' {
			if i == start {
				break
			}
			if v, ok := (*valueTable.Load())[string(p.data[start:i])]; ok {
				p.pos = i + 1
				return v, nil
			}
			s, err := p.str()
			if err == nil {
				internValue(s)
			}
			return s, err
		}
		if !isWordByte(c) {
			break
		}
	}
	return p.str()
}

const (
	maxValueInternLen = 32
	// maxInternedValues bounds the table (each insert copies it, so the
	// bound also bounds what filling it can cost: well under a second).
	maxInternedValues = 1024
)

func isWordByte(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' || c == '_' || c == '-'
}

var valueTable atomic.Pointer[map[string]any]

func internValue(s string) {
	if _, ok := (*valueTable.Load())[s]; ok {
		return
	}
	internMu.Lock()
	defer internMu.Unlock()
	old := *valueTable.Load()
	if _, ok := old[s]; ok || !valueMisses.note(s, len(old), maxInternedValues) {
		return
	}
	m := make(map[string]any, len(old)+len(valueMisses.names))
	for k, v := range old {
		m[k] = v
	}
	for _, n := range valueMisses.names {
		m[n] = n
	}
	valueMisses.names = valueMisses.names[:0]
	valueTable.Store(&m)
}

var (
	internTable atomic.Pointer[map[string]string]
	internMu    sync.Mutex
	// The names missed since each table was last built (internMu). A
	// table is built again once they are a good share of it, not on every
	// miss: copying the whole table for each new name cost a short-lived
	// process (a hook, parsing a few small documents with a few dozen
	// names) a table per name, half its allocations.
	nameMisses, valueMisses misses
)

// misses collects names a table lacks until they are worth a new table.
type misses struct{ names []string }

// note adds s (not yet in a table of n names, bounded by max) and reports
// whether the table should now be built again with the names collected.
func (ms *misses) note(s string, n, max int) bool {
	if n+len(ms.names) >= max || slices.Contains(ms.names, s) {
		return false
	}
	ms.names = append(ms.names, s)
	return len(ms.names) >= n/2+4
}

func init() {
	m := map[string]string{}
	internTable.Store(&m)
	v := map[string]any{}
	valueTable.Store(&v)
}

func intern(s string) {
	if _, ok := (*internTable.Load())[s]; ok {
		return
	}
	internMu.Lock()
	defer internMu.Unlock()
	old := *internTable.Load()
	if _, ok := old[s]; ok || !nameMisses.note(s, len(old), maxInterned) {
		return
	}
	m := make(map[string]string, len(old)+len(nameMisses.names))
	for k, v := range old {
		m[k] = v
	}
	for _, n := range nameMisses.names {
		m[n] = n
	}
	nameMisses.names = nameMisses.names[:0]
	internTable.Store(&m)
}

// str reads a JSON string. Valid UTF-8 is required in the input; escapes
// are decoded, and an unpaired surrogate escape becomes the three-byte
// WTF-8 encoding of the surrogate so that nothing is lost.
func (p *parser) str() (string, error) {
	p.pos++ // opening quote
	start := p.pos
	// Fast path: no escapes, all ASCII or valid UTF-8.
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		if c == '"' {
			s := p.data[start:p.pos]
			if !utf8.Valid(s) {
				return "", &SyntaxError{Offset: start, Msg: "string is not valid UTF-8"}
			}
			p.pos++
			return string(s), nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
		p.pos++
	}
	buf := make([]byte, 0, p.pos-start+16)
	buf = append(buf, p.data[start:p.pos]...)
	for {
		if p.pos >= len(p.data) {
			return "", p.errf("unterminated string")
		}
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			if !validWTF8(buf) {
				return "", &SyntaxError{Offset: start, Msg: "string is not valid UTF-8"}
			}
			return string(buf), nil
		case c < 0x20:
			return "", p.errf("control character U+%04X must be escaped in a string", c)
		case c != '\\':
			buf = append(buf, c)
			p.pos++
			continue
		}
		p.pos++ // backslash
		if p.pos >= len(p.data) {
			return "", p.errf("unterminated escape")
		}
		e := p.data[p.pos]
		p.pos++
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, err := p.hex4()
			if err != nil {
				return "", err
			}
			if utf16.IsSurrogate(r) && r < 0xDC00 && p.pos+6 <= len(p.data) && p.data[p.pos] == '\\' && p.data[p.pos+1] == 'u' {
				save := p.pos
				p.pos += 2
				r2, err := p.hex4()
				if err == nil && r2 >= 0xDC00 && r2 <= 0xDFFF {
					buf = utf8.AppendRune(buf, utf16.DecodeRune(r, r2))
					continue
				}
				p.pos = save
			}
			buf = appendWTF8(buf, r)
		default:
			return "", p.errf("invalid escape '\\%c'", e)
		}
	}
}

func (p *parser) hex4() (rune, error) {
	if p.pos+4 > len(p.data) {
		return 0, p.errf("truncated \\u escape")
	}
	n, err := strconv.ParseUint(string(p.data[p.pos:p.pos+4]), 16, 32)
	if err != nil {
		return 0, p.errf("invalid \\u escape")
	}
	p.pos += 4
	return rune(n), nil
}

// appendWTF8 encodes r like UTF-8 but also accepts surrogate code points,
// which utf8.AppendRune would replace with U+FFFD.
func appendWTF8(b []byte, r rune) []byte {
	if r >= 0xD800 && r <= 0xDFFF {
		return append(b, 0xED, byte(0x80|(r>>6)&0x3F), byte(0x80|r&0x3F))
	}
	return utf8.AppendRune(b, r)
}

// surrogateAt reports the surrogate code point encoded at s[i:i+3] in
// WTF-8, if any.
func surrogateAt(s string, i int) (rune, bool) {
	if i+2 < len(s) && s[i] == 0xED && s[i+1] >= 0xA0 && s[i+1] <= 0xBF && s[i+2] >= 0x80 && s[i+2] <= 0xBF {
		return 0xD000 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F), true
	}
	return 0, false
}

func validWTF8(b []byte) bool {
	s := string(b)
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		if _, ok := surrogateAt(s, i); ok {
			i += 3
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return false
		}
		i += size
	}
	return true
}
