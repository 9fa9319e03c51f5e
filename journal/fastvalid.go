package journal

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/leasedeck/leasedeck/schemas"
)

// validateValue checks one parsed line against its file's schema.
//
// The general draft-07 validator costs 10–20 µs a line, which alone would
// put a million-line replay far past its 3 s budget. Most lines are small
// and flat (heartbeats, gate decisions), so a hand-written check decides
// those first. It is one-sided by construction: it answers "certainly
// valid" or "ask the schema", never "invalid", so a mistake in it can only
// cost time, never let an invalid line through — provided every rule it
// accepts on is at least as strict as the schema's. fastvalid_test.go holds
// it to that: it compares these rules with the vendored schema text (so a
// schema update fails the build until this file is reviewed) and checks,
// over generated and mutated records, that nothing it accepts is refused
// by schemas.Validate.
func validateValue(k Kind, m map[string]any) ([]schemas.Error, error) {
	var fast bool
	switch k {
	case Leases:
		fast = fastLeaseRecord(m)
	case Audit:
		fast = fastAuditEvent(m)
	}
	if fast {
		return nil, nil
	}
	return schemas.Validate(k.Shape(), m)
}

// fastLeaseRecord: lease-record.schema.json, schema set 1.2. The members
// whose subschemas are whole manifests (lease, declared) are left to the
// schema.
func fastLeaseRecord(m map[string]any) bool {
	for name, v := range m {
		if !fastLeaseMember(name, v) {
			return false
		}
	}
	for _, name := range [...]string{"schema_version", "at", "event", "lease_id"} {
		if _, ok := m[name]; !ok {
			return false
		}
	}
	// The allOf if/then rules: members an event requires.
	switch m["event"].(string) {
	case "refused":
		return has(m, "reasons") && has(m, "declared_hash")
	case "granted":
		return has(m, "lease")
	case "narrowed", "stopped":
		return has(m, "reason")
	case "revoked":
		return has(m, "reason") && has(m, "by")
	case "attached":
		return has(m, "containment") && has(m, "platform")
	}
	return true
}

// fastLeaseMember checks one top-level member of a lease record. Any
// member the schema does not define is fine (additionalProperties: true),
// seq/prev/mac included.
func fastLeaseMember(name string, v any) bool {
	switch name {
	case "schema_version":
		return isSchemaVersion(v)
	case "at":
		return isMillisUTC(v)
	case "event":
		s, ok := v.(string)
		return ok && leaseEvents[s]
	case "lease_id", "parent_lease_id":
		return isUUID(v)
	case "declared_hash", "granted_hash", "signature":
		return isSHA256(v)
	case "reasons":
		return isReasonList(v)
	case "reason":
		return isShortString(v, 500)
	case "by":
		s, ok := v.(string)
		return ok && (s == "issuer" || isUUID(v))
	case "containment":
		s, ok := v.(string)
		return ok && (s == "enforced" || s == "advisory")
	case "platform":
		return isShortString(v, 32)
	case "usage":
		return isUsage(v)
	case "lease", "declared":
		return false // whole manifests: the schema's job
	}
	return true
}

// isUsage: an object whose tokens, if present, is an integer from 0 to
// 2^53-1 and whose cost_usd, if present, is a number of at least 0. Only
// plain digit strings count as tokens here (the schema also takes 5.0).
func isUsage(v any) bool {
	u, ok := v.(map[string]any)
	if !ok {
		return false
	}
	if t, ok := u["tokens"]; ok {
		n, ok := t.(json.Number)
		if !ok || !isDigits(string(n)) {
			return false
		}
		if x, err := strconv.ParseUint(string(n), 10, 64); err != nil || x > schemas.MaxSafeInteger {
			return false
		}
	}
	if c, ok := u["cost_usd"]; ok {
		// A JSON number literal without a minus sign is at least 0.
		if n, ok := c.(json.Number); !ok || len(n) == 0 || n[0] == '-' {
			return false
		}
	}
	return true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

var leaseEvents = map[string]bool{
	"granted": true, "refused": true, "narrowed": true, "heartbeat": true, "attached": true,
	"revoked": true, "stopped": true, "completed": true, "expired": true,
}

// fastAuditEvent: audit-event.schema.json, schema set 1.2.
func fastAuditEvent(m map[string]any) bool {
	for name, v := range m {
		switch name {
		case "schema_version":
			if !isSchemaVersion(v) {
				return false
			}
		case "timestamp":
			if !isTimestamp(v) {
				return false
			}
		case "event_type":
			if !isEventType(v) {
				return false
			}
		case "event_id", "session_id", "request_id", "spec_slug", "task_id", "phase":
			if _, ok := v.(string); !ok {
				return false
			}
		case "actor":
			if !isActor(v) {
				return false
			}
		case "summary":
			if !isShortString(v, 300) || hasControl(v.(string)) {
				return false
			}
		case "reasoning":
			if !isShortString(v, 500) || hasControl(v.(string)) {
				return false
			}
		case "request_hash":
			if !isSHA256(v) {
				return false
			}
		case "outcome":
			if s, ok := v.(string); !ok || (s != "success" && s != "failure" && s != "partial") {
				return false
			}
		case "details":
			if !isFlatDetails(v) {
				return false
			}
		}
	}
	return has(m, "schema_version") && has(m, "timestamp") && has(m, "event_type")
}

func has(m map[string]any, name string) bool { _, ok := m[name]; return ok }

// isShortString accepts a string whose byte length is within max. The
// schema's maxLength counts characters, never more than bytes, so a string
// this accepts the schema accepts too; a longer one goes to the schema.
func isShortString(v any, max int) bool {
	s, ok := v.(string)
	return ok && len(s) <= max
}

// hasControl is the summary/reasoning rule `not: pattern [\x00-\x1f\x7f]`.
func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return true
		}
	}
	return false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// digitsAt reports whether s[i:i+n] are all ASCII digits (RE2's \d).
