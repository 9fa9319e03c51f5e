package termtext

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
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

// flattenSlow is Flatten without the shortcut for text already flat.
func flattenSlow(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		if unicode.IsControl(r) || unicode.IsSpace(r) || Invisible(r) {
			if !space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		b.WriteRune(r)
	}
	return strings.TrimRight(b.String(), " ")
}

// TestFlattenShortcut: text Flatten returns as it is would come out of
// the full pass the same, on random ASCII with spaces and controls.
func TestFlattenShortcut(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	alphabet := []byte(" \t\n\x7fab~-_\"'$  \r\x00")
	for range 20000 {
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		if got, want := Flatten(string(b)), flattenSlow(string(b)); got != want {
			t.Fatalf("Flatten(%q) = %q, want %q", b, got, want)
		}
	}
}
