package journal

import (
	"encoding/json"
	"math/rand"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/leasedeck/leasedeck/contract"
	"github.com/leasedeck/leasedeck/schemas"
)

// The fast check encodes these schema fragments by hand. If the vendored
// schema changes, this test fails until fastvalid.go has been reviewed
// against the new text and the fragments below updated.
const (
	leaseRecordFragments = `{
 "type": "object",
 "required": ["schema_version", "at", "event", "lease_id"],
 "additionalProperties": true,
 "properties": {
  "schema_version": {"type": "string", "pattern": "^\\d+\\.\\d+$"},
  "at": {"type": "string", "pattern": "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$"},
  "event": {"type": "string", "enum": ["granted", "refused", "narrowed", "heartbeat", "attached", "revoked", "stopped", "completed", "expired"]},
  "lease_id": {"$ref": "#/definitions/uuid"},
  "parent_lease_id": {"$ref": "#/definitions/uuid"},
  "lease": {"$ref": "#/definitions/lease"},
  "declared": {"$ref": "#/definitions/manifest"},
  "declared_hash": {"$ref": "#/definitions/sha256"},
  "granted_hash": {"$ref": "#/definitions/sha256"},
  "reasons": {"type": "array", "minItems": 1, "items": {"$ref": "#/definitions/reasonCode"}},
  "reason": {"type": "string", "maxLength": 500},
  "by": {"anyOf": [{"$ref": "#/definitions/uuid"}, {"type": "string", "enum": ["issuer"]}]},
  "signature": {"$ref": "#/definitions/sha256"},
  "usage": {"$ref": "#/definitions/usage"},
  "containment": {"type": "string", "enum": ["enforced", "advisory"]},
  "platform": {"type": "string", "maxLength": 32}
 },
 "definitions": {
  "uuid": {"type": "string", "pattern": "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"},
  "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
  "usage": {"type": "object", "properties": {"tokens": {"type": "integer", "minimum": 0, "maximum": 9007199254740991}, "cost_usd": {"type": "number", "minimum": 0}}, "additionalProperties": true},
  "reasonCode": {"type": "string", "anyOf": [{"pattern": "^R[1-9][0-9]?$"}, {"pattern": "^runtime_error:[a-z0-9_]{1,64}$"}, {"pattern": "^vendor:[a-z0-9-]{1,32}:[A-Za-z0-9_.-]{1,64}$"}]}
 },
 "allOf": [
  {"if": {"properties": {"event": {"const": "refused"}}}, "then": {"required": ["reasons", "declared_hash"]}},
  {"if": {"properties": {"event": {"const": "granted"}}}, "then": {"required": ["lease"]}},
  {"if": {"properties": {"event": {"enum": ["narrowed", "revoked", "stopped"]}}}, "then": {"required": ["reason"]}},
  {"if": {"properties": {"event": {"const": "revoked"}}}, "then": {"required": ["by"]}},
  {"if": {"properties": {"event": {"const": "attached"}}}, "then": {"required": ["containment", "platform"]}}
 ]
}`
	auditEventFragments = `{
 "type": "object",
 "required": ["schema_version", "timestamp", "event_type"],
 "additionalProperties": true,
 "properties": {
  "schema_version": {"type": "string", "pattern": "^\\d+\\.\\d+$"},
  "timestamp": {"type": "string", "pattern": "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$"},
  "event_id": {"type": "string"},
  "event_type": {"type": "string", "pattern": "^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)+$", "maxLength": 120},
  "session_id": {"type": "string"},
  "request_id": {"type": "string"},
  "spec_slug": {"type": "string"},
  "task_id": {"type": "string"},
  "phase": {"type": "string"},
  "actor": {"type": "object", "required": ["kind"], "properties": {"kind": {"type": "string", "enum": ["human", "agent", "system"]}, "runtime": {"type": "string"}, "model_vendor": {"type": "string"}, "model_family": {"type": "string"}, "model_version": {"type": "string"}, "runtime_agent": {"type": "string", "enum": ["codex-cli", "claude-code", "gemini-code-assist", "github-copilot", "cdf-native", "unknown"]}}, "additionalProperties": true},
  "summary": {"type": "string", "maxLength": 300, "allOf": [{"not": {"pattern": "[\u0000-\u001f\u007f]"}}]},
  "reasoning": {"type": "string", "maxLength": 500, "allOf": [{"not": {"pattern": "[\u0000-\u001f\u007f]"}}]},
  "request_hash": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
  "outcome": {"type": "string", "enum": ["success", "failure", "partial"]},
  "details": {"type": "object", "additionalProperties": {"type": ["string", "number", "boolean"], "maxLength": 200}, "propertyNames": {"allOf": [{"not": {"pattern": "(^|[^A-Za-z0-9])(authorization|content|file|password|path|payload|prompt|request|secret|token)([^A-Za-z0-9]|$)"}}, {"not": {"pattern": "[a-z0-9](Authorization|Content|File|Password|Path|Payload|Prompt|Request|Secret|Token)([^a-z]|$)"}}, {"not": {"pattern": "^(authorization|content|file|password|path|payload|prompt|request|secret|token)[A-Z]"}}]}}
 }
}`
)

