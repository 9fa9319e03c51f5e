package bridge

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
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

// detector finds one kind of secret. group selects the submatch that is the
// secret (0 = the whole match), so that "password=" or "Bearer " stays
// readable and only the value goes. check, when set, rejects look-alikes
// that the regular expression alone cannot tell apart.
//
// Speed matters (the registry scans whole prompts): hints are lower-case
// literals one of which every match contains, so a detector whose hints are
// absent costs a substring search instead of a regexp scan.
type detector struct {
	kind  string
	re    *lazyRE
	group int
	check func(m []int, s string) bool
	hints []string
	// multiline detectors search the whole text; the others only the
	// lines around their hints.
	multiline bool
	// keyword detectors are anchored regexps tried at the start of every
	// key that contains a secret keyword, instead of scanning the text.
	keyword keyForm
}

// keyForm says where a keyword detector's match starts.
type keyForm int

const (
	notKeyword keyForm = iota
	keyDotted          // at the key, dots included ("db.password = …")
	keyPlain           // at the key, without dots ("token 3fa9…")
	keyFlag            // at the key's leading dashes, after a blank ("--password …")
)

// secretWords are the key segments that make the value after them a secret.
// Matching whole segments (not substrings) keeps "author" and "max_tokens"
// out while catching "GITHUB_TOKEN", "db.password" and "X-Api-Key".
var secretWords = map[string]bool{
	"password": true, "passwd": true, "passphrase": true, "pwd": true, "pass": true,
	"secret": true, "token": true, "apikey": true, "credential": true, "credentials": true,
	"auth": true, "authorization": true, "privatekey": true, "accesskey": true, "secretkey": true,
	"sessionkey": true, "signingkey": true, "cookie": true, "jwt": true, "bearer": true,
}

