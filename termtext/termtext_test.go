package termtext

import (
	"testing"
	"unicode/utf8"
)

func TestClean(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain", "plain"},
		{"a\x1b[31mred", "a [31mred"},
		{"tab\tand\nline", "tab and line"},
		{"del\x7f c1\u009b", "del  c1 "},
		{"héllo", "héllo"},
	} {
		if got := Clean(c.in); got != c.want {
			t.Errorf("Clean(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestFlatten(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"  two  spaces\n\nand lines  ", "two spaces and lines"},
		{"rm\u202e-rf", "rm -rf"},
		{"zero\u200bwidth", "zero width"},
		{"bad \xff byte", "bad \uFFFD byte"},
		{"\x1b]0;title\x07x", "]0;title x"},
	} {
		if got := Flatten(c.in); got != c.want {
			t.Errorf("Flatten(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestClip(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"héllo wörld", 5, "héll…"},
		{"short", 10, "short"},
		{"exactly5", 8, "exactly5"},
		{"ab cd", 4, "ab…"},
		{"anything", 1, "…"},
		{"no cap", 0, "no cap"},
	} {
		got := Clip(c.in, c.max)
		if got != c.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
		if c.max > 0 && utf8.RuneCountInString(got) > c.max {
			t.Errorf("Clip(%q, %d) is %d runes", c.in, c.max, utf8.RuneCountInString(got))
		}
	}
}