func stripDocs(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if k == "description" || k == "$comment" {
				continue
			}
			out[k] = stripDocs(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = stripDocs(e)
		}
		return out
	}
	return v
}

func TestFastValidMatchesSchemaText(t *testing.T) {
	for _, tc := range []struct {
		file, want string
	}{{"lease-record.schema.json", leaseRecordFragments}, {"audit-event.schema.json", auditEventFragments}} {
		raw, err := contract.Schema(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		var doc, want map[string]any
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(tc.want), &want); err != nil {
			t.Fatal(err)
		}
		doc = stripDocs(doc).(map[string]any)
		for key, w := range want {
			got := doc[key]
			if key == "definitions" { // only the ones the fast check encodes
				all := got.(map[string]any)
				sub := map[string]any{}
				for name := range w.(map[string]any) {
					sub[name] = all[name]
				}
				got = sub
			}
			if !reflect.DeepEqual(got, w) {
				g, _ := json.Marshal(got)
				t.Errorf("%s %s changed; review fastvalid.go against it.\n got %s", tc.file, key, g)
			}
		}
	}
}

// Everything the fast check accepts, the schema accepts: over generated
// records built from valid values and near misses.
func TestFastValidNeverAcceptsInvalid(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	n := 20000
	if testing.Short() {
		n = 3000
	}
	fastLease, fastAudit := 0, 0
	for i := 0; i < n; i++ {
		m := genRecord(rng, leaseFields)
		if fastLeaseRecord(m) {
			fastLease++
			if errs, _ := schemas.Validate(schemas.LeaseRecord, m); len(errs) > 0 {
				t.Fatalf("fast check accepted an invalid lease record %v: %v", m, errs)
			}
		}
		m = genRecord(rng, auditFields)
		if fastAuditEvent(m) {
			fastAudit++
			if errs, _ := schemas.Validate(schemas.AuditEvent, m); len(errs) > 0 {
				t.Fatalf("fast check accepted an invalid audit event %v: %v", m, errs)
			}
		}
	}
	// The generator must reach the accepting paths, or this proves nothing.
	if fastLease < n/50 || fastAudit < n/50 {
		t.Fatalf("too few accepted to mean anything: %d lease, %d audit of %d", fastLease, fastAudit, n)
	}
	t.Logf("accepted %d lease records and %d audit events of %d each", fastLease, fastAudit, n)
}

// The forms leasedeck writes all the time take the fast path.
func TestFastValidAcceptsCommonLines(t *testing.T) {
	for _, m := range []map[string]any{
		heartbeat(1),
		{"schema_version": "1.2", "at": "2026-11-29T10:00:00.000Z", "event": "revoked", "lease_id": testUUID(1), "by": "issuer", "reason": "scope violation"},
		{"schema_version": "1.2", "at": "2026-11-29T10:00:00.000Z", "event": "refused", "lease_id": testUUID(1), "reasons": []any{"R2", "runtime_error:invalid_manifest", "vendor:leasedeck:x.y"}, "declared_hash": strings.Repeat("a", 64), "reason": "no tools"},
		{"schema_version": "1.2", "at": "2026-11-29T10:00:00.000Z", "event": "attached", "lease_id": testUUID(1), "containment": "advisory", "platform": "linux"},
	} {
		v := roundTrip(t, m)
		if !fastLeaseRecord(v) {
			t.Errorf("slow path for %v", m)
		}
		if errs, _ := schemas.Validate(schemas.LeaseRecord, v); len(errs) > 0 {
			t.Errorf("invalid: %v", errs)
		}
	}
	if !fastAuditEvent(roundTrip(t, gateAllowed(1))) {
		t.Error("slow path for a gate line")
	}
}

