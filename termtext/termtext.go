// Package termtext makes text that comes from elsewhere — a journal
// record, a reason, a tool call — safe to show on one line of a terminal
// and to write into a one-line field: no control character (a terminal
// escape in a record must never reach the terminal), no character that
// hides or reorders text, and a cut that says it is one. It is the one
// place for these rules; the journal, the registry, the redacted summaries,
// the cockpit and the command line all use it.
package termtext

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// IsControl reports whether r is a C0 or C1 control character or DEL.
func IsControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }

// Invisible reports whether r is a format character that reorders or hides
// text in a terminal (bidi overrides, zero-width joiners, the soft hyphen,
// line and paragraph separators): what a person reads must be what ran.
func Invisible(r rune) bool {
	switch {
	case r >= 0x200B && r <= 0x200F, r >= 0x202A && r <= 0x202E, r >= 0x2060 && r <= 0x2069,
		r == 0xFEFF, r == 0x2028, r == 0x2029, r == 0x00AD:
		return true
	}
	return false
}

// Clean replaces every control character with a space and keeps the rest,
// so the text keeps its length and layout. Text without one is returned as
// it is.
func Clean(s string) string {
	if strings.IndexFunc(s, IsControl) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if IsControl(r) {
			return ' '
		}
		return r
	}, s)
}

// Flatten makes s one line: control, invisible and white-space characters
// become single spaces (runs collapse, the ends are trimmed) and invalid
// UTF-8 becomes U+FFFD.
func Flatten(s string) string {
	if flatAlready(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
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

// flatAlready reports whether Flatten would return s as it is: printable
// ASCII, single spaces, neither end a space (the common case of a
// command line, which then costs one pass and no copy).
func flatAlready(s string) bool {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' {
		return s == ""
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < ' ' || c > '~' || c == ' ' && s[i+1] == ' ' {
			return false
		}
	}
	return true
}

// Clip cuts s to at most max runes, marking the cut with an ellipsis (so a
// clipped text is never longer than max). max <= 0 means no cut.
func Clip(s string, max int) string {
	if max <= 0 || utf8.RuneCountInString(s) <= max {
		return s
	}
	if max == 1 {
		return "…"
	}
	n := 0
	for i := range s {
		if n == max-1 {
			return strings.TrimRight(s[:i], " ") + "…"
		}
		n++
	}
	return s
}
