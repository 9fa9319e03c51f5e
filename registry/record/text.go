package record

import (
	"strings"
	"unicode/utf8"
)

// Clip makes s safe for a one-line free-text member: every control
// character (U+0000–U+001F, U+007F) becomes a space, invalid UTF-8 becomes
// U+FFFD, and a value longer than max code points keeps max-1 of them and
// ends in "…", so the result is never longer than max. max < 1 means no
// cap. A value already within the cap keeps every character.
func Clip(s string, max int) string {
	if clean(s) && (max < 1 || len(s) <= max || utf8.RuneCountInString(s) <= max) {
		return s
	}
	keep := -1
	if max >= 1 && utf8.RuneCountInString(s) > max {
		keep = max - 1
	}
	var b strings.Builder
	if keep >= 0 {
		b.Grow(min(len(s), 4*keep+3))
	} else {
		b.Grow(len(s))
	}
	n := 0
	for _, r := range s {
		if n == keep {
			b.WriteRune('…')
			break
		}
		if r < 0x20 || r == 0x7f {
			r = ' '
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// clean reports whether s is valid UTF-8 without control characters.
func clean(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			return false
		}
	}
	return utf8.ValidString(s)
}

// ClipField clips s to the cap the schema states for f.
func ClipField(s string, f Field) string { return Clip(s, Cap(f)) }
