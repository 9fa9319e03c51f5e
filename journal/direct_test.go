package journal

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/leasedeck/leasedeck/schemas"
)

// The direct decoder against the generic path (schemas.ParseJSON, the
// schema checks, parseSeq, parseHash, checkMAC), line by line:
//
//   - a line it declines is analysed exactly as without it: every field of
//     the analysis is the same, error texts included;
//   - a line it takes is one the generic path finds nothing wrong with (a
//     JSON object, valid against the full draft-07 schema, not only the
//     fast check), with the same seq, prev, mac verdict and hash, and its
//     members are the generic tree's, value for value.
func checkDirect(t testing.TB, raw []byte) bool {
	t.Helper()
	generic := newAnalyser(analyseOpts{kind: Audit, key: testKey, validate: true, hash: true})
	direct := newAnalyser(analyseOpts{kind: Audit, key: testKey, validate: true, hash: true, decodeAudit: true})
	want := analysed{Line: Line{Raw: raw, Number: 7, Offset: 11}}
	generic.analyse(&want)
	got := analysed{Line: Line{Raw: raw, Number: 7, Offset: 11}}
	direct.analyse(&got)
	if got.Audit == nil {
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("declined line analysed differently:\n line %q\n generic %+v\n direct  %+v", raw, want, got)
		}
		return false
	}
	if want.jsonErr != nil || want.seqErr != "" || want.prevErr != "" || len(want.schema) > 0 || want.schemaErr != nil {
		t.Fatalf("direct decoder took a line the generic path refuses: %q\n generic %+v", raw, want)
	}
	if errs, err := schemas.Validate(schemas.AuditEvent, want.Value); err != nil || len(errs) > 0 {
		t.Fatalf("direct decoder took a schema-invalid line %q: %v %v", raw, errs, err)
	}
	if want.Seq != got.Seq || want.prev != got.prev || want.mac != got.mac || want.hash != got.hash {
		t.Fatalf("line %q: seq %d/%d prev %x/%x mac %d/%d", raw, want.Seq, got.Seq, want.prev, got.prev, want.mac, got.mac)
	}
	if et := want.Value["event_type"].(string); strings.HasPrefix(et, "leasedeck.journal.") {
		t.Fatalf("direct decoder took the journal's own line %q", raw)
	}
	if tree, fields := withoutEmpty(want.Value), withoutEmpty(fieldsTree(got.Audit)); !reflect.DeepEqual(tree, fields) {
		t.Fatalf("line %q decoded differently:\n generic %v\n direct  %v", raw, tree, fields)
	}
	for _, name := range []string{"event_type", "timestamp", "summary", "nothing"} {
		if a, b := want.Line.Str(name), got.Line.Str(name); a != b {
			t.Fatalf("Str(%q): %q from the tree, %q direct", name, a, b)
		}
	}
	return true
}

// fieldsTree is the generic tree that AuditFields stands for.
func fieldsTree(f *AuditFields) map[string]any {
	m := map[string]any{}
	for _, name := range []string{"schema_version", "timestamp", "event_id", "event_type", "session_id", "request_id",
		"spec_slug", "task_id", "phase", "summary", "reasoning", "request_hash", "outcome"} {
		m[name] = f.str(name)
	}
	flat := func(list []Scalar) map[string]any {
		o := map[string]any{}
		for i := range list {
			o[list[i].Name] = list[i].Value()
		}
		return o
	}
	if f.HasActor {
		m["actor"] = flat(f.Actor)
	}
	if f.HasDetails {
		m["details"] = flat(f.Details)
	}
	return m
}

// withoutEmpty drops the journal's own members and empty top-level
// strings: AuditFields, like record.Audit, reads an empty string member
// as an absent one.
func withoutEmpty(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if s, ok := v.(string); (ok && s == "") || k == "seq" || k == "prev" || k == "mac" {
			continue
		}
		out[k] = v
	}
	return out
}

