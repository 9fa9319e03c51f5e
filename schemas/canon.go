package schemas

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/gowebpki/jcs"
)

// MaxSafeInteger is 2^53 − 1, the largest integer every I-JSON parser
// reads exactly. The contract bounds every integer field by it.
const MaxSafeInteger = 1<<53 - 1

// ErrNotCanonicalisable is wrapped by every Canonical failure.
var ErrNotCanonicalisable = errors.New("value cannot be canonicalised")

// Canonical returns the canonical bytes of v as SPEC §7 defines them:
// RFC 8785 (JCS) after dropping absent members. Absent means a nil value
// inside a map[string]any only when it came from Go code as an untyped
// Absent marker; a JSON null stays null. v must be a tree of
// map[string]any, []any, string, json.Number, float64, int, int64,
// bool and nil, as ParseJSON produces.
//
// NaN and ±Inf fail, as SPEC §7 rule 4 requires. An integer literal
// beyond ±(2^53−1) fails too: RFC 8785 would round it through a double,
// silently signing a different number from the one written.
func Canonical(v any) ([]byte, error) {
	var b bytes.Buffer
	b.Grow(256)
	if err := writeCanonical(&b, v, 0); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Absent is a member value meaning "this member does not exist". Builders
// may use it where a field is optional; Canonical drops such members.
type absent struct{}

// Absent is the marker value described above.
var Absent any = absent{}

// SHA256Hex is the lower-case hex SHA-256 of b.
func SHA256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Hash is SHA256Hex of the canonical bytes of v: the contract's
// declared_hash and granted_hash.
func Hash(v any) (string, error) {
	c, err := Canonical(v)
	if err != nil {
		return "", err
	}
	return SHA256Hex(c), nil
}

// CanonicalJSON parses data and returns its canonical bytes.
func CanonicalJSON(data []byte) ([]byte, error) {
	v, err := ParseJSON(data)
	if err != nil {
		return nil, err
	}
	return Canonical(v)
}

// Pretty renders v as indented JSON with members in canonical order,
// for people. It shares Canonical's number and string rules.
func Pretty(v any) ([]byte, error) {
	c, err := Canonical(v)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, c, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

func canonErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrNotCanonicalisable, fmt.Sprintf(format, args...))
}

func writeCanonical(b *bytes.Buffer, v any, depth int) error {
	if depth > MaxDepth {
		return canonErr("nesting deeper than %d levels", MaxDepth)
	}
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case string:
		writeString(b, x)
	case json.Number:
		return writeNumberLiteral(b, string(x))
	case float64:
		return writeFloat(b, x)
	case float32:
		return writeFloat(b, float64(x))
	case int:
		return writeInt(b, int64(x))
	case int64:
		return writeInt(b, x)
	case uint64:
		if x > MaxSafeInteger {
			return canonErr("integer %d is beyond 2^53-1", x)
		}
		b.WriteString(strconv.FormatUint(x, 10))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeCanonical(b, e, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case []string:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, e)
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k, e := range x {
			if _, skip := e.(absent); skip {
				continue
			}
			keys = append(keys, k)
		}
		sortUTF16(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, k)
			b.WriteByte(':')
			if err := writeCanonical(b, x[k], depth+1); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case absent:
		return canonErr("an absent value outside an object member")
	default:
		return canonErr("unsupported type %T", v)
	}
	return nil
}

func writeInt(b *bytes.Buffer, n int64) error {
	if n > MaxSafeInteger || n < -MaxSafeInteger {
		return canonErr("integer %d is beyond ±(2^53-1)", n)
	}
	b.WriteString(strconv.FormatInt(n, 10))
	return nil
}

func writeFloat(b *bytes.Buffer, f float64) error {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return canonErr("non-finite number %v", f)
	}
	s, err := jcs.NumberToJSON(f)
	if err != nil {
		return canonErr("%v", err)
	}
	b.WriteString(s)
	return nil
}

// writeNumberLiteral canonicalises a number as written in JSON text,
// through the ECMAScript formatter RFC 8785 names. An integer literal that
// a double cannot hold exactly (beyond 2^53, such as 9007199254740993) is
// refused rather than silently rounded: the signed bytes would name a
// different number from the one written.
func writeNumberLiteral(b *bytes.Buffer, lit string) error {
	if isIntegerLiteral(lit) {
		if n, err := strconv.ParseInt(lit, 10, 64); err == nil && n <= MaxSafeInteger && n >= -MaxSafeInteger {
			if n == 0 {
				b.WriteByte('0') // "-0" canonicalises to 0
				return nil
			}
			b.WriteString(strconv.FormatInt(n, 10))
			return nil
		}
		f, _ := strconv.ParseFloat(lit, 64)
		if math.IsInf(f, 0) {
			return canonErr("integer %s is outside the IEEE 754 double range", lit)
		}
		// Beyond 2^53 a double holds only some integers. Refuse a literal
		// whose canonical form would differ from what was written
		// (9007199254740993 would become ...992): signing it would sign a
		// different number. A literal the formatter writes back unchanged
		// (1000000000000000000, or ES6's own 100000000000000020) is fine.
		if form, err := jcs.NumberToJSON(f); err != nil || form != strings.TrimPrefix(lit, "+") {
			return canonErr("integer %s is beyond 2^53-1 and not exactly representable; it cannot be canonicalised without changing it", lit)
		}
		return writeFloat(b, f)
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return canonErr("number %s is outside the IEEE 754 double range", lit)
		}
		return canonErr("invalid number %q", lit)
	}
	return writeFloat(b, f)
}

func isIntegerLiteral(s string) bool {
	if strings.HasPrefix(s, "-") {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// writeString applies RFC 8785's closed escape set. WTF-8 surrogates (from
// an unpaired \uD8xx escape) are written back as lower-case \u escapes.
func writeString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			if r, ok := surrogateAt(s, i); ok {
				b.WriteString(s[start:i])
				fmt.Fprintf(b, `\u%04x`, r)
				i += 3
				start = i
				continue
			}
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			continue
		}
		b.WriteString(s[start:i])
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		default:
			fmt.Fprintf(b, `\u%04x`, c)
		}
		i++
		start = i
	}
	b.WriteString(s[start:])
	b.WriteByte('"')
}

// sortUTF16 orders member names by UTF-16 code units, as RFC 8785 §3.2.3
// requires. For ASCII names (the common case) this is byte order.
func sortUTF16(keys []string) {
	if len(keys) < 2 {
		return
	}
	ascii := true
	for _, k := range keys {
		for i := 0; i < len(k); i++ {
			if k[i] >= utf8.RuneSelf {
				ascii = false
				break
			}
		}
	}
	if ascii {
		sort.Strings(keys)
		return
	}
	sort.Slice(keys, func(i, j int) bool { return lessUTF16(keys[i], keys[j]) })
}

func lessUTF16(a, b string) bool {
	ua, ub := toUTF16(a), toUTF16(b)
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			return ua[i] < ub[i]
		}
	}
	return len(ua) < len(ub)
}

func toUTF16(s string) []uint16 {
	out := make([]uint16, 0, len(s))
	for i := 0; i < len(s); {
		if r, ok := surrogateAt(s, i); ok {
			out = append(out, uint16(r))
			i += 3
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		out = utf16.AppendRune(out, r)
		i += size
	}
	return out
}