// secretPairs are two-segment keys whose parts are harmless alone.
var secretPairs = map[[2]string]bool{
	{"api", "key"}: true, {"access", "key"}: true, {"private", "key"}: true, {"secret", "key"}: true,
	{"client", "secret"}: true, {"auth", "token"}: true, {"session", "key"}: true, {"signing", "key"}: true,
	{"master", "key"}: true, {"encryption", "key"}: true, {"account", "key"}: true, {"app", "key"}: true,
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

// IsSecretKey reports whether a member or variable name announces a secret
// value ("api_key", "GITHUB_TOKEN", "dbPassword", "X-Auth-Token").
func IsSecretKey(key string) bool {
	segs := keySegments(key)
	for i, s := range segs {
		if secretWords[s] {
			return true
		}
		if i+1 < len(segs) && secretPairs[[2]string{s, segs[i+1]}] {
			return true
		}
	}
	return false
}

// isReference reports values that name a secret rather than contain one:
// shell and template references, placeholders, booleans. Redacting them
// would hide what a command does without protecting anything.
func isReference(v string) bool {
	v = strings.Trim(v, `"'`)
	if v == "" {
		return true
	}
	if strings.HasPrefix(v, "$") || strings.HasPrefix(v, "%") || strings.HasPrefix(v, "{{") ||
		strings.HasPrefix(v, "<") || strings.HasPrefix(v, "[redacted") || strings.Trim(v, "*x•.") == "" {
		return true
	}
	switch strings.ToLower(v) {
	case "true", "false", "null", "none", "nil", "undefined", "yes", "no", "required", "optional", "string":
		return true
	}
	return false
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

func group(m []int, s string, g int) string {
	if 2*g+1 >= len(m) || m[2*g] < 0 {
		return ""
	}
	return s[m[2*g]:m[2*g+1]]
}

// The detectors, most specific first: where spans overlap, the earlier
// kind names the finding. They are compiled on first use: a hook process
// that never redacts (a PreToolUse) must not pay for compiling them.
var detectors = sync.OnceValue(func() []detector {
	return []detector{
		// A private key is redacted from its BEGIN line to its END line, or to
		// the end of the text when the END line is missing (a truncated paste
		// still must not leak the key body).
		{kind: "private-key", hints: []string{"private key"}, multiline: true, re: lazy(`-----BEGIN[ A-Z0-9]*PRIVATE KEY[ A-Z]*-----(?s:.*?)(?:-----END[ A-Z0-9]*PRIVATE KEY[ A-Z]*-----|\z)`)},
		{kind: "anthropic-key", hints: []string{"sk-ant-"}, re: lazy(`\bsk-ant-[A-Za-z0-9_\-]{16,}`)},
		{kind: "openai-key", hints: []string{"sk-"}, re: lazy(`\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]{20,}`),
			check: func(m []int, s string) bool { return hasClasses(s[m[0]+3:m[1]], true, false, false) }},
		{kind: "github-token", hints: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}, re: lazy(`\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})`)},
		{kind: "aws-access-key", hints: []string{"akia", "asia", "abia", "acca", "agpa", "aida", "aipa", "anpa", "anva", "aroa", "apka"}, re: lazy(`\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA)[A-Z0-9]{16}\b`)},
		{kind: "aws-secret-key", hints: []string{"aws"}, re: lazy(`(?i)aws[A-Za-z0-9_.\-]{0,20}(?:secret|sk)[A-Za-z0-9_.\-]*["']?\s*[:=]?\s*["']?([A-Za-z0-9/+=]{40})\b`), group: 1},
		{kind: "google-api-key", hints: []string{"aiza"}, re: lazy(`\bAIza[0-9A-Za-z_\-]{35}`)},
		{kind: "slack-token", hints: []string{"xox", "xapp-"}, re: lazy(`\b(?:xox[abposre]-[A-Za-z0-9\-]{10,}|xapp-[0-9]-[A-Za-z0-9\-]{10,})`)},
		{kind: "slack-webhook", hints: []string{"hooks.slack.com"}, re: lazy(`hooks\.slack\.com/(?:services|workflows)/([A-Za-z0-9/_\-]{8,})`), group: 1},
		{kind: "jwt", hints: []string{"eyj"}, re: lazy(`\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*`)},
		{kind: "bearer", hints: []string{"bearer"}, re: lazy(`(?i)\bbearer\s+([A-Za-z0-9\-._~+/]{8,}=*)`), group: 1},
		{kind: "authorization", hints: []string{"authorization"}, re: lazy(`(?i)\bauthorization["']?\s*[:=]\s*["']?(?:basic|token|bearer|digest)?\s*([A-Za-z0-9\-._~+/]{8,}=*)`), group: 1},
		// userinfo password: scheme://user:PASSWORD@host
		{kind: "url-password", hints: []string{"://"}, re: lazy(`\b[A-Za-z][A-Za-z0-9+.\-]*://[^\s/:@'"]*:([^\s/@'"]+)@`), group: 1,
			check: func(m []int, s string) bool { return !isReference(group(m, s, 1)) }},
		// key=value, key: value, "key": "value" where the key names a secret.
		{kind: "secret-assignment", keyword: keyDotted, re: lazy(`^(?i)([A-Za-z0-9_.\-]*(?:pass|pwd|secret|token|key|auth|credential|cookie|jwt|bearer)[A-Za-z0-9_.\-]*)["']?\s*[:=]\s*("[^"\n]*"|'[^'\n]*'|[^\s"'&;,|)}\]<>]+)`), group: 2,
			check: func(m []int, s string) bool {
				v := group(m, s, 2)
				// "Authorization: Bearer X": the value is the scheme; the
				// authorization detector takes the credential after it.
				return IsSecretKey(group(m, s, 1)) && !isReference(v) && !authScheme[strings.ToLower(v)]
			}},
		// --password VALUE, --api-key VALUE
		{kind: "secret-flag", keyword: keyFlag, re: lazy(`^(?i)--?([A-Za-z0-9_\-]*(?:pass|pwd|secret|token|key|auth|credential)[A-Za-z0-9_\-]*)\s+("[^"\n]*"|'[^'\n]*'|[^\s"'&;|]+)`), group: 2,
			check: func(m []int, s string) bool {
				v := group(m, s, 2)
				return IsSecretKey(group(m, s, 1)) && !strings.HasPrefix(v, "-") && !isReference(v)
			}},
		// A high-entropy run shortly after a secret-ish word ("token → 3fa9…",
		// "key is 9b1c…"): hex or base64 that the specific shapes above missed.
		{kind: "high-entropy", keyword: keyPlain, re: lazy(`^(?i)([A-Za-z0-9_\-]*(?:pass|pwd|secret|token|key|auth|credential)[A-Za-z0-9_\-]*)[^A-Za-z0-9\n]{1,4}(?:(?i:is|was|to|of)[^A-Za-z0-9\n]{1,3})?([A-Za-z0-9+/_\-]{16,}={0,2})`), group: 2,
			check: func(m []int, s string) bool {
				k, v := group(m, s, 1), group(m, s, 2)
				segs := keySegments(k)
				secretish := IsSecretKey(k)
				for _, sg := range segs {
					if sg == "key" || sg == "keys" {
						secretish = true
					}
				}
				return secretish && hasClasses(v, true, false, false) && entropy(v) >= 3.0
			}},
		// A long base64-looking run anywhere is found by scanRuns below.
	}
})

// authScheme are the words of an Authorization header before its credential.
var authScheme = map[string]bool{"bearer": true, "basic": true, "token": true, "digest": true, "negotiate": true}

// secretKeywords are what the keyword detectors' keys must contain.
var secretKeywords = []string{"pass", "pwd", "secret", "token", "key", "auth", "credential", "cookie", "jwt", "bearer"}

// asciiLower lower-cases ASCII letters only, so that byte offsets in the
// result are offsets in s (strings.ToLower may change lengths).
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// keyStart is where the keys around one keyword occurrence begin, and how
// far a match from there may reach (the end of the next line: a value sits
// on the key's line, a flag's value at most one line break later).
type keyStart struct {
	dotted, plain, limit int
}

// plausible is a cheap test that a keyword detector's regexp could match
// at `at`: the key must name a secret and be followed by what the form
// needs. Most keyword hits in prose ("tests pass", "the key point") fail
// here, which keeps a 1 MB prompt to milliseconds rather than a regexp
// call per keyword.
func plausible(form keyForm, s string, at int, k keyStart) bool {
	dots := form == keyDotted
	i := at
	for i < k.limit && (s[i] == '-' && form == keyFlag) {
		i++
	}
	start := i
	for i < k.limit && isKeyChar(s[i], dots) {
		i++
	}
	key := s[start:i]
	if i >= k.limit || key == "" {
		return false
	}
	switch form {
	case keyDotted:
		if !IsSecretKey(key) {
			return false
		}
		j := i
		for j < k.limit && (s[j] == '"' || s[j] == '\'' || s[j] == ' ' || s[j] == '\t') {
			j++
		}
		return j < k.limit && (s[j] == '=' || s[j] == ':')
	case keyFlag:
		return IsSecretKey(key) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n')
	default:
		c := s[i]
		if c == '\n' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			return false
		}
		// A value run of 16+ characters must start within a few bytes
		// (separators, or a short word like "is").
		end := i + 12
		if end > k.limit {
			end = k.limit
		}
		for j := i + 1; j < end; j++ {
			n := 0
			for j+n < k.limit && n < 16 && (isKeyChar(s[j+n], false) || s[j+n] == '+' || s[j+n] == '/') {
				n++
			}
			if n == 16 {
				return true
			}
		}
		return false
	}
}

