// Package wirejson writes and reads the few fixed JSON messages of a hook's
// exchange with the registry without encoding/json's reflection. A hook is
// a new process for every tool call, and encoding/json builds its encoder
// and decoder for each type on first use: for the handful of messages one
// hook sends and reads that was the largest part of its own time on the
// socket. What this package writes is byte for byte what json.Marshal
// writes for the same values (the tests hold it to that), and what it
// reads is read by the strict parser the registry itself uses
// (schemas.ParseJSON), member names matched exactly.
package wirejson

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string, escaped as encoding/json
// escapes it: with escapeHTML, as json.Marshal does ('<', '>' and '&' as
// \u003c…); without, as an Encoder with SetEscapeHTML(false). Invalid
// UTF-8 becomes \ufffd, U+2028 and U+2029 are escaped.
func AppendString(dst []byte, s string, escapeHTML bool) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && (!escapeHTML || (b != '<' && b != '>' && b != '&')) {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// AppendValue appends v as json.Marshal (escapeHTML) or an Encoder without
// HTML escaping would write it. It writes directly the values a parsed
// JSON document holds (map[string]any, []any, string, json.Number, bool,
// nil), numbers and []string; anything else is handed to encoding/json.
func AppendValue(dst []byte, v any, escapeHTML bool) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case string:
		return AppendString(dst, x, escapeHTML), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case json.Number:
		return appendNumber(dst, x)
	case float64:
		return appendFloat(dst, x)
	case int:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(dst, x, 10), nil
	case uint64:
		return strconv.AppendUint(dst, x, 10), nil
	case []string:
		if x == nil {
			return append(dst, "null"...), nil
		}
		dst = append(dst, '[')
		for i, s := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendString(dst, s, escapeHTML)
		}
		return append(dst, ']'), nil
	case []any:
		return appendArray(dst, x, escapeHTML)
	case map[string]any:
		return appendObject(dst, x, escapeHTML)
	}
	return appendReflected(dst, v, escapeHTML)
}

func appendArray(dst []byte, a []any, escapeHTML bool) ([]byte, error) {
	if a == nil {
		return append(dst, "null"...), nil
	}
	dst = append(dst, '[')
	for i, e := range a {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = AppendValue(dst, e, escapeHTML); err != nil {
			return dst, err
		}
	}
	return append(dst, ']'), nil
}

// appendObject writes a map's members in the order json.Marshal does:
// sorted by name.
func appendObject(dst []byte, m map[string]any, escapeHTML bool) ([]byte, error) {
	if m == nil {
		return append(dst, "null"...), nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, strings.Compare)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(dst, k, escapeHTML)
		dst = append(dst, ':')
		var err error
		if dst, err = AppendValue(dst, m[k], escapeHTML); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

// appendNumber writes a json.Number as encoding/json does: its literal,
// "0" for the empty Number, an error for text that is not a JSON number.
func appendNumber(dst []byte, n json.Number) ([]byte, error) {
	s := string(n)
	if s == "" {
		s = "0"
	}
	if !validNumber(s) {
		return dst, fmt.Errorf("json: invalid number literal %q", s)
	}
	return append(dst, s...), nil
}

// appendFloat formats as encoding/json does (as ES6 converts a number to
// a string).
func appendFloat(dst []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return dst, fmt.Errorf("json: unsupported value: %s", strconv.FormatFloat(f, 'g', -1, 64))
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, nil
}

// appendReflected hands a value of another type to encoding/json.
func appendReflected(dst []byte, v any, escapeHTML bool) ([]byte, error) {
	if escapeHTML {
		b, err := json.Marshal(v)
		return append(dst, b...), err
	}
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return dst, err
	}
	return append(dst, strings.TrimSuffix(sb.String(), "\n")...), nil
}

// validNumber reports whether s is a JSON number literal (the grammar
// encoding/json checks a json.Number against).
func validNumber(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '-' {
		s = s[1:]
		if s == "" {
			return false
		}
	}
	switch {
	case s[0] == '0':
		s = s[1:]
	case '1' <= s[0] && s[0] <= '9':
		s = s[1:]
		for len(s) > 0 && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	default:
		return false
	}
	if len(s) >= 2 && s[0] == '.' && '0' <= s[1] && s[1] <= '9' {
		s = s[2:]
		for len(s) > 0 && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	}
	if len(s) >= 2 && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		if s[0] == '+' || s[0] == '-' {
			s = s[1:]
			if s == "" {
				return false
			}
		}
		for len(s) > 0 && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	}
	return s == ""
}