// auditBodies are records of the shapes leasedeck writes, and the
// generator's records of every shape the fast check knows.
func auditBodies(t testing.TB, n int) [][]byte {
	t.Helper()
	var bodies [][]byte
	for _, s := range []string{
		`{"actor":{"kind":"system","runtime":"leasedeck"},"details":{"admission_id":"160d362a-e9ab-43cd-8e5a-6c669860afca","client":"claude-code","lease_id":"ccfb7aa0-9bed-4f49-83f9-134693cc0549","session_hash":"3e3ff9aa4fe679c1bf76383e69bfb5e2167afb945aa30e15f05406cc8f55ad14"},"event_id":"143793cd-fad2-4124-8aa7-716b88fea636","event_type":"leasedeck.session.begun","schema_version":"1.2","summary":"turn begins under lease ccfb7aa0","timestamp":"2026-01-01T08:00:00.088Z"}`,
		`{"actor":{"kind":"system","runtime":"leasedeck"},"details":{"admission_id":"180c3e5d-ceb8-45c2-846c-b8649ea78dbd","client":"claude-code","decision":"allow","lease_id":"245b47e7-de83-418c-a3dd-9182c23417bf","steps":1,"tool":"Bash"},"event_id":"299cba72-fa59-4d67-8365-8c186276f75a","event_type":"leasedeck.gate.allowed","outcome":"success","reasoning":"within the lease","request_hash":"edd03d27d93d524d33aafabe5acaa2cc83771adfc85778232c179be6f9813ba0","schema_version":"1.2","summary":"Edit: writes src/tui/feed.go","timestamp":"2026-01-01T08:00:00.966Z"}`,
		`{"actor":{"kind":"system","runtime":"leasedeck"},"details":{"admission_id":"160d362a-e9ab-43cd-8e5a-6c669860afca","client":"claude-code","lease_id":"ccfb7aa0-9bed-4f49-83f9-134693cc0549","status":"ok","tool":"Bash","violation":false},"event_id":"33fd1eb3-0bfa-4a13-9daf-e50a13f30d7d","event_type":"leasedeck.tool.reported","request_hash":"87c2ba7d0b94ee6cdb2bb57b5ae66ef50b83c537a1eb2463617c1b791f18f3d4","schema_version":"1.2","summary":"Bash: runs go; reads src/..., test/...","timestamp":"2026-01-01T08:00:00.938Z"}`,
		`{"actor":{"kind":"system","runtime":"leasedeck"},"details":{"accurate":true,"admission_id":"27c37e84-74c6-48f2-88de-2148669d4ad4","client":"claude-code","cost_usd":0.066,"lease_id":"71b41f0c-802f-40c4-ac3a-25ff8c167a4a","source":"provider_reported","tokens":995},"event_id":"fdfe3941-6cf2-4e9c-bcb5-35178313b958","event_type":"leasedeck.budget.spent","schema_version":"1.2","timestamp":"2026-01-01T08:00:00.900Z"}`,
		`{"actor":{"kind":"agent","model_family":"x","runtime_agent":"claude-code","zz":"extra"},"details":{},"event_type":"leasedeck.gate.denied","outcome":"failure","phase":"","reasoning":"write to /etc/hosts escapes the workspace","schema_version":"1.2","summary":"Bash: runs grep, sed; reads src/**/*.go — é ✓","timestamp":"2026-01-01T08:00:01.690+01:00"}`,
		`{"details":{"lease_id":5,"steps":"1","accurate":"yes","tool":true,"tokens":1e400,"cost_usd":-0.0,"n":-12.5E+3,"z":0},"event_type":"a.b","schema_version":"10.0","timestamp":"2026-01-01T08:00:01Z"}`,
		`{"event_type":"leasedeck.journal.checkpoint","schema_version":"1.2","timestamp":"2026-01-01T08:00:01Z"}`,
	} {
		bodies = append(bodies, []byte(s)) // as written: not all canonicalise
	}
	recs := []map[string]any{gateAllowed(1), gateAllowed(2)}
	rng := rand.New(rand.NewSource(3))
	for i := 0; i < n; i++ {
		recs = append(recs, genRecord(rng, auditFields))
	}
	for _, r := range recs {
		delete(r, "seq")
		b, err := schemas.Canonical(r)
		if err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, b)
	}
	return bodies
}

// signedLine makes a whole journal line of body, with a good mac.
func signedLine(body []byte, seq uint64) []byte {
	prev := sha256.Sum256([]byte{byte(seq)})
	line, _ := appendLine(nil, body, seq, &prev, hmac.New(sha256.New, testKey))
	return line[:len(line)-1]
}

