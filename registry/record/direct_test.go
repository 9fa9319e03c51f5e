package record_test

import (
	"bufio"
	"bytes"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/leasedeck/leasedeck/journal"
	"github.com/leasedeck/leasedeck/registry"
	"github.com/leasedeck/leasedeck/registry/journalgen"
	"github.com/leasedeck/leasedeck/registry/record"
	"github.com/leasedeck/leasedeck/schemas"
)

// sameAudit: for a line the journal decodes directly, AuditFrom types it
// exactly as ParseAudit types its generic tree (the journal's own test
// holds the decoding itself to the generic path). It reports whether the
// line was decoded directly.
func sameAudit(t testing.TB, raw []byte) bool {
	t.Helper()
	f, ok := journal.DecodeAudit(raw)
	if !ok {
		return false
	}
	v, err := schemas.ParseJSON(raw)
	if err != nil {
		t.Fatalf("decoded directly, not JSON: %q: %v", raw, err)
	}
	want := record.ParseAudit(v.(map[string]any))
	if got := record.AuditFrom(f); !reflect.DeepEqual(want, got) {
		t.Fatalf("line %q typed differently:\n tree   %#v\n direct %#v", raw, want, got)
	}
	direct := record.ParseLine(journal.Audit, &journal.Line{Raw: raw, Audit: f})
	tree := record.ParseLine(journal.Audit, &journal.Line{Raw: raw, Value: v.(map[string]any)})
	if !reflect.DeepEqual(direct, tree) {
		t.Fatalf("ParseLine differs for %q", raw)
	}
	return true
}

// withTrailer makes a record's bytes a journal line's (seq, prev, mac):
// the decoder needs them, and what they hold is the journal's test.
func withTrailer(body []byte) []byte {
	if len(body) < 2 || body[len(body)-1] != '}' {
		return body
	}
	sep := ","
	if len(body) == 2 {
		sep = ""
	}
	return append(bytes.Clone(body[:len(body)-1]), []byte(sep+`"seq":1,"prev":"`+journal.ZeroHash+`","mac":"`+journal.ZeroHash+`"}`)...)
}

// detailEdits put into details the members whose typing is subtle: known
// names holding another type, figures in every number form (one past the
// double range), flags, unknown members of each type.
var detailEdits = []string{
	`"steps":1`, `"steps":"1"`, `"steps":true`, `"steps":-0`, `"steps":1E+2`, `"steps":1e400`, `"steps":-1e400`, `"steps":1e-400`,
	`"tokens":9007199254740993`, `"cost_usd":0.066`, `"cost_usd":"x"`, `"lease_id":5`, `"lease_id":true`, `"lease_id":"x"`,
	`"accurate":true`, `"accurate":"true"`, `"accurate":0`, `"violation":false`, `"end_session":true`, `"tool":"Bash"`,
	`"zz":"x"`, `"zz":1.5`, `"zz":false`, `"é":"ü"`, `"names":""`, `"capability_hash":"c"`, `"by":"issuer"`,
}

var actorEdits = []string{`"kind":"agent"`, `"runtime":"x"`, `"model_vendor":"v"`, `"zz":"extra"`, `"runtime_agent":"codex-cli"`, `"kind":"human"`}

// generatedLines are the audit lines of a small generated journal: every
// event type the registry writes.
func generatedLines(t *testing.T) [][]byte {
	dir := t.TempDir()
	key, err := registry.NewKey(bytes.Repeat([]byte{7}, 32), false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := journalgen.Generate(filepath.Join(dir, "journal"), key, journalgen.Options{Lines: 3000, Seed: 2}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "journal", journal.AuditFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines = append(lines, bytes.Clone(sc.Bytes()))
	}
	return lines
}

func TestAuditFromIsParseAudit(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	lines := generatedLines(t)
	direct, edited := 0, 0
	for _, line := range lines {
		if sameAudit(t, line) {
			direct++
		}
		for r := 0; r < 4; r++ {
			l := line
			for e := rng.Intn(4); e >= 0; e-- {
				l = bytes.Replace(l, []byte(`"details":{`), []byte(`"details":{`+detailEdits[rng.Intn(len(detailEdits))]+`,`), 1)
			}
			l = bytes.Replace(l, []byte(`"actor":{`), []byte(`"actor":{`+actorEdits[rng.Intn(len(actorEdits))]+`,`), 1)
			if sameAudit(t, l) {
				edited++
			}
		}
	}
	if direct < len(lines)*9/10 || edited < len(lines)/2 {
		t.Fatalf("too few decoded directly to mean anything: %d of %d lines, %d edited", direct, len(lines), edited)
	}
	t.Logf("%d of %d generated lines decoded directly, %d edited ones", direct, len(lines), edited)
}

// FuzzAuditFrom holds the same for arbitrary records.
func FuzzAuditFrom(f *testing.F) {
	for _, s := range []string{
		`{"actor":{"kind":"system","runtime":"leasedeck"},"details":{"accurate":true,"cost_usd":0.066,"lease_id":"71b41f0c-802f-40c4-ac3a-25ff8c167a4a","source":"provider_reported","tokens":995},"event_type":"leasedeck.budget.spent","schema_version":"1.2","timestamp":"2026-01-01T08:00:00.900Z"}`,
		`{"details":{"lease_id":5,"steps":"1","accurate":"yes","tool":true,"tokens":1e400,"zz":0},"event_type":"a.b","schema_version":"1.2","timestamp":"2026-01-01T08:00:01Z"}`,
		`{"actor":{"kind":"agent","zz":"x"},"details":{},"event_type":"a.b","schema_version":"1.2","timestamp":"2026-01-01T08:00:01Z"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		sameAudit(t, body)
		sameAudit(t, withTrailer(body))
	})
}
