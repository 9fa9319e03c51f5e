package resources

import (
	"encoding/base32"
	"encoding/base64"
	"strings"
	"unicode/utf8"
)

// A textCodec undoes one encoding a decoder program on the line reads
// (base64 -d, base32 -d, xxd -r -p, basenc …). It is given any text of
// the line and decodes every run of the encoding's alphabet in it, one
// after another: it cannot know which text the program is fed, and a
// secret scan may decode too much but must not decode too little.
type textCodec int

const (
	codecBase64 textCodec = iota
	codecBase32
	codecBase32Hex
	codecHex
	codecBase2MSB
	codecBase2LSB
	codecZ85
	codecCount
)

// minCodedRun is the shortest run of an alphabet decoded: shorter ones
// make too little to hold a credential by themselves.
const minCodedRun = 8

// decodeRuns is what c makes of every run of its alphabet in s, the
// runs' outputs separated by newlines, with the bytes that are not
// printable made newlines too (a credential is printable: what is left
// are its candidates, and the detectors read no binary).
func (c textCodec) decodeRuns(s string) string {
	var out strings.Builder
	for _, run := range c.runs(s) {
		if d := c.decode(run); d != "" {
			out.WriteString(printableOnly(d))
			out.WriteByte('\n')
		}
	}
	return out.String()
}

// runs are the runs of c's alphabet in s, where the decoders skip
// newlines (base64 and base32 text is wrapped) and xxd -r -p skips any
// white space.
func (c textCodec) runs(s string) []string {
	skip := "\r\n"
	if c == codecHex || c == codecBase2MSB || c == codecBase2LSB {
		skip = " \t\r\n"
	}
	var runs []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() >= minCodedRun {
			runs = append(runs, cur.String())
		}
		cur.Reset()
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		switch {
		case strings.IndexByte(skip, b) >= 0:
		case c.inAlphabet(b):
			cur.WriteByte(b)
		default:
			flush()
		}
	}
	flush()
	return runs
}

const z85Alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"

func (c textCodec) inAlphabet(b byte) bool {
	switch c {
	case codecBase64:
		return isAlnum(b) || strings.IndexByte("+/-_=", b) >= 0
	case codecBase32:
		return b >= 'A' && b <= 'Z' || b >= '2' && b <= '7' || b == '='
	case codecBase32Hex:
		return b >= '0' && b <= '9' || b >= 'A' && b <= 'V' || b == '='
	case codecHex:
		_, ok := hexValue(b)
		return ok
	case codecBase2MSB, codecBase2LSB:
		return b == '0' || b == '1'
	case codecZ85:
		return strings.IndexByte(z85Alphabet, b) >= 0
	}
	return false
}

// decode is what c makes of one run (padding ends a block: what follows
// is decoded as another).
func (c textCodec) decode(run string) string {
	switch c {
	case codecBase64, codecBase32, codecBase32Hex:
		var out strings.Builder
		for _, piece := range strings.FieldsFunc(run, func(r rune) bool { return r == '=' }) {
			out.WriteString(c.decodeBlock(piece))
		}
		return out.String()
	case codecHex:
		return decodeHexRun(run)
	case codecBase2MSB, codecBase2LSB:
		return decodeBase2(run, c == codecBase2LSB)
	case codecZ85:
		return decodeZ85(run)
	}
	return ""
}

// decodeBlock decodes one unpadded base64 or base32 piece, what is left
// over past its last whole group dropped.
func (c textCodec) decodeBlock(piece string) string {
	if c == codecBase64 {
		enc := base64.RawStdEncoding
		if strings.ContainsAny(piece, "-_") {
			enc = base64.RawURLEncoding
		}
		if len(piece)%4 == 1 {
			piece = piece[:len(piece)-1]
		}
		b, err := enc.DecodeString(piece)
		if err != nil {
			return ""
		}
		return string(b)
	}
	enc := base32.StdEncoding.WithPadding(base32.NoPadding)
	if c == codecBase32Hex {
		enc = base32.HexEncoding.WithPadding(base32.NoPadding)
	}
	for len(piece) > 0 {
		if b, err := enc.DecodeString(piece); err == nil {
			return string(b)
		}
		piece = piece[:len(piece)-1] // a length base32 cannot end on
	}
	return ""
}

func decodeHexRun(run string) string {
	b := make([]byte, 0, len(run)/2)
	for i := 0; i+1 < len(run); i += 2 {
		hi, _ := hexValue(run[i])
		lo, _ := hexValue(run[i+1])
		b = append(b, hi<<4|lo)
	}
	return string(b)
}

func decodeBase2(run string, lsbFirst bool) string {
	b := make([]byte, 0, len(run)/8)
	for i := 0; i+8 <= len(run); i += 8 {
		var v byte
		for j := 0; j < 8; j++ {
			bit := run[i+j] - '0'
			if lsbFirst {
				v |= bit << j
			} else {
				v = v<<1 | bit
			}
		}
		b = append(b, v)
	}
	return string(b)
}

// decodeZ85 decodes ZeroMQ's Base85 (basenc --z85), five characters to
// four bytes.
func decodeZ85(run string) string {
	b := make([]byte, 0, len(run)/5*4)
	for i := 0; i+5 <= len(run); i += 5 {
		var v uint64
		for j := 0; j < 5; j++ {
			v = v*85 + uint64(strings.IndexByte(z85Alphabet, run[i+j]))
		}
		if v > 0xffffffff {
			return string(b)
		}
		b = append(b, byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
	}
	return string(b)
}

// xxdDumpData is the hex of an xxd dump (offset: hex  text, line by line)
// without its offsets and text columns, which xxd -r leaves out; "" when
// s holds no such line.
func xxdDumpData(s string) string {
	var out strings.Builder
	for _, line := range strings.Split(s, "\n") {
		colon := strings.Index(line, ": ")
		if colon <= 0 || !isHexText(line[:colon]) {
			continue
		}
		data := line[colon+2:]
		if end := strings.Index(data, "  "); end >= 0 {
			data = data[:end]
		}
		out.WriteString(strings.ReplaceAll(data, " ", ""))
	}
	return out.String()
}

func isHexText(s string) bool {
	for i := 0; i < len(s); i++ {
		if _, ok := hexValue(s[i]); !ok {
			return false
		}
	}
	return s != ""
}

// printableOnly is s with every byte that is not printable text (nor a
// tab) replaced by a newline.
func printableOnly(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == utf8.RuneError, r < 0x20 && r != '\t', r == 0x7f:
			b.WriteByte('\n')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// reverseLines is what rev prints for s: each line's characters in
// reverse order.
func reverseLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		r := []rune(l)
		for a, z := 0, len(r)-1; a < z; a, z = a+1, z-1 {
			r[a], r[z] = r[z], r[a]
		}
		lines[i] = string(r)
	}
	return strings.Join(lines, "\n")
}
