package registry_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leasedeck/leasedeck/journal"
	"github.com/leasedeck/leasedeck/registry"
	"github.com/leasedeck/leasedeck/registry/journalgen"
	"github.com/leasedeck/leasedeck/schemas"
)

// rewritten copies a journal into a new directory through a real writer,
// after edit has changed the records it wants: every line is chained and
// MAC'd under the key again, so only the checks of what a line says (a
// lease's signature, the record naming its lease) can tell.
func rewritten(t *testing.T, src string, key registry.Key, edit func(k journal.Kind, i int, m map[string]any)) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "journal")
	w, err := journal.Open(dst, key.Bytes(), journal.Options{LockPath: filepath.Join(dst, "..", "lock")})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, k := range journal.Kinds {
		data, err := os.ReadFile(filepath.Join(src, k.FileName()))
		if err != nil {
			t.Fatal(err)
		}
		var records []map[string]any
		for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
			v, err := schemas.ParseJSON(line)
			if err != nil {
				t.Fatal(err)
			}
			m := v.(map[string]any)
			delete(m, "seq")
			delete(m, "prev")
			delete(m, "mac")
			edit(k, i, m)
			records = append(records, m)
		}
		if _, err := w.AppendAll(k, records); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// The checks of a granted lease that verify runs in its workers (the
// lease's signature, the record's lease_id against the lease's) are still
// made on every granted line, of a journal large enough to be read on
// every core, and reported at the line.
func TestVerifyJournalChecksEveryGrantedLease(t *testing.T) {
	kb, _ := registry.NewRandomKey()
	key, err := registry.NewKey(kb, false)
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "journal")
	if _, err := journalgen.Generate(src, key, journalgen.Options{Lines: 6000, Leases: 40, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	if r := registry.VerifyJournal(src, &key, journal.VerifyOptions{}); !r.OK() {
		t.Fatalf("generated journal: %v", r.Breaks)
	}
	granted := 0
	var forged, renamed int
	dst := rewritten(t, src, key, func(k journal.Kind, i int, m map[string]any) {
		if k != journal.Leases || m["event"] != "granted" {
			return
		}
		granted++
		lease := m["lease"].(map[string]any)
		switch granted {
		case 7:
			lease["signature"] = strings.Repeat("0", 64)
			forged = i + 1
		case 23:
			copied := map[string]any{}
			for n, x := range lease {
				copied[n] = x
			}
			m["lease"] = copied
			m["lease_id"] = "00000000-0000-4000-8000-000000000023"
			renamed = i + 1
		}
	})
	if forged == 0 || renamed == 0 {
		t.Fatalf("only %d granted leases", granted)
	}
	if st, _ := os.Stat(filepath.Join(dst, journal.LeasesFile)); st.Size() < 64<<10 {
		t.Fatalf("leases.jsonl is %d bytes: too small to be read by the workers", st.Size())
	}
	r := registry.VerifyJournal(dst, &key, journal.VerifyOptions{})
	var sig, id bool
	for _, b := range r.Breaks {
		switch {
		case b.File == journal.LeasesFile && b.Line == forged && strings.Contains(b.Reason, "granted lease: signature"):
			sig = true
		case b.File == journal.LeasesFile && b.Line == renamed && strings.Contains(b.Reason, "differs from the lease's"):
			id = true
		}
	}
	if !sig || !id {
		t.Fatalf("forged signature reported %v (line %d), renamed lease %v (line %d); breaks: %v", sig, forged, id, renamed, r.Breaks)
	}
}
