// Package redact finds secrets in text and tool calls and replaces them,
// and renders a tool call as the one redacted line a human or the journal
// may be shown. Its detectors are data (rules.json, embedded), each with
// the texts it must find and the texts nothing may change.
//
// It over-approximates on purpose: a redacted non-secret costs a little
// readability, a missed secret is permanent in an append-only journal.
package redact

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Redacted replaces every detected secret. One fixed marker (rather than one
// per kind) keeps summaries short; the kind is in the Finding.
const Redacted = "[redacted]"

// Finding is one detected secret. It never carries the secret itself: only
// what kind it looked like and where it was, so a caller can report "a
// GitHub token was in the prompt" without keeping the token.
type Finding struct {
	Kind string `json:"kind"`
	// Path is the JSON pointer of the string inside a value given to
	// RedactValue; empty for Redact.
	Path string `json:"path,omitempty"`
	// Start and End are byte offsets of the redacted span in the original
	// string.
	Start int `json:"start"`
	End   int `json:"end"`
}

// keySegments splits a key on non-alphanumerics and camelCase boundaries:
// "X-Api-Key" → x api key, "dbPassword" → db password.
func keySegments(key string) []string {
	var segs []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			segs = append(segs, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(key)
	for i, r := range rs {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if i > 0 && unicode.IsUpper(r) && len(cur) > 0 {
				prev := rs[i-1]
				nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
				if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
					flush()
				}
			}
			cur = append(cur, r)
		default:
			flush()
		}
	}
	flush()
	return segs
}

// plainKey reports whether key is lower-case ASCII letters and digits,
// which keySegments leaves as one segment ("command", "file_path" is not).
func plainKey(key string) bool {
	for i := 0; i < len(key); i++ {
		if c := key[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return key != ""
}

// IsSecretKey reports whether a member or variable name announces a secret
// value ("api_key", "GITHUB_TOKEN", "dbPassword", "X-Auth-Token").
func IsSecretKey(key string) bool { return rules().isSecretKey(key) }

func (v *vocabulary) isSecretKey(key string) bool {
	if plainKey(key) {
		return v.secretWords[key] // one segment, already lower case
	}
	segs := keySegments(key)
	for i, s := range segs {
		if v.secretWords[s] {
			return true
		}
		if i+1 < len(segs) && v.secretPairs[[2]string{s, segs[i+1]}] {
			return true
		}
	}
	return false
}

// isReference reports values that name a secret rather than contain one:
// shell and template references, placeholders, booleans. Redacting them
// would hide what a command does without protecting anything.
func (voc *vocabulary) isReference(v string) bool {
	v = strings.Trim(v, `"'`)
	if v == "" {
		return true
	}
	if strings.HasPrefix(v, "$") || strings.HasPrefix(v, "%") || strings.HasPrefix(v, "{{") ||
		strings.HasPrefix(v, "<") || strings.HasPrefix(v, "[redacted") || strings.Trim(v, "*x•.") == "" {
		return true
	}
	return voc.references[strings.ToLower(v)]
}

// entropy is the Shannon entropy of s in bits per byte.
func entropy(s string) float64 {
	if s == "" {
		return 0
	}
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	var h float64
	n := float64(len(s))
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

func hasClasses(s string, digit, upper, lower bool) bool {
	var d, u, l bool
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			d = true
		case c >= 'A' && c <= 'Z':
			u = true
		case c >= 'a' && c <= 'z':
			l = true
		}
	}
	return (!digit || d) && (!upper || u) && (!lower || l)
}

// Credential reports whether the finding has the shape of a recognised
// credential (a key, a token, a private key, a password), as opposed to a
// long random-looking run that is masked only because it might be one.
func (f Finding) Credential() bool { return f.Kind != rules().runs.Kind }

// Redact replaces every secret found in s with Redacted and reports what was
// found. It over-approximates on purpose: a redacted non-secret costs a
// little readability, a missed secret is permanent in an append-only journal.
func Redact(s string) (string, []Finding) {
	spans := findSpans(s)
	if len(spans) == 0 {
		return s, nil
	}
	var b strings.Builder
	b.Grow(len(s))
	findings := make([]Finding, 0, len(spans))
	prev := 0
	for _, sp := range spans {
		b.WriteString(s[prev:sp.start])
		b.WriteString(Redacted)
		prev = sp.end
		findings = append(findings, Finding{Kind: sp.kind, Start: sp.start, End: sp.end})
	}
	b.WriteString(s[prev:])
	return b.String(), findings
}

// RedactValue returns a copy of a JSON tree (as schemas.ParseJSON builds it)
// with every string redacted, and every string under a member whose name
// announces a secret ("password", "api_key", "env.GITHUB_TOKEN") replaced
// whole. The input is not modified.
func RedactValue(v any) (any, []Finding) {
	var findings []Finding
	out := redactValue(v, pointerAt{root: true}, false, &findings, true)
	return out, findings
}

// FindingsIn is what RedactValue finds in v, without the copy: for a
// caller that needs the redacted tree only when something is found.
func FindingsIn(v any) []Finding {
	var findings []Finding
	redactValue(v, pointerAt{root: true}, false, &findings, false)
	return findings
}

// FindingsInMember is FindingsIn(map[string]any{key: value}) without the
// map: the findings of one string member of an object.
func FindingsInMember(key, value string) []Finding {
	var findings []Finding
	redactValue(value, pointerAt{key: key, member: true}, IsSecretKey(key), &findings, false)
	return findings
}

// pointerAt is the JSON pointer of a value inside the tree being
// redacted: its parent's pointer and its own token (a member's name or an
// element's index), spelled out only for a finding or a value below it,
// since most values hold none.
type pointerAt struct {
	parent string
	key    string // the member's name, when member
	index  int    // the element's index, when not member
	member bool
	root   bool
}

func (p pointerAt) String() string {
	if p.root {
		return ""
	}
	if p.member {
		return p.parent + "/" + EscapePointer(p.key)
	}
	return p.parent + "/" + strconv.Itoa(p.index)
}

// redactValue redacts v, found at path; with build false it only finds,
// and returns nil.
func redactValue(v any, path pointerAt, underSecret bool, findings *[]Finding, build bool) any {
	switch x := v.(type) {
	case string:
		if underSecret && !rules().isReference(x) {
			*findings = append(*findings, Finding{Kind: "secret-field", Path: path.String(), Start: 0, End: len(x)})
			return Redacted
		}
		r, fs := Redact(x)
		for _, f := range fs {
			f.Path = path.String()
			*findings = append(*findings, f)
		}
		if len(fs) == 0 || !build {
			return v // unchanged: the same string, not boxed again
		}
		return r
	case map[string]any:
		var small [8]string
		keys := small[:0]
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		var out map[string]any
		if build {
			out = make(map[string]any, len(x))
		}
		parent := path.String()
		for _, k := range keys {
			r := redactValue(x[k], pointerAt{parent: parent, key: k, member: true}, underSecret || IsSecretKey(k), findings, build)
			if build {
				out[k] = r
			}
		}
		if !build {
			return nil
		}
		return out
	case []any:
		var out []any
		if build {
			out = make([]any, len(x))
		}
		parent := path.String()
		for i, e := range x {
			r := redactValue(e, pointerAt{parent: parent, index: i}, underSecret, findings, build)
			if build {
				out[i] = r
			}
		}
		if !build {
			return nil
		}
		return out
	default:
		return v
	}
}

// EscapePointer escapes one JSON-pointer token (RFC 6901).
func EscapePointer(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}
