package registry_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/leasedeck/leasedeck/journal"
	"github.com/leasedeck/leasedeck/registry"
	"github.com/leasedeck/leasedeck/registry/journalgen"
)

// lineEdits are what an agent that can write the journal file might put
// into an audit line: forms the generic parser refuses (duplicates, bad
// UTF-8, a control character, a trailing byte), forms it reads to the
// same value (whitespace, escapes), other types, other number forms,
// unknown and sensitive members, the journal's own event types, a broken
// seq, prev or mac.
var lineEdits = []struct{ from, to string }{
	{`{"`, `{ "`}, {`":`, `" :`}, {`,"`, `,` + "\n" + `"`}, {`"details":{`, `"details":{"tool":"x","tool":"y",`},
	{`{"`, `{"event_type":"leasedeck.gate.allowed","`}, {`"details":{`, `"details":{"zz":"x",`}, {`"details":{`, `"details":{"zz":[1],`},
	{`"details":{`, `"details":{"file":"/etc/passwd",`}, {`"details":{`, `"details":{"steps":"1",`}, {`"details":{`, `"details":{"steps":1e400,`},
	{`"details":{`, `"details":{"steps":-1,`}, {`"details":{`, `"details":{"tokens":01,`}, {`"details":{`, `"details":{"cost_usd":null,`},
	{`"details":{`, `"details":{"lease_id":"00000000-0000-4000-8000-000000000099",`}, {`"steps":1`, `"steps":1.5`},
	{`"steps":1`, `"steps":100000000`}, {`"kind":"system"`, `"kind":"robot"`}, {`"kind":"system"`, `"kind":"syst\u0065m"`},
	{`"actor":{`, `"actor":{"zz":"x",`}, {`"summary":"`, `"summary":"\u0007`}, {`"summary":"`, `"summary":"` + "\x01"},
	{`"summary":"`, `"summary":"` + "\xff"}, {`"summary":"`, `"summary":"é\"`}, {`"event_type":"leasedeck.`, `"event_type":"leasedeck.journal.`},
	{`"event_type":"leasedeck.gate.allowed"`, `"event_type":"leasedeck.gate.denied"`}, {`"schema_version":"1.2"`, `"schema_version":"1.x"`},
	{`"outcome":"success"`, `"outcome":"failure"`}, {`"timestamp":"2026`, `"timestamp":"x2026`}, {`"event_id":"`, `"event_id":7,"x":"`},
	{`"lease_id":"`, `"lease_id":"0`}, {`{"`, `{"zz":1,"`},
}

// trailerEdits break the journal's own members (applied after the chain
// is made, so they are the only damage on the line).
var trailerEdits = []struct{ from, to string }{
	{`"seq":`, `"seq":0`}, {`"seq":`, `"seq": `}, {`"prev":"`, `"prev":"A`}, {`"mac":"`, `"mac":"0`}, {`"}`, `" }`}, {`"}`, `"}x`}, {`"}`, `"`},
}

// chained writes an audit file of bodies (records without seq, prev and
// mac) chained and MAC'd under key, as the writer would: an agent that
// has the key (a misconfigured deployment) writing any bytes it likes.
func chained(bodies [][]byte, key []byte) []byte {
	var out []byte
	var prev [32]byte
	mac := hmac.New(sha256.New, key)
	for i, body := range bodies {
		start := len(out)
		if len(body) > 0 && body[len(body)-1] == '}' {
			out = append(out, body[:len(body)-1]...)
			out = append(out, ',')
		} else {
			out = append(out, body...)
		}
		out = append(out, `"seq":`+strconv.Itoa(i+1)+`,"prev":"`+hex.EncodeToString(prev[:])+`"`...)
		mac.Reset()
		mac.Write(out[start:])
		out = append(out, `,"mac":"`+hex.EncodeToString(mac.Sum(nil))+`"}`...)
		prev = sha256.Sum256(out[start:])
		out = append(out, '\n')
	}
	return out
}

// A journal an agent wrote into, with and without the key, gets the same
// report from the direct path as from the generic one: every break at the
// same line with the same words, the same notices, the same counts.
func TestVerifyJournalDirectSameReport(t *testing.T) {
	kb := bytes.Repeat([]byte{0x42}, 32)
	key, err := registry.NewKey(kb, false)
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "journal")
	if _, err := journalgen.Generate(src, key, journalgen.Options{Lines: 3000, Leases: 20, Seed: 4}); err != nil {
		t.Fatal(err)
	}
	leases, err := os.ReadFile(filepath.Join(src, journal.LeasesFile))
	if err != nil {
		t.Fatal(err)
	}
	audit, err := os.ReadFile(filepath.Join(src, journal.AuditFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(audit, []byte("\n")), []byte("\n"))
	rng := rand.New(rand.NewSource(8))
	rounds := 12
	if testing.Short() {
		rounds = 4
	}
	broken := 0
	for round := 0; round < rounds; round++ {
		bodies := make([][]byte, len(lines))
		for i, l := range lines {
			bodies[i] = bytes.Clone(l[:bytes.LastIndex(l, []byte(`,"seq":`))]) // the record, without its trailer
			bodies[i] = append(bodies[i], '}')
		}
		for n := 0; n < 40; n++ {
			i := rng.Intn(len(bodies))
			e := lineEdits[rng.Intn(len(lineEdits))]
			bodies[i] = bytes.Replace(bodies[i], []byte(e.from), []byte(e.to), 1)
		}
		file := chained(bodies, kb)
		if round%2 == 1 { // without the key: the trailer or the line's bytes
			out := bytes.Split(file, []byte("\n"))
			for n := 0; n < 10; n++ {
				i := rng.Intn(len(out) - 1)
				e := trailerEdits[rng.Intn(len(trailerEdits))]
				out[i] = bytes.Replace(out[i], []byte(e.from), []byte(e.to), 1)
			}
			file = bytes.Join(out, []byte("\n"))
		}
		dir := filepath.Join(t.TempDir(), "journal")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, journal.LeasesFile), leases, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, journal.AuditFile), file, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, k := range []*registry.Key{&key, nil} {
			want := registry.VerifyJournalGeneric(dir, k, journal.VerifyOptions{})
			got := registry.VerifyJournal(dir, k, journal.VerifyOptions{})
			if !reflect.DeepEqual(want, got) {
				t.Fatalf("round %d (key %v): reports differ\n generic %+v\n direct  %+v", round, k != nil, want, got)
			}
			if len(got.Breaks) > 0 {
				broken++
			}
		}
	}
	if broken < rounds {
		t.Fatalf("only %d of %d reports found anything: the edits prove nothing", broken, 2*rounds)
	}
}