func isKeyChar(c byte, dots bool) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || (dots && c == '.')
}

// keywordKeys finds every occurrence of a secret keyword and walks back to
// the start of the key around it. nls are the newline offsets (searched,
// so that one long line does not make this quadratic).
func keywordKeys(lower string, nls []int) []keyStart {
	var out []keyStart
	for _, kw := range secretKeywords {
		for from := 0; ; {
			i := strings.Index(lower[from:], kw)
			if i < 0 {
				break
			}
			pos := from + i
			from = pos + len(kw)
			ks := keyStart{dotted: pos, plain: pos, limit: len(lower)}
			for ks.plain > 0 && pos-ks.plain < 256 && isKeyChar(lower[ks.plain-1], false) {
				ks.plain--
			}
			for ks.dotted > 0 && pos-ks.dotted < 256 && isKeyChar(lower[ks.dotted-1], true) {
				ks.dotted--
			}
			if k := sort.SearchInts(nls, pos); k+1 < len(nls) {
				ks.limit = nls[k+1]
			}
			out = append(out, ks)
		}
	}
	return out
}

// hintWindows are the merged stretches of text around each hint: from the
// start of its line (at most 256 bytes back) to the end of its line.
func hintWindows(lower string, hints []string, nls []int) [][2]int {
	var ws [][2]int
	for _, h := range hints {
		for from := 0; ; {
			i := strings.Index(lower[from:], h)
			if i < 0 {
				break
			}
			pos := from + i
			from = pos + len(h)
			k := sort.SearchInts(nls, pos)
			start, end := 0, len(lower)
			if k > 0 {
				start = nls[k-1] + 1
			}
			if pos-start > 256 {
				start = pos - 256
			}
			if k < len(nls) {
				end = nls[k]
			}
			ws = append(ws, [2]int{start, end})
		}
	}
	if len(ws) == 0 {
		return nil
	}
	sort.Slice(ws, func(i, j int) bool { return ws[i][0] < ws[j][0] })
	merged := ws[:1]
	for _, w := range ws[1:] {
		last := &merged[len(merged)-1]
		if w[0] <= last[1] {
			if w[1] > last[1] {
				last[1] = w[1]
			}
			continue
		}
		merged = append(merged, w)
	}
	return merged
}