// mutations are the edits an adversary with write access would try on a
// line's bytes: whitespace, escapes, duplicates, other types, other
// number forms, invalid UTF-8, control characters, unknown members.
var mutations = []struct{ from, to string }{
	{`{"`, `{ "`}, {`":`, `" :`}, {`":`, `":` + "\t"}, {`,"`, `, "`}, {`"}`, `" }`},
	{`{"`, `{"event_type":"leasedeck.gate.allowed","`}, {`"details":{`, `"details":{"tool":"x","tool":"y",`},
	{`"details":{`, `"details":{"zz":"x",`}, {`"details":{`, `"details":{"zz":[1],`}, {`"details":{`, `"details":{"zz":null,`},
	{`"details":{`, `"details":{"zz":{},`}, {`"details":{`, `"details":{"file":"x",`}, {`"details":{`, `"details":{"tok\u0065n":"x",`},
	{`"details":{`, `"details":{"é":"é",`}, {`"details":{`, `"details":{"k":"` + strings.Repeat("a", 201) + `",`},
	{`"details":{`, `"details":{"k":"` + strings.Repeat("a", 200) + `",`},
	{`"steps":1`, `"steps":01`}, {`"steps":1`, `"steps":1.0`}, {`"steps":1`, `"steps":-0`}, {`"steps":1`, `"steps":1e3`},
	{`"steps":1`, `"steps":1.`}, {`"steps":1`, `"steps":.5`}, {`"steps":1`, `"steps":1e`}, {`"steps":1`, `"steps":+1`},
	{`"steps":1`, `"steps":"1"`}, {`"steps":1`, `"steps":true`}, {`"steps":1`, `"steps":tru`}, {`"steps":1`, `"steps":null`},
	{`"{`, `"{`}, {`"actor":{`, `"actor":{"kind":"agent",`}, {`"actor":{`, `"actor":{"x":1,`}, {`"kind":"system"`, `"kind":"robot"`},
	{`"kind":"system"`, `"runtime_agent":"hal"`}, {`"kind":"system"`, `"kind":"syst\u0065m"`}, {`"actor":{`, `"actor":{"runtime_agent":"codex-cli",`},
	{`"summary":"`, `"summary":"\"`}, {`"summary":"`, `"summary":"\u0041`}, {`"summary":"`, `"summary":"` + "\x01"},
	{`"summary":"`, `"summary":"` + "\x7f"}, {`"summary":"`, `"summary":"` + "\xff"}, {`"summary":"`, `"summary":"` + "\xed\xa0\x80"},
	{`"summary":"`, `"summary":"` + strings.Repeat("b", 300)}, {`"summary":"`, `"summary":"\ud800`},
	{`"schema_version":"1.2"`, `"schema_version":"1"`}, {`"schema_version":"1.2"`, `"schema_version":1.2`},
	{`"outcome":"success"`, `"outcome":"maybe"`}, {`"timestamp":"2026`, `"timestamp":"20261`},
	{`"event_type":"leasedeck.`, `"event_type":"leasedeck.journal.`}, {`"event_type":"`, `"event_type":"A`},
	{`"request_hash":"`, `"request_hash":"A`}, {`"event_id":"`, `"event_id":1,"x":"`},
	{`"seq":`, `"seq":0`}, {`"seq":`, `"seq":-`}, {`"seq":`, `"seq":9007199254740992`}, {`"seq":1`, `"seq":1.0`},
	{`"seq":1`, `"seq":"1"`}, {`"seq":`, `"seq":1,"seq":`}, {`"prev":"`, `"prev":"A`}, {`"prev":"0`, `"prev":"`},
	{`"mac":"`, `"mac":"0`}, {`,"mac":"`, `,"zz":1,"mac":"`}, {`{`, `{"mac":"x",`}, {`"}`, `"} `}, {`"}`, `"}x`},
	{`"}`, `"`}, {`"`, `\"`},
}

// mutate applies one listed mutation at its first place, or one random
// byte-level edit.
func mutate(rng *rand.Rand, line []byte) []byte {
	if rng.Intn(3) > 0 {
		m := mutations[rng.Intn(len(mutations))]
		return bytes.Replace(line, []byte(m.from), []byte(m.to), 1)
	}
	const alphabet = "{}[]\":,\\ 0123456789eE.-+tfnulraxz\x00\x1f\x7f\x80\xc3\xa9\xff"
	out := bytes.Clone(line)
	for edits := 1 + rng.Intn(3); edits > 0 && len(out) > 0; edits-- {
		i := rng.Intn(len(out))
		switch rng.Intn(3) {
		case 0:
			out[i] = alphabet[rng.Intn(len(alphabet))]
		case 1:
			out = append(out[:i], out[i+1:]...)
		default:
			out = append(out[:i], append([]byte{alphabet[rng.Intn(len(alphabet))]}, out[i:]...)...)
		}
	}
	return out
}

