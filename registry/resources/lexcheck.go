package resources

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// checkBytes refuses text on which the parser and a real shell could
// disagree about where words and commands end: a NUL (bash drops it, the
// parser keeps it), a carriage return (a backslash before CR LF continues
// the line for the parser but not for bash and dash, and CR LF line ends
// are read differently), other control characters, bytes that are not
// UTF-8, and Unicode spaces and invisible format characters (a shell in
// another locale may split on them, and a human reading the call cannot
// see them).
func checkBytes(src string) error {
	if err := checkCommentContinuation(src); err != nil {
		return err
	}
	for i := 0; i < len(src); {
		if i+8 <= len(src) && printable8(src[i:i+8]) {
			i += 8 // eight bytes of printable ASCII: the common case
			continue
		}
		c := src[i]
		if !lexSuspect[c] {
			i++ // printable ASCII, tab or newline
			continue
		}
		if c < utf8.RuneSelf {
			return fmt.Errorf("refused: the command contains the control character %q at byte %d, which the shell and the gate's parser may read differently", c, i)
		}
		r, size := utf8.DecodeRuneInString(src[i:])
		if r == utf8.RuneError && size == 1 {
			return fmt.Errorf("refused: the command is not valid UTF-8 at byte %d, which the shell and the gate's parser may read differently", i)
		}
		if invisibleRune(r) {
			return fmt.Errorf("refused: the command contains the invisible or space-like character U+%04X at byte %d, which the shell and the gate's parser may read differently", r, i)
		}
		i += size
	}
	return nil
}

// lexSuspect are the bytes checkBytes looks at more closely: the ASCII
// control characters but tab and newline, DEL, and every byte of a
// multi-byte sequence.
var lexSuspect = func() (s byteSet) {
	for c := 0; c < 256; c++ {
		s[c] = (c < 0x20 && c != '\t' && c != '\n') || c >= 0x7f
	}
	return s
}()

// printable8 reports whether the eight bytes of s are all printable ASCII
// (0x20–0x7e), testing them as one word: a byte below 0x20 borrows from
// its high bit in x-0x20…, and a byte of 0x7f or more sets it in x+0x01…
// or in x itself. A carry or borrow can only come from a byte that fails
// already, so true is exact; false sends the caller to look byte by byte.
func printable8(s string) bool {
	x := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	low := (x - 0x20*ones) &^ x & highs
	high := (x + ones | x) & highs
	return low|high == 0
}

// invisibleRune reports Unicode space separators, line and paragraph
// separators, the C1 controls and the zero-width and bidirectional format
// characters.
func invisibleRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f: // C1 controls, NEL included
		return true
	case r == 0xa0, r == 0xad, r == 0x1680, r == 0x180e, r == 0x3000, r == 0xfeff:
		return true
	case r >= 0x2000 && r <= 0x200f: // spaces, zero-width, LRM/RLM
		return true
	case r >= 0x2028 && r <= 0x202f: // separators, bidi embeddings, narrow space
		return true
	case r >= 0x205f && r <= 0x206f: // medium space, invisible operators, bidi isolates
		return true
	case r >= 0xfff9 && r <= 0xfffb: // interlinear annotations
		return true
	case r >= 0xe0000 && r <= 0xe007f: // tags
		return true
	}
	return false
}

// checkCommentContinuation refuses a line that has a # and ends in a
// backslash: bash ends a comment at the newline whatever precedes it, and
// the parser may continue it, so a command on the next line could hide.
func checkCommentContinuation(src string) error {
	for len(src) > 0 {
		line, rest, _ := strings.Cut(src, "\n")
		if strings.HasSuffix(line, "\\") && strings.Contains(line, "#") {
			return fmt.Errorf("refused: a line with # ends in a backslash, which the shell and the gate's parser may read differently")
		}
		src = rest
	}
	return nil
}
