// Package redact finds secrets in text and JSON values and replaces them,
// and renders a tool call as the one redacted line a human reads. Both the
// bridge (what it forwards) and the registry (the approval summary it
// derives from the exact tool input) use it.
package redact

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
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

type span struct {
	start, end int
	kind       string
	prio       int // index of the detector: lower is more specific
}

// findSpans runs every detector and merges overlapping spans.
func findSpans(s string) []span {
	var spans []span
	lower := asciiLower(s)
	var keys []keyStart
	var nls []int
	nlsDone := false
	newlines := func() []int {
		if !nlsDone {
			for i := 0; i < len(s); i++ {
				if s[i] == '\n' {
					nls = append(nls, i)
				}
			}
			nlsDone = true
		}
		return nls
	}
	add := func(prio int, d detector, m []int, off int) {
		if d.check != nil && !d.check(m, s[off:]) {
			// check reads the text the offsets are relative to.
			return
		}
		a, b := m[2*d.group], m[2*d.group+1]
		if a < 0 || a == b {
			return
		}
		a, b = a+off, b+off
		// A quoted value is redacted inside its quotes.
		if b-a >= 2 && (s[a] == '"' || s[a] == '\'') && s[b-1] == s[a] {
			a, b = a+1, b-1
			if a == b {
				return
			}
		}
		spans = append(spans, span{a, b, d.kind, prio})
	}
	for prio, d := range detectors() {
		if d.keyword != notKeyword {
			if keys == nil {
				keys = keywordKeys(lower, newlines())
			}
			tried := map[int]bool{}
			for _, k := range keys {
				at := k.plain
				switch d.keyword {
				case keyDotted:
					at = k.dotted
				case keyFlag:
					// The key's own walk took in its dashes; a flag
					// stands at the start or after a blank.
					if at < len(s) && s[at] != '-' || at > 0 && s[at-1] != ' ' && s[at-1] != '\t' && s[at-1] != '\n' {
						continue
					}
				}
				if tried[at] {
					continue
				}
				tried[at] = true
				if !plausible(d.keyword, s, at, k) {
					continue
				}
				if m := d.re.get().FindStringSubmatchIndex(s[at:k.limit]); m != nil {
					add(prio, d, m, at)
				}
			}
			continue
		}
		if len(d.hints) > 0 && !containsAny(lower, d.hints) {
			continue
		}
		if d.multiline {
			for _, m := range d.re.get().FindAllStringSubmatchIndex(s, -1) {
				add(prio, d, m, 0)
			}
			continue
		}
		// Only the lines that hold a hint are searched: these regexps
		// begin with \b, which defeats the engine's own literal scan.
		for _, w := range hintWindows(lower, d.hints, newlines()) {
			for _, m := range d.re.get().FindAllStringSubmatchIndex(s[w[0]:w[1]], -1) {
				add(prio, d, m, w[0])
			}
		}
	}
	for _, r := range scanRuns(s) {
		spans = append(spans, span{r[0], r[1], "high-entropy", len(detectors())})
	}
	if len(spans) == 0 {
		return nil
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	merged := spans[:1]
	for _, sp := range spans[1:] {
		last := &merged[len(merged)-1]
		if sp.start <= last.end {
			if sp.end > last.end {
				last.end = sp.end
			}
			if sp.prio < last.prio {
				// Overlapping finds name the most specific kind.
				last.kind, last.prio = sp.kind, sp.prio
			}
			continue
		}
		merged = append(merged, sp)
	}
	return merged
}

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

// ContainsSecret reports whether Redact would change s.
func ContainsSecret(s string) bool { return len(findSpans(s)) > 0 }

// RedactValue returns a copy of a JSON tree (as schemas.ParseJSON builds it)
// with every string redacted, and every string under a member whose name
// announces a secret ("password", "api_key", "env.GITHUB_TOKEN") replaced
// whole. The input is not modified.
func RedactValue(v any) (any, []Finding) {
	var findings []Finding
	out := redactValue(v, "", false, &findings)
	return out, findings
}

func redactValue(v any, path string, underSecret bool, findings *[]Finding) any {
	switch x := v.(type) {
	case string:
		if underSecret && !isReference(x) {
			*findings = append(*findings, Finding{Kind: "secret-field", Path: path, Start: 0, End: len(x)})
			return Redacted
		}
		r, fs := Redact(x)
		for _, f := range fs {
			f.Path = path
			*findings = append(*findings, f)
		}
		return r
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out := make(map[string]any, len(x))
		for _, k := range keys {
			out[k] = redactValue(x[k], path+"/"+EscapePointer(k), underSecret || IsSecretKey(k), findings)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = redactValue(e, path+"/"+strconv.Itoa(i), underSecret, findings)
		}
		return out
	default:
		return v
	}
}

// EscapePointer escapes one JSON-pointer reference token (RFC 6901).
func EscapePointer(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

// SaltedHash is the hex HMAC-SHA256 of s under salt: how session ids, turn
// ids and prompts are stored, so that equal values can be correlated within
// one deployment without being recoverable or comparable across deployments.
func SaltedHash(salt []byte, s string) string {
	m := hmac.New(sha256.New, salt)
	m.Write([]byte(s))
	return hex.EncodeToString(m.Sum(nil))
}

// lazyRE compiles its pattern on first use: detectors run only when their
// hints appear, so most texts (and most hook processes) never compile most
// of them.
type lazyRE struct {
	pattern string
	once    sync.Once
	re      *regexp.Regexp
}

func lazy(pattern string) *lazyRE { return &lazyRE{pattern: pattern} }

func (l *lazyRE) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.pattern) })
	return l.re
}