func TestDirectAuditAgreesWithGeneric(t *testing.T) {
	n, rounds := 2500, 6
	if testing.Short() {
		n, rounds = 800, 3
	}
	rng := rand.New(rand.NewSource(5))
	var took, declined, mutatedTook int
	for i, body := range auditBodies(t, n) {
		line := signedLine(body, uint64(i+1))
		if checkDirect(t, line) {
			took++
		} else {
			declined++
		}
		for r := 0; r < rounds; r++ {
			// A mutated record, signed and chained as the writer would
			// (an adversary with the key), and a mutated whole line.
			if checkDirect(t, signedLine(mutate(rng, body), uint64(r+1))) {
				mutatedTook++
			}
			checkDirect(t, mutate(rng, line))
		}
	}
	// The corpus must reach both answers, or this proves nothing.
	if took < n/20 || declined < n/20 || mutatedTook < n/20 {
		t.Fatalf("too few of each to mean anything: took %d, declined %d, mutated and taken %d", took, declined, mutatedTook)
	}
	t.Logf("took %d lines, declined %d; %d mutated lines taken", took, declined, mutatedTook)
}

// The shapes leasedeck writes take the direct path (else it saves nothing).
func TestDirectAuditTakesCommonLines(t *testing.T) {
	bodies := auditBodies(t, 0)
	for i, body := range append(bodies[:6:6], bodies[7:]...) {
		if !checkDirect(t, signedLine(body, uint64(i+1))) {
			t.Errorf("declined %s", body)
		}
	}
	// The journal's own lines are read through the tree, for the
	// checkpoint and notice checks.
	if checkDirect(t, signedLine(bodies[6], 1)) {
		t.Errorf("took %s", bodies[6])
	}
}

// A large journal's own lines, when one is at hand (the generator's):
// LEASEDECK_JOURNAL=DIR, as for the 1M benchmarks.
func TestDirectAuditAgreesOnJournal(t *testing.T) {
	dir := os.Getenv("LEASEDECK_JOURNAL")
	if dir == "" {
		t.Skip("set LEASEDECK_JOURNAL to a directory written by go run ./scripts/genjournal")
	}
	f, err := os.Open(filepath.Join(dir, "journal", AuditFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, maxLineSize)
	rng := rand.New(rand.NewSource(9))
	lines, took := 0, 0
	for sc.Scan() && lines < 20000 {
		lines++
		line := sc.Bytes()
		if checkDirect(t, line) {
			took++
		}
		checkDirect(t, mutate(rng, line))
	}
	if took < lines*9/10 {
		t.Fatalf("only %d of %d lines took the direct path", took, lines)
	}
	t.Logf("%d of %d lines decoded directly", took, lines)
}

// FuzzDirectAudit holds the same promise for arbitrary bytes, both as a
// whole line and as a record the writer signs and chains.
func FuzzDirectAudit(f *testing.F) {
	for i, body := range auditBodies(f, 0) {
		f.Add(body)
		f.Add(signedLine(body, uint64(i+1)))
	}
	f.Add([]byte(`{"event_type":"a.b","schema_version":"1.2","timestamp":"2026-01-01T08:00:01Z","seq":1,"prev":"` + ZeroHash + `","mac":"x"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkDirect(t, data)
		if len(data) > 2 && data[0] == '{' && data[len(data)-1] == '}' {
			checkDirect(t, signedLine(data, 1))
		}
	})
}

// DecodeAudit takes a line of the usual shape and declines one with a
// space in it, which the generic path reads.
func ExampleDecodeAudit() {
	raw := []byte(`{"details":{"steps":1,"tool":"Bash"},"event_type":"leasedeck.gate.allowed","schema_version":"1.2","timestamp":"2026-01-01T08:00:00.966Z","seq":3,"prev":"` + ZeroHash + `","mac":"` + ZeroHash + `"}`)
	f, ok := DecodeAudit(raw)
	fmt.Println(ok, f.EventType, f.Details[0].Name, f.Details[0].Value(), f.Details[1].Value())
	_, ok = DecodeAudit(bytes.Replace(raw, []byte(`"steps":1`), []byte(`"steps": 1`), 1))
	fmt.Println(ok)
	// Output:
	// true leasedeck.gate.allowed steps 1 Bash
	// false
}
