package applypatch

import (
	"reflect"
	"testing"
)

func TestParseApplyPatch(t *testing.T) {
	ops, err := Parse("*** Begin Patch\r\n*** Add File: a b.txt\r\n+x\r\n*** Update File: c.go\r\n*** Move to: d.go\r\n@@\r\n-1\r\n+2\r\n*** End of File\r\n*** Delete File: e\r\n*** End Patch")
	if err != nil {
		t.Fatal(err)
	}
	got := Writes(ops)
	if !reflect.DeepEqual(got, []string{"a b.txt", "c.go", "d.go", "e"}) {
		t.Errorf("writes = %q", got)
	}
	for _, bad := range []string{
		"", "*** Begin Patch\n*** End Patch",
		"*** Begin Patch\n*** Move to: x\n*** End Patch",
		"*** Begin Patch\n*** Add File:\n*** End Patch",
		"*** Begin Patch\n*** Rename File: a\n*** End Patch",
		"*** Begin Patch\n*** Update File: a\n*** Move to: b\n*** Move to: c\n*** End Patch",
	} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	// A "*** " line inside an added file's body is content, not a header.
	ops, err = Parse("*** Begin Patch\n*** Add File: notes.md\n+*** Update File: /etc/passwd\n*** End Patch\n")
	if err != nil || len(ops) != 1 || ops[0].Path != "notes.md" {
		t.Errorf("ops = %+v, %v", ops, err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add("*** Begin Patch\n*** Add File: a\n+x\n*** Update File: b\n*** Move to: c\n*** Delete File: d\n*** End Patch\n")
	f.Add("*** Begin Patch\n*** Frob: x\n")
	f.Fuzz(func(t *testing.T, s string) {
		ops, err := Parse(s)
		if err == nil {
			if len(ops) == 0 {
				t.Fatal("no error and no ops")
			}
			for _, w := range Writes(ops) {
				if w == "" {
					t.Fatal("empty write path")
				}
			}
		}
	})
}

// Lines that Codex's apply_patch (which trims a line before it looks for
// a header, and takes a move line as it is) reads differently from a
// reader that skips them or trims them are refused, not guessed.
func TestParseRefusesHeadersClientsReadDifferently(t *testing.T) {
	for _, bad := range []string{
		"*** Begin Patch\n*** Add File: ok.txt\n+x\n  *** Add File: .claude/settings.json\n+x\n*** End Patch",
		"*** Begin Patch\n*** Add File: ok.txt\n+x\n\t*** Delete File: .git/config\n*** End Patch",
		"*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n\u00a0*** Add File: .mcp.json\n+{}\n*** End Patch",
		"*** Begin Patch\n*** Add File:  ok.txt\n+x\n*** End Patch",
		"*** Begin Patch\n*** Update File: a\n*** Move to: b \n@@\n-x\n+y\n*** End Patch",
		"*** Begin Patch\n*** Update File: a\n*** Move to:\tb\n@@\n-x\n+y\n*** End Patch",
	} {
		if ops, err := Parse(bad); err == nil {
			t.Errorf("%q: no error, ops %+v", bad, ops)
		}
	}
	// A trailing space on an add header is trimmed by Codex too.
	if ops, err := Parse("*** Begin Patch\n*** Add File: a.txt \n+x\n*** End Patch"); err != nil || ops[0].Path != "a.txt" {
		t.Errorf("ops = %+v, %v", ops, err)
	}
}

func TestWhole(t *testing.T) {
	for _, ok := range []string{
		"*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\n",
		"  *** Begin Patch\r\n*** Add File: a\r\n+x\r\n*** End Patch  ",
		"<<'EOF'\n*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\nEOF\n",
	} {
		if err := Whole(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{
		"",
		"*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\n*** Begin Patch\n*** Add File: .git/config\n+x\n*** End Patch\n",
		"*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\n*** Add File: .git/config\n+x\n",
		"echo hi\n*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\n",
	} {
		if err := Whole(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
