package redact

import (
	"math"
	"sort"
	"strings"
	"sync"
	"unicode"
)

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