func digitsAt(s string, i, n int) bool {
	if i+n > len(s) {
		return false
	}
	for j := i; j < i+n; j++ {
		if !isDigit(s[j]) {
			return false
		}
	}
	return true
}

// isSchemaVersion: ^\d+\.\d+$
func isSchemaVersion(v any) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	dot := -1
	for i := 0; i < len(s); i++ {
		switch {
		case isDigit(s[i]):
		case s[i] == '.' && dot < 0:
			dot = i
		default:
			return false
		}
	}
	return dot > 0 && dot < len(s)-1
}

// isDateTimeSeconds checks \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2} at the start.
func isDateTimeSeconds(s string) bool {
	return len(s) >= 19 && digitsAt(s, 0, 4) && s[4] == '-' && digitsAt(s, 5, 2) && s[7] == '-' &&
		digitsAt(s, 8, 2) && s[10] == 'T' && digitsAt(s, 11, 2) && s[13] == ':' &&
		digitsAt(s, 14, 2) && s[16] == ':' && digitsAt(s, 17, 2)
}

// isMillisUTC: ^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$
func isMillisUTC(v any) bool {
	s, ok := v.(string)
	return ok && len(s) == 24 && isDateTimeSeconds(s) && s[19] == '.' && digitsAt(s, 20, 3) && s[23] == 'Z'
}

// isTimestamp: ^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$
func isTimestamp(v any) bool {
	s, ok := v.(string)
	if !ok || !isDateTimeSeconds(s) {
		return false
	}
	i := 19
	if i < len(s) && s[i] == '.' {
		i++
		j := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == j {
			return false
		}
	}
	rest := s[i:]
	if rest == "Z" {
		return true
	}
	return len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && digitsAt(rest, 1, 2) && rest[3] == ':' && digitsAt(rest, 4, 2)
}

// isUUID: ^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$
func isUUID(v any) bool {
	s, ok := v.(string)
	if !ok || len(s) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		switch i {
		case 8, 13, 18, 23:
			if s[i] != '-' {
				return false
			}
		default:
			if !isLowerHexByte(s[i]) {
				return false
			}
		}
	}
	return true
}

// isSHA256: ^[0-9a-f]{64}$
func isSHA256(v any) bool {
	s, ok := v.(string)
	if !ok || len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isLowerHexByte(s[i]) {
			return false
		}
	}
	return true
}

func isLowerHexByte(c byte) bool { return isDigit(c) || (c >= 'a' && c <= 'f') }

func isLowerAlnumUnderscore(c byte) bool { return (c >= 'a' && c <= 'z') || isDigit(c) || c == '_' }

// isEventType: ^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$, at most 120 long.
func isEventType(v any) bool {
	s, ok := v.(string)
	if !ok || len(s) == 0 || len(s) > 120 {
		return false
	}
	segments := 0
	for i := 0; i < len(s); {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
		i++
		for i < len(s) && isLowerAlnumUnderscore(s[i]) {
			i++
		}
		segments++
		if i < len(s) {
			if s[i] != '.' {
				return false
			}
			i++
			if i == len(s) {
				return false
			}
		}
	}
	return segments >= 2
}

// isReasonList: an array of one or more reason codes, each matching
// ^R[1-9][0-9]?$, ^runtime_error:[a-z0-9_]{1,64}$ or
// ^vendor:[a-z0-9-]{1,32}:[A-Za-z0-9_.-]{1,64}$.
func isReasonList(v any) bool {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return false
	}
	for _, item := range list {
		s, ok := item.(string)
		if !ok || !isReasonCode(s) {
			return false
		}
	}
	return true
}

func isReasonCode(s string) bool {
	switch {
	case len(s) >= 2 && len(s) <= 3 && s[0] == 'R':
		return s[1] >= '1' && s[1] <= '9' && (len(s) == 2 || isDigit(s[2]))
	case len(s) > len("runtime_error:") && s[:len("runtime_error:")] == "runtime_error:":
		return isRuntimeErrorCode(s[len("runtime_error:"):])
	case len(s) > len("vendor:") && s[:len("vendor:")] == "vendor:":
		return isVendorCode(s[len("vendor:"):])
	}
	return false
}

