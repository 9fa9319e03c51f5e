package record

import (
	"encoding/json"
	"math"
	"strconv"
)

func keep(extra map[string]any, k string, v any) map[string]any {
	if extra == nil {
		extra = map[string]any{}
	}
	extra[k] = v
	return extra
}

// putRequired writes a member the schema requires, even when empty,
// unless the empty field stands for a value of another type kept in
// extra (already copied into m).
func putRequired(m, extra map[string]any, k, v string) {
	if _, kept := extra[k]; v != "" || !kept {
		m[k] = v
	}
}

func putString(m map[string]any, k, v string) {
	if v != "" {
		m[k] = v
	}
}

// putNumber writes a figure: a whole number that a JSON number carries
// exactly as an integer, anything else as a float. A figure that is not
// finite has no JSON form and is left out.
func putNumber(m map[string]any, k string, v *float64) {
	if v == nil || math.IsInf(*v, 0) || math.IsNaN(*v) {
		return
	}
	if *v == math.Trunc(*v) && math.Abs(*v) <= 1<<53-1 {
		m[k] = int64(*v)
		return
	}
	m[k] = *v
}

// number reads a journal number (json.Number as the parser leaves it, or a
// Go number as code builds it). A literal too large for a float64 reads as
// ±Inf: the fold decides what such a figure means.
func number(v any) (*float64, bool) {
	var f float64
	switch n := v.(type) {
	case json.Number:
		return numberText(string(n))
	case float64:
		f = n
	case int64:
		f = float64(n)
	case int:
		f = float64(n)
	default:
		return nil, false
	}
	return &f, true
}

// numberText reads a number's literal as number reads a json.Number.
func numberText(s string) (*float64, bool) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !math.IsInf(f, 0) {
		return nil, false
	}
	return &f, true
}

func stringList(v any) ([]string, bool) {
	switch l := v.(type) {
	case []string:
		return append([]string(nil), l...), true
	case []any:
		out := make([]string, 0, len(l))
		for _, x := range l {
			s, ok := x.(string)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	}
	return nil, false
}
