package bridge

import "testing"

func TestOddPath(t *testing.T) {
	for p, odd := range map[string]bool{
		"src/main.go":              false,
		"/ws/a b/c.txt":            false,
		"~/.ssh/id_rsa":            false,
		" /home/u/.ssh/id_rsa":     true,
		"/ws/ /home/u/.ssh/id_rsa": true,
		".claude/settings.json ":   true,
		".claude/settings.json\n":  true,
		"a\u00a0/b":                true,
		"a\x00b":                   true,
		"a\xed\xa0\x80b":           true, // a lone surrogate, as ParseJSON keeps it
		"vscode-remote://h/etc":    true,
		"file:///etc/passwd":       true,
		"C:/Users/u/x":             false,
	} {
		if got := oddPath(p) != ""; got != odd {
			t.Errorf("oddPath(%q) = %q, want odd %v", p, oddPath(p), odd)
		}
	}
}

func TestStringList(t *testing.T) {
	in := map[string]any{"s": "a", "l": []any{"a", "", "b"}, "bad": []any{"a", 1}, "obj": map[string]any{}}
	if got, err := stringList("c", "t", in, "l"); err != nil || len(got) != 2 {
		t.Errorf("l: %v %v", got, err)
	}
	if got, err := stringList("c", "t", in, "s"); err != nil || len(got) != 1 {
		t.Errorf("s: %v %v", got, err)
	}
	if got, err := stringList("c", "t", in, "none"); err != nil || got != nil {
		t.Errorf("none: %v %v", got, err)
	}
	for _, k := range []string{"bad", "obj"} {
		if _, err := stringList("c", "t", in, k); err == nil {
			t.Errorf("%s: no error", k)
		}
	}
}

func TestIsURI(t *testing.T) {
	for p, want := range map[string]bool{
		"file:///x": true, "vscode-remote://h/x": true, "a+b.c-d://x": true,
		"://x": false, "1a://x": false, "a b://x": false, "src/a://x": false, "/ws/x": false,
	} {
		if got := isURI(p); got != want {
			t.Errorf("isURI(%q) = %v", p, got)
		}
	}
}