// isRuntimeErrorCode: what follows runtime_error:, [a-z0-9_]{1,64}.
func isRuntimeErrorCode(rest string) bool {
	if len(rest) > 64 {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if !isLowerAlnumUnderscore(rest[i]) {
			return false
		}
	}
	return true
}

// isVendorCode: what follows vendor:, [a-z0-9-]{1,32}:[A-Za-z0-9_.-]{1,64}.
func isVendorCode(rest string) bool {
	i := 0
	for i < len(rest) && ((rest[i] >= 'a' && rest[i] <= 'z') || isDigit(rest[i]) || rest[i] == '-') {
		i++
	}
	if i == 0 || i > 32 || i == len(rest) || rest[i] != ':' {
		return false
	}
	code := rest[i+1:]
	if len(code) == 0 || len(code) > 64 {
		return false
	}
	for j := 0; j < len(code); j++ {
		c := code[j]
		if !((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || isDigit(c) || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

var actorKinds = map[string]bool{"human": true, "agent": true, "system": true}

var runtimeAgents = map[string]bool{
	"codex-cli": true, "claude-code": true, "gemini-code-assist": true,
	"github-copilot": true, "cdf-native": true, "unknown": true,
}

func isActor(v any) bool {
	a, ok := v.(map[string]any)
	if !ok {
		return false
	}
	k, ok := a["kind"].(string)
	if !ok || !actorKinds[k] {
		return false
	}
	for name, f := range a {
		switch name {
		case "runtime", "model_vendor", "model_family", "model_version":
			if _, ok := f.(string); !ok {
				return false
			}
		case "runtime_agent":
			if s, ok := f.(string); !ok || !runtimeAgents[s] {
				return false
			}
		}
	}
	return true
}

// isFlatDetails: an object of scalars (strings of at most 200, numbers,
// booleans) whose member names the propertyNames rule admits.
func isFlatDetails(v any) bool {
	d, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for name, f := range d {
		if sensitiveName(name) {
			return false
		}
		switch x := f.(type) {
		case string:
			if len(x) > 200 {
				return false
			}
		case json.Number, bool:
		default:
			return false
		}
	}
	return true
}

// sensitiveWords are the ten words of the details propertyNames rule.
var sensitiveWords = [...]string{
	"authorization", "content", "file", "password", "path", "payload", "prompt", "request", "secret", "token",
}

// sensitiveName is the details propertyNames rule exactly: true when a
// member name matches any of the schema's three patterns, each of which
// needs one of the ten words (case-sensitive):
//
//	(^|[^A-Za-z0-9])(word)([^A-Za-z0-9]|$)   a lower-case segment: api_token
//	[a-z0-9](Word)([^a-z]|$)                 a camelCase interior: apiToken
//	^(word)[A-Z]                             a camelCase start: tokenCount
//
// Byte tests stand for the patterns' character classes: every byte of a
// multi-byte character is outside [A-Za-z0-9], as the character is. So
// `tokens` and `estimated_files_touched` are names the schema admits, and
// take the fast path; fastvalid_test.go compares this with the patterns.
func sensitiveName(name string) bool {
	for i := 0; i < len(name); i++ {
		for _, w := range wordsByInitial[name[i]] {
			if !strings.HasPrefix(name[i:], w) {
				continue
			}
			end := i + len(w)
			if (i == 0 || !isASCIIAlnum(name[i-1])) && (end == len(name) || !isASCIIAlnum(name[end])) {
				return true // lower-case segment
			}
			if i == 0 && end < len(name) && isASCIIUpper(name[end]) {
				return true // camelCase start
			}
		}
		for _, w := range wordsByCapital[name[i]] {
			if i == 0 || !strings.HasPrefix(name[i:], w) || !(isASCIILower(name[i-1]) || isDigit(name[i-1])) {
				continue
			}
			if end := i + len(w); end == len(name) || !isASCIILower(name[end]) {
				return true // camelCase interior
			}
		}
	}
	return false
}

// wordsByInitial and wordsByCapital index the words and their capitalised
// forms by first byte, so that a name is scanned once rather than once per
// word.
var wordsByInitial, wordsByCapital = func() (lower, capital [256][]string) {
	for _, w := range sensitiveWords {
		lower[w[0]] = append(lower[w[0]], w)
		c := string(w[0]-'a'+'A') + w[1:]
		capital[c[0]] = append(capital[c[0]], c)
	}
	return lower, capital
}()

func isASCIILower(c byte) bool { return c >= 'a' && c <= 'z' }
func isASCIIUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isASCIIAlnum(c byte) bool { return isASCIILower(c) || isASCIIUpper(c) || isDigit(c) }
