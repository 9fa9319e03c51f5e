package bridge

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"

	"github.com/leasedeck/leasedeck/termtext"
	"github.com/leasedeck/leasedeck/wirejson"
)

// ---- rendering helpers shared by the adapters ----

// Limits on what is echoed back: Claude Code spills output strings beyond
// 10,000 characters to a file; Codex caps model-visible hook output near
// 2,500 tokens.
const (
	maxReason  = 2000
	maxContext = 8000
)

func reasonOf(v Verdict, def string) string {
	return termtext.Clip(strings.TrimSpace(nonEmpty(v.Reason, def)), maxReason)
}

func contextOf(v Verdict) string {
	return termtext.Clip(strings.TrimSpace(v.Context), maxContext)
}

func warningsOf(v Verdict) string {
	if len(v.Warnings) == 0 {
		return ""
	}
	return termtext.Clip(strings.Join(v.Warnings, "; "), maxReason)
}

// jsonOut marshals an output object without HTML escaping (reasons often
// contain '<', '>' and '&', and clients show them verbatim).
func jsonOut(v any) []byte {
	if o, ok := v.(obj); ok {
		// Written directly, without encoding/json building its encoders
		// in every hook process; the same bytes.
		if b, err := o.appendJSON(make([]byte, 0, 256)); err == nil {
			return append(b, '\n')
		}
		return []byte("{}\n")
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return []byte("{}\n")
	}
	return []byte(b.String())
}

func textOut(s string) []byte {
	if s == "" {
		return nil
	}
	return []byte(s + "\n")
}

// obj is an ordered JSON object for outputs, so golden files are stable
// and read in a natural order.
type obj []kv

type kv struct {
	k string
	v any
}

func (o obj) MarshalJSON() ([]byte, error) { return o.appendJSON(nil) }

// appendJSON writes the members in order: names as json.Marshal writes
// them, values as an Encoder without HTML escaping does.
func (o obj) appendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, '{')
	for i, e := range o {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = wirejson.AppendString(dst, e.k, true)
		dst = append(dst, ':')
		var err error
		if inner, ok := e.v.(obj); ok {
			dst, err = inner.appendJSON(dst)
		} else {
			dst, err = wirejson.AppendValue(dst, e.v, false)
		}
		if err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}

func (o obj) with(k string, v any) obj {
	if s, ok := v.(string); ok && s == "" {
		return o
	}
	return append(o, kv{k, v})
}

// lazyRegexp compiles expr on first use, not at package init: every hook
// process starts this package, and most use none of its expressions.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
