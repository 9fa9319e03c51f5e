package redact

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzRedact(f *testing.F) {
	for i := range planted {
		f.Add(plantedText(i))
	}
	f.Add("password=hunter2 Authorization: Bearer abcdefghij https://u:p@h")
	f.Fuzz(func(t *testing.T, s string) {
		out, fs := Redact(s)
		if len(fs) == 0 && out != s {
			t.Fatal("changed without a finding")
		}
		for _, fd := range fs {
			if fd.Start < 0 || fd.End > len(s) || fd.Start >= fd.End {
				t.Fatalf("bad span %+v", fd)
			}
		}
		for _, key := range []string{"command", "password"} {
			if got, want := FindingsInMember(key, s), FindingsIn(map[string]any{key: s}); !reflect.DeepEqual(got, want) {
				t.Fatalf("FindingsInMember(%q, %q) = %+v, FindingsIn of the map %+v", key, s, got, want)
			}
		}
		sum := Summary("Bash", map[string]any{"command": s}, 120)
		if utf8.RuneCountInString(sum) > 120 || strings.ContainsAny(sum, "\n\r\x00") {
			t.Fatalf("summary %q", sum)
		}
	})
}
