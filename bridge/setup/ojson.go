package setup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// An ordered JSON tree for editing users' settings files: members keep
// their order (and duplicates, which are not ours to resolve) and numbers
// keep their literal text, so that a merge changes nothing but what it adds.
// Values are *jsonObject, []any, json.Number, string, bool and nil.

type jsonMember struct {
	Key string
	Val any
}

type jsonObject struct {
	Members []jsonMember
}

// get returns the last member named k: the one most JSON readers keep.
func (o *jsonObject) get(k string) (any, bool) {
	for i := len(o.Members) - 1; i >= 0; i-- {
		if o.Members[i].Key == k {
			return o.Members[i].Val, true
		}
	}
	return nil, false
}

// set replaces the last member named k, or appends one.
func (o *jsonObject) set(k string, v any) {
	for i := len(o.Members) - 1; i >= 0; i-- {
		if o.Members[i].Key == k {
			o.Members[i].Val = v
			return
		}
	}
	o.Members = append(o.Members, jsonMember{k, v})
}

// errJSONC explains the one refusal users will hit: a settings file with
// comments (Gemini CLI and VS Code accept them) cannot be rewritten without
// losing them, so it is left alone.
var errJSONC = errors.New("the file has comments or trailing commas (JSONC); leasedeck will not rewrite it and lose them — add the hook entries by hand (see --dry-run)")

func decodeOrdered(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		if looksJSONC(data) {
			return nil, errJSONC
		}
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		if looksJSONC(data) {
			return nil, errJSONC
		}
		return nil, errors.New("unexpected data after the JSON document")
	}
	return v, nil
}

func looksJSONC(data []byte) bool {
	s := string(data)
	return strings.Contains(s, "//") || strings.Contains(s, "/*") ||
		strings.Contains(strings.Join(strings.Fields(s), ""), ",}") ||
		strings.Contains(strings.Join(strings.Fields(s), ""), ",]")
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &jsonObject{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("expected a member name, got %v", kt)
				}
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				o.Members = append(o.Members, jsonMember{k, v})
			}
			if _, err := dec.Token(); err != nil { // '}'
				return nil, err
			}
			return o, nil
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			if _, err := dec.Token(); err != nil { // ']'
				return nil, err
			}
			return arr, nil
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return tok, nil
	}
}

// detectIndent reuses the file's own indentation unit, so that a merge
// does not reformat a hand-written file more than it must.
func detectIndent(data []byte) string {
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimLeft(line, " \t")
		if trimmed == "" || len(trimmed) == len(line) {
			continue
		}
		ws := line[:len(line)-len(trimmed)]
		if strings.HasPrefix(ws, "\t") {
			return "\t"
		}
		return ws
	}
	return "  "
}

func encodeOrdered(v any, indent string) []byte {
	var b bytes.Buffer
	writeOrdered(&b, v, indent, 0)
	b.WriteByte('\n')
	return b.Bytes()
}

func writeOrdered(b *bytes.Buffer, v any, indent string, depth int) {
	nl := func(d int) {
		b.WriteByte('\n')
		for i := 0; i < d; i++ {
			b.WriteString(indent)
		}
	}
	switch x := v.(type) {
	case *jsonObject:
		if len(x.Members) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, m := range x.Members {
			if i > 0 {
				b.WriteByte(',')
			}
			nl(depth + 1)
			writeString(b, m.Key)
			b.WriteString(": ")
			writeOrdered(b, m.Val, indent, depth+1)
		}
		nl(depth)
		b.WriteByte('}')
	case []any:
		if len(x) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			nl(depth + 1)
			writeOrdered(b, e, indent, depth+1)
		}
		nl(depth)
		b.WriteByte(']')
	case string:
		writeString(b, x)
	case json.Number:
		b.WriteString(x.String())
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case nil:
		b.WriteString("null")
	case int:
		fmt.Fprintf(b, "%d", x)
	case int64:
		fmt.Fprintf(b, "%d", x)
	default:
		enc, _ := json.Marshal(x)
		b.Write(enc)
	}
}

func writeString(b *bytes.Buffer, s string) {
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	b.WriteString(strings.TrimSuffix(sb.String(), "\n"))
}