// scanRuns finds long base64-looking runs anywhere ([A-Za-z0-9+_-]{40,}
// plus padding) with digits, both cases and near-random entropy. Pure hex
// is left alone: commit and content hashes are everywhere in commands and
// are not secrets. A hand-written scan, because a regexp with no literal to
// anchor on costs a full automaton pass per megabyte.
func scanRuns(s string) [][2]int {
	var out [][2]int
	in := func(c byte) bool {
		return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '_' || c == '-'
	}
	for i := 0; i < len(s); {
		if !in(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && in(s[j]) {
			j++
		}
		if j-i >= 40 {
			end := j
			for k := 0; k < 2 && end < len(s) && s[end] == '='; k++ {
				end++
			}
			v := s[i:end]
			if hasClasses(v, true, true, true) && entropy(v) >= 4.5 {
				out = append(out, [2]int{i, end})
			}
		}
		i = j
	}
	return out
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
			out[k] = redactValue(x[k], path+"/"+escapePointer(k), underSecret || IsSecretKey(k), findings)
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

func escapePointer(tok string) string {
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

// DefaultSummaryMax is the audit journal's summary cap (the contract's
// reference writer caps `summary` at 300 characters).
const DefaultSummaryMax = 300

// Summary renders a tool call as one redacted line of at most max
// characters (runes; DefaultSummaryMax when max <= 0), e.g.
// `Bash: git status && rm -rf build`, `Write: src/a.go (1.2 KB)`. tool is a
// name in the gate's vocabulary and input its (translated) tool_input. File
// contents never appear: writes and edits are summarised by path and size.
func Summary(tool string, input any, max int) string {
	if max <= 0 {
		max = DefaultSummaryMax
	}
	m, _ := input.(map[string]any)
	var body string
	switch tool {
	case "Bash", "PowerShell":
		body = str(m, "command")
	case "Write":
		body = pathsOf(m)
		if c, ok := m["content"].(string); ok {
			body += " (" + humanBytes(len(c)) + ")"
		}
	case "Edit":
		body = pathsOf(m)
	case "MultiEdit":
		body = pathsOf(m)
		if e, ok := m["edits"].([]any); ok {
			body += fmt.Sprintf(" (%d edits)", len(e))
		}
	case "Read", "NotebookEdit":
		body = pathsOf(m)
	case "Glob", "Grep":
		body = str(m, "pattern")
		if p := str(m, "path"); p != "" {
			body += " in " + p
		}
	case "WebFetch":
		body = str(m, "url")
		if u, ok := m["urls"].([]any); ok && len(u) > 1 {
			body += fmt.Sprintf(" (+%d more)", len(u)-1)
		}
	case "WebSearch":
		body = str(m, "query")
	case "Agent", "Task":
		body = str(m, "subagent_type")
		if d := str(m, "description"); d != "" {
			if body != "" {
				body += ": "
			}
			body += d
		}
	default:
		body = opaqueArgs(m)
	}
	line := tool
	if body != "" {
		line += ": " + body
	}
	// Redact before clipping (a clipped secret may no longer match its
	// pattern), but only a window of the text: a 10 MB command must not
	// cost a 10 MB scan to produce 300 characters.
	window := max*utf8.UTFMax + 1024
	if len(line) > window {
		line = line[:window]
	}
	line, _ = Redact(line)
	return clip(oneLine(line), max)
}

// contentKeys hold payloads, never shown in a summary of an opaque tool.
var contentKeys = map[string]bool{
	"content": true, "contents": true, "body": true, "text": true, "data": true, "patch": true,
	"code": true, "new_string": true, "old_string": true, "newstring": true, "oldstring": true,
	"input": true, "source": true, "new_source": true, "diff": true, "message": true, "prompt": true,
	"file_text": true, "edits": true,
}

func opaqueArgs(m map[string]any) string {
	if len(m) == 0 {
		return ""
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		switch v := m[k].(type) {
		case string:
			if contentKeys[strings.ToLower(k)] || IsSecretKey(k) || utf8.RuneCountInString(v) > 80 {
				parts = append(parts, k+"=<"+humanBytes(len(v))+">")
			} else {
				parts = append(parts, k+"="+v)
			}
		case map[string]any:
			parts = append(parts, k+"={…}")
		case []any:
			parts = append(parts, fmt.Sprintf("%s=[%d]", k, len(v)))
		case nil:
			parts = append(parts, k+"=null")
		default:
			parts = append(parts, fmt.Sprintf("%s=%v", k, v))
		}
	}
	return strings.Join(parts, ", ")
}

func pathsOf(m map[string]any) string {
	var paths []string
	if ps, ok := m["file_paths"].([]any); ok {
		for _, p := range ps {
			if s, ok := p.(string); ok {
				paths = append(paths, s)
			}
		}
	}
	if len(paths) == 0 {
		p := str(m, "file_path")
		if p == "" {
			p = str(m, "notebook_path")
		}
		return p
	}
	const show = 3
	if len(paths) <= show {
		return strings.Join(paths, ", ")
	}
	return strings.Join(paths[:show], ", ") + fmt.Sprintf(" (+%d more)", len(paths)-show)
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

// humanBytes renders a size the way a person reads it: 512 B, 1.2 KB, 3.4 MB.
func humanBytes(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	default:
		return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
	}
}

// invisible are format characters that reorder or hide text in a terminal
// (bidi overrides, zero-width joiners); a summary shown in the cockpit must
// read the same as what the agent ran.
func invisible(r rune) bool {
	switch {
	case r >= 0x200B && r <= 0x200F, r >= 0x202A && r <= 0x202E, r >= 0x2060 && r <= 0x2069,
		r == 0xFEFF, r == 0x2028, r == 0x2029, r == 0x00AD:
		return true
	}
	return false
}

// oneLine replaces control and invisible characters with spaces, turns
// invalid UTF-8 into U+FFFD and collapses whitespace runs: the result is
// safe to print on a terminal and to write to the journal (the audit schema
// refuses \p{Cc} in a summary).
func oneLine(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		if unicode.IsControl(r) || unicode.IsSpace(r) || invisible(r) {
			if !space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		b.WriteRune(r)
	}
	return strings.TrimRight(b.String(), " ")
}

// clip cuts s to at most max runes, marking the cut with an ellipsis.
func clip(s string, max int) string {
	if max <= 0 || utf8.RuneCountInString(s) <= max {
		return s
	}
	if max == 1 {
		return "…"
	}
	n := 0
	for i := range s {
		if n == max-1 {
			return strings.TrimRight(s[:i], " ") + "…"
		}
		n++
	}
	return s
}

// OneLine is oneLine clipped to max runes: for reasons and messages that
// come from elsewhere and must fit one line of a terminal or journal.
func OneLine(s string, max int) string {
	r, _ := Redact(s)
	return clip(oneLine(r), max)
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