func roundTrip(t *testing.T, m map[string]any) map[string]any {
	b, err := schemas.Canonical(m)
	if err != nil {
		t.Fatal(err)
	}
	v, err := schemas.ParseJSON(b)
	if err != nil {
		t.Fatal(err)
	}
	return v.(map[string]any)
}

// FuzzFastValid holds the same promise for arbitrary JSON.
func FuzzFastValid(f *testing.F) {
	for _, s := range []string{
		`{"schema_version":"1.2","at":"2026-11-29T10:00:00.000Z","event":"heartbeat","lease_id":"00000001-0000-4000-8000-000000000001"}`,
		`{"schema_version":"1.2","timestamp":"2026-11-29T10:00:00+01:00","event_type":"leasedeck.gate.allowed","details":{"tool":"Bash","n":1}}`,
		`{"schema_version":"1.2","at":"2026-11-29T10:00:00.000Z","event":"refused","lease_id":"00000001-0000-4000-8000-000000000001","reasons":["R1"],"declared_hash":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := schemas.ParseJSON(data)
		if err != nil {
			return
		}
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		if fastLeaseRecord(m) {
			if errs, _ := schemas.Validate(schemas.LeaseRecord, m); len(errs) > 0 {
				t.Fatalf("fast accepted an invalid lease record: %v", errs)
			}
		}
		if fastAuditEvent(m) {
			if errs, _ := schemas.Validate(schemas.AuditEvent, m); len(errs) > 0 {
				t.Fatalf("fast accepted an invalid audit event: %v", errs)
			}
		}
	})
}

type fieldGen struct {
	name     string
	required bool
	values   []any
}

var (
	validUUID   = "0b6f3c2e-8a7d-4e1b-9c55-2f1d3a4b5c6d"
	validSHA    = strings.Repeat("0f", 32)
	longASCII   = func(n int) string { return strings.Repeat("a", n) }
	commonJunk  = []any{nil, true, json.Number("1"), json.Number("-0.5"), []any{}, map[string]any{}, "", " "}
	timeForms   = []any{"2026-11-29T10:00:00.000Z", "2026-11-29T10:00:00Z", "2026-11-29T10:00:00.00Z", "2026-11-29T10:00:00.0000Z", "2026-11-29T10:00:00.000+01:00", "2026-11-29T10:00:00.123456+01:00", "2026-11-29T10:00:00-05:30", "2026-11-29 10:00:00.000Z", "2026-11-29T10:00:00.000Z\n", "２026-11-29T10:00:00.000Z", "2026-11-29T10:00:00.Z", "2026-11-29T10:00:00+0100", "2026-1-29T10:00:00.000Z", "12026-11-29T10:00:00.000Z"}
	versionForm = []any{"1.2", "1.10", "10.0", "1", "1.", ".2", "1.2.3", "v1.2", "1.2\n", "١.٢"}
	uuidForms   = []any{validUUID, strings.ToUpper(validUUID), validUUID + "0", validUUID[:35], "0b6f3c2e8a7d-4e1b-9c55-2f1d3a4b5c6d-", "0b6f3c2e-8a7d-4e1b-9c55-2f1d3a4b5c6g", "issuer"}
	shaForms    = []any{validSHA, validSHA[:63], validSHA + "0", strings.ToUpper(validSHA), strings.Repeat("g", 64)}
)

func strs(vals ...any) []any { return vals }

var leaseFields = []fieldGen{
	{"schema_version", true, versionForm},
	{"at", true, timeForms},
	{"event", true, strs("heartbeat", "granted", "refused", "narrowed", "attached", "revoked", "stopped", "completed", "expired", "Heartbeat", "paused")},
	{"lease_id", true, uuidForms},
	{"parent_lease_id", false, uuidForms},
	{"declared_hash", false, shaForms},
	{"granted_hash", false, shaForms},
	{"signature", false, shaForms},
	{"reasons", false, []any{[]any{"R1"}, []any{"R99", "runtime_error:x_1"}, []any{}, []any{"R0"}, []any{"R100"}, []any{"vendor:acme:Code.1"}, []any{"vendor:ACME:x"}, []any{"vendor::x"}, []any{"runtime_error:"}, []any{"runtime_error:" + longASCII(65)}, []any{"vendor:" + longASCII(33) + ":x"}, []any{json.Number("1")}, "R1"}},
	{"reason", false, []any{"fine", longASCII(500), longASCII(501), strings.Repeat("é", 250), strings.Repeat("é", 260)}},
	{"by", false, append(append([]any{}, uuidForms...), "Issuer", "issuer ")},
	{"containment", false, strs("enforced", "advisory", "none")},
	{"platform", false, []any{"linux", longASCII(32), longASCII(33), "win32"}},
	{"usage", false, []any{map[string]any{"tokens": json.Number("5"), "cost_usd": json.Number("0.25")}, map[string]any{"tokens": json.Number("-1")}, map[string]any{"tokens": json.Number("5.5")}, map[string]any{"tokens": json.Number("9007199254740992")}, map[string]any{"tokens": json.Number("9007199254740991")}, map[string]any{"cost_usd": json.Number("-0.1")}, map[string]any{"cost_usd": json.Number("1e3")}, map[string]any{"tokens": "5"}, map[string]any{"x": nil}, []any{}}},
	{"lease", false, []any{map[string]any{}}},
	{"seq", false, []any{json.Number("1")}},
	{"from_the_future", false, []any{map[string]any{"x": json.Number("1")}}},
}

var detailKeys = []string{"lease_id", "tool", "n", "file", "files", "estimated_files_touched", "filePath", "tokenCount", "Token", "TokenCount", "x-Token", "api_token", "apiToken2", "myFile2", "contentType", "PATH", "requested", "request", "secret_", "pathway", "Authorization", "x", strings.Repeat("k", 70), "path_" + strings.Repeat("k", 70)}

func genDetails(rng *rand.Rand) any {
	if rng.Intn(10) == 0 {
		return commonJunk[rng.Intn(len(commonJunk))]
	}
	d := map[string]any{}
	for i := rng.Intn(4); i > 0; i-- {
		var v any
		switch rng.Intn(7) {
		case 0:
			v = "x"
		case 1:
			v = longASCII(200 + rng.Intn(2))
		case 2:
			v = json.Number("3.5")
		case 3:
			v = false
		case 4:
			v = nil
		case 5:
			v = map[string]any{}
		case 6:
			v = strings.Repeat("é", 100+rng.Intn(2))
		}
		d[detailKeys[rng.Intn(len(detailKeys))]] = v
	}
	return d
}

var auditFields = []fieldGen{
	{"schema_version", true, versionForm},
	{"timestamp", true, timeForms},
	{"event_type", true, strs("leasedeck.gate.allowed", "a.b", "a", "A.b", "a..b", "a.b.", ".a.b", "a.1b", "a_b.c_d9", "a.b-c", "leasedeck."+longASCII(110), "leasedeck."+longASCII(111))},
	{"event_id", false, strs("e1")},
	{"session_id", false, strs("s1")},
	{"phase", false, strs("anything")},
	{"actor", false, []any{map[string]any{"kind": "agent"}, map[string]any{"kind": "robot"}, map[string]any{"runtime": "x"}, map[string]any{"kind": "human", "runtime_agent": "claude-code", "runtime": "vscode"}, map[string]any{"kind": "system", "runtime_agent": "hal"}, map[string]any{"kind": "agent", "model_family": json.Number("4")}}},
	{"summary", false, []any{"ok", longASCII(300), longASCII(301), "tab\there", "del\x7f", strings.Repeat("é", 150), "esc\x1b"}},
	{"reasoning", false, []any{"ok", longASCII(500), longASCII(501), "nl\n"}},
	{"request_hash", false, shaForms},
	{"outcome", false, strs("success", "failure", "partial", "maybe")},
	{"details", false, nil},
	{"seq", false, []any{json.Number("1")}},
	{"unknown_member", false, []any{[]any{json.Number("1")}}},
}

func genRecord(rng *rand.Rand, fields []fieldGen) map[string]any {
	m := map[string]any{}
	for _, f := range fields {
		present := rng.Intn(3) == 0 // optional members now and then
		switch {
		case f.required:
			present = rng.Intn(12) != 0
		case f.name == "lease":
			present = rng.Intn(20) == 0 // always left to the schema
		}
		if !present {
			continue
		}
		switch {
		case f.name == "details":
			m[f.name] = genDetails(rng)
		case rng.Intn(25) == 0:
			m[f.name] = commonJunk[rng.Intn(len(commonJunk))]
		case rng.Intn(4) != 0:
			// Mostly the first (valid) value, so that whole records
			// validate often enough to exercise the accepting paths.
			m[f.name] = f.values[0]
		default:
			m[f.name] = f.values[rng.Intn(len(f.values))]
		}
	}
	return m
}

// sensitiveName is the details propertyNames rule exactly, not an
// approximation: on the schema's own patterns it agrees with the regexp
// engine the validator uses, for every name built from the words, their
// case forms, separators, digits and non-ASCII letters.
func TestSensitiveNameIsThePropertyNamesRule(t *testing.T) {
	var patterns []*regexp.Regexp
	for _, p := range []string{
		"(^|[^A-Za-z0-9])(authorization|content|file|password|path|payload|prompt|request|secret|token)([^A-Za-z0-9]|$)",
		"[a-z0-9](Authorization|Content|File|Password|Path|Payload|Prompt|Request|Secret|Token)([^a-z]|$)",
		"^(authorization|content|file|password|path|payload|prompt|request|secret|token)[A-Z]",
	} {
		if !strings.Contains(auditEventFragments, strings.ReplaceAll(p, `\`, `\\`)) {
			t.Fatalf("pattern %s is not the schema's", p)
		}
		patterns = append(patterns, regexp.MustCompile(p))
	}
	schema := func(name string) bool {
		for _, re := range patterns {
			if re.MatchString(name) {
				return true
			}
		}
		return false
	}
	pieces := []string{"token", "Token", "TOKEN", "tokens", "file", "File", "files", "path", "Path", "request", "Requests",
		"secret", "Secret", "content", "Content", "authorization", "prompt", "payload", "password", "tok", "x", "X", "q", "Z",
		"_", "-", ".", " ", "1", "9", "é", "É", "ß", "\u00a0", "日本"}
	rng := rand.New(rand.NewSource(7))
	names := append([]string{}, detailKeys...)
	names = append(names, "tokens", "tokenCount", "token", "apiToken", "apiTokens", "x_token_y", "Xtoken", "xToken", "9Token", "éToken", "étoken", "tokené", "Tokenx", "TokenX",
		"xTokenX", "xToken1", "xToken_", "aFileB", "aFiles", "9Pathé", "tokenA", "token9", "fileé", "_file_", "file.", "FILE")
	for range 50000 {
		var b strings.Builder
		for j := rng.Intn(4) + 1; j > 0; j-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		names = append(names, b.String())
	}
	disagree := 0
	for _, name := range names {
		if got, want := sensitiveName(name), schema(name); got != want {
			disagree++
			if disagree <= 10 {
				t.Errorf("%q: sensitiveName %v, the schema's patterns %v", name, got, want)
			}
		}
	}
	for _, name := range []string{"tokens", "estimated_files_touched", "cost_usd", "lease_id", "admission_id"} {
		if sensitiveName(name) {
			t.Errorf("%q is admitted by the schema but refused here", name)
		}
	}
}

// A budget.spent line (details tokens, cost_usd) is one of the most
// common; its names are admitted by the schema, so it takes the fast path.
func TestFastValidAcceptsUsageDetails(t *testing.T) {
	m := roundTrip(t, map[string]any{"schema_version": "1.2", "timestamp": "2026-11-29T10:00:00.000Z", "event_type": "leasedeck.budget.spent",
		"details": map[string]any{"lease_id": validUUID, "tokens": json.Number("1200"), "cost_usd": json.Number("0.013")}})
	if !fastAuditEvent(m) {
		t.Fatal("slow path for a budget.spent line")
	}
	if errs, _ := schemas.Validate(schemas.AuditEvent, m); len(errs) > 0 {
		t.Fatalf("invalid: %v", errs)
	}
}
