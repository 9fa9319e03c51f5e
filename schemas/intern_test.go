package schemas

import (
	"reflect"
	"strings"
	"testing"
)

// Interned member values read exactly as the same strings read without
// interning: the second parse of a document (served from the table) is
// the first's, for words, near-words and escaped forms alike.
func TestInternedValuesReadAsWritten(t *testing.T) {
	doc := `{"a":"leasedeck.gate.allowed","b":"success","c":"x-y_z","d":"a\u0062c","e":"","f":"Bash","g":"with space","h":"` +
		strings.Repeat("w", maxValueInternLen+1) + `","i":"1.2","j":"caf\u00e9","k":["Bash","Bash"],"l":{"m":"Bash"}}`
	want := map[string]any{"a": "leasedeck.gate.allowed", "b": "success", "c": "x-y_z", "d": "abc", "e": "", "f": "Bash",
		"g": "with space", "h": strings.Repeat("w", maxValueInternLen+1), "i": "1.2", "j": "café", "k": []any{"Bash", "Bash"},
		"l": map[string]any{"m": "Bash"}}
	for i := range 3 {
		v, err := ParseJSON([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(v, want) {
			t.Fatalf("parse %d: %#v", i, v)
		}
	}
	// A table is built again once enough new words were seen: show it more.
	var filler strings.Builder
	filler.WriteString(`[`)
	for i := range len(*valueTable.Load())/2 + 8 {
		if i > 0 {
			filler.WriteString(",")
		}
		filler.WriteString(`"` + letterWord(i) + `"`)
	}
	filler.WriteString(`]`)
	if _, err := ParseJSON([]byte(filler.String())); err != nil {
		t.Fatal(err)
	}
	if _, ok := (*valueTable.Load())["success"]; !ok {
		t.Error("a word value was not interned")
	}
	for _, s := range []string{"with space", "1.2"} {
		if _, ok := (*valueTable.Load())[s]; ok {
			t.Errorf("%q was interned: only words are", s)
		}
	}
}

// A document with many members still refuses a duplicate name.
func TestLargeObjectStillRefusesDuplicates(t *testing.T) {
	var b strings.Builder
	b.WriteString("{")
	for i := range 20 {
		b.WriteString(`"k` + string(rune('a'+i)) + `":1,`)
	}
	b.WriteString(`"kc":2}`)
	if _, err := ParseJSON([]byte(b.String())); err == nil || !strings.Contains(err.Error(), "duplicate") {
		t.Fatalf("duplicate in a large object: %v", err)
	}
}

// letterWord is a distinct word of letters for each i ("w-a", "w-b", …).
func letterWord(i int) string {
	w := ""
	for {
		w = string(rune('a'+i%26)) + w
		i /= 26
		if i == 0 {
			return "w-" + w
		}
	}
}

// A process that parses a few small documents (a hook) builds a handful
// of name tables, not one per new name: each build copies the table.
func TestInterningBuildsFewTables(t *testing.T) {
	internMu.Lock()
	empty := map[string]string{}
	internTable.Store(&empty)
	nameMisses.names = nil
	internMu.Unlock()
	builds := 0
	last := internTable.Load()
	for i := range 64 {
		doc := `{"` + letterWord(i) + `":1}`
		for range 2 {
			if _, err := ParseJSON([]byte(doc)); err != nil {
				t.Fatal(err)
			}
		}
		if p := internTable.Load(); p != last {
			builds, last = builds+1, p
		}
	}
	if n := len(*internTable.Load()); builds > 8 || n < 32 {
		t.Fatalf("64 new names: %d tables built, %d names interned", builds, n)
	}
}
