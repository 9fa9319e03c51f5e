package resources

import (
	"fmt"
	"strconv"
	"strings"
)

// maxPrintfPad is the most padding printfOutput writes for one field:
// padding is spaces (or zeros), which build no credential past a few, and
// %999999s must not make a megabyte to scan.
const maxPrintfPad = 64

// printfOutput is what bash's printf prints for its arguments args (the
// program name left out): the format's escapes and conversions applied to
// the arguments, the format used again while arguments remain, %b's
// argument read for escapes, a \c in it ending all output. -v NAME and
// -- are left out (what goes to a variable is scanned like what is
// printed). max bounds the output; full is false when it was reached.
// An unknown conversion ends the output, as bash ends it with an error.
func printfOutput(args []string, max int) (out string, full bool) {
	switch {
	case len(args) > 0 && args[0] == "-v":
		args = args[min(2, len(args)):]
	case len(args) > 0 && strings.HasPrefix(args[0], "-v"):
		args = args[1:]
	}
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		return "", true
	}
	p := printfRun{format: args[0], args: args[1:], max: max}
	for {
		before := len(p.args)
		if p.once() || len(p.args) == 0 || len(p.args) == before {
			break
		}
	}
	return p.b.String(), !p.over
}

// printfRun is one printf being evaluated.
type printfRun struct {
	format string
	args   []string
	b      strings.Builder
	max    int
	over   bool
}

// next is the next argument, "" when none is left.
func (p *printfRun) next() string {
	if len(p.args) == 0 {
		return ""
	}
	s := p.args[0]
	p.args = p.args[1:]
	return s
}

func (p *printfRun) write(s string) {
	if p.b.Len()+len(s) > p.max {
		s = s[:max(0, p.max-p.b.Len())]
		p.over = true
	}
	p.b.WriteString(s)
}

// once applies the format once; stop is true when the output ends (a \c
// of %b, an unknown conversion, the bound).
func (p *printfRun) once() (stop bool) {
	f := p.format
	for i := 0; i < len(f) && !p.over; {
		switch c := f[i]; {
		case c == '\\' && i+1 < len(f):
			var b strings.Builder
			n, _ := escapeAt(&b, f[i+1:], escapeFormat)
			p.write(b.String())
			i += 1 + n
		case c != '%':
			j := i + 1
			for j < len(f) && f[j] != '%' && f[j] != '\\' {
				j++
			}
			p.write(f[i:j])
			i = j
		case i+1 < len(f) && f[i+1] == '%':
			p.write("%")
			i += 2
		default:
			n, stop := p.conversion(f[i+1:])
			if stop {
				return true
			}
			i += 1 + n
		}
	}
	return p.over
}

// printfSpec is a conversion's flags, width and precision (-1: none).
type printfSpec struct {
	flags            string
	width, precision int
}

// conversion applies the conversion whose text (after the %) starts
// spec, and says how many bytes of spec it used.
func (p *printfRun) conversion(spec string) (n int, stop bool) {
	i := 0
	for i < len(spec) && strings.IndexByte("#'-+ 0", spec[i]) >= 0 {
		i++
	}
	s := printfSpec{flags: spec[:i], precision: -1}
	if i < len(spec) && spec[i] == '*' {
		s.width = int(printfInt(p.next()))
		i++
	} else {
		i, s.width = digitsAt(spec, i)
	}
	if s.width < 0 {
		s.flags, s.width = s.flags+"-", -s.width
	}
	if i < len(spec) && spec[i] == '.' {
		i++
		if i < len(spec) && spec[i] == '*' {
			s.precision = int(printfInt(p.next()))
			i++
		} else {
			negative := i < len(spec) && spec[i] == '-'
			if negative {
				i++
			}
			i, s.precision = digitsAt(spec, i)
			if negative {
				s.precision = -1
			}
		}
		s.precision = max(s.precision, -1)
	}
	for i < len(spec) && strings.IndexByte("hjlLtz", spec[i]) >= 0 {
		i++
	}
	if i == len(spec) {
		return i, true
	}
	conv := spec[i]
	i++
	switch conv {
	case 's', 'q', 'Q':
		p.field(p.next(), s)
	case 'b':
		out, stopped := decodeEscapes(p.next(), escapePercentB)
		p.field(out, s)
		return i, stopped
	case 'c':
		arg := p.next() + "\x00"
		s.precision = -1
		p.field(arg[:1], s)
	case 'd', 'i', 'o', 'u', 'x', 'X', 'e', 'E', 'f', 'F', 'g', 'G', 'a', 'A':
		p.number(conv, p.next(), s)
	case 'n':
		p.next()
	case '(':
		end := strings.Index(spec[i:], ")T")
		if end < 0 {
			return len(spec), true
		}
		p.next() // the time: what it prints is a date, no credential
		i += end + 2
	default:
		return i, true
	}
	return i, false
}

// digitsAt reads a decimal number at s[i:], 0 when there is none (a
// number too large for an int is maxPrintfPad, which is as good).
func digitsAt(s string, i int) (int, int) {
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == i {
		return i, 0
	}
	v, err := strconv.Atoi(s[i:j])
	if err != nil {
		v = maxPrintfPad
	}
	return j, v
}

// field writes text padded to the width and cut to the precision, as C's
// printf does with %s (the padding bounded by maxPrintfPad).
func (p *printfRun) field(text string, s printfSpec) {
	if s.precision >= 0 && s.precision < len(text) {
		text = text[:s.precision]
	}
	pad := strings.Repeat(" ", min(max(s.width-len(text), 0), maxPrintfPad))
	if strings.IndexByte(s.flags, '-') >= 0 {
		p.write(text + pad)
	} else {
		p.write(pad + text)
	}
}

// number writes a numeric conversion of arg as C's printf does, Go's fmt
// doing the formatting (the thousands flag ' is left out).
func (p *printfRun) number(conv byte, arg string, s printfSpec) {
	verb := "%" + strings.ReplaceAll(s.flags, "'", "")
	if s.width > 0 {
		verb += strconv.Itoa(min(s.width, maxPrintfPad))
	}
	if s.precision >= 0 {
		verb += "." + strconv.Itoa(min(s.precision, maxPrintfPad))
	}
	switch conv {
	case 'd', 'i':
		p.write(fmt.Sprintf(verb+"d", printfInt(arg)))
	case 'u':
		p.write(fmt.Sprintf(verb+"d", uint64(printfInt(arg))))
	case 'o', 'x', 'X':
		p.write(fmt.Sprintf(verb+string(conv), uint64(printfInt(arg))))
	case 'a', 'A':
		p.write(fmt.Sprintf(verb+"x", printfFloat(arg)))
	default:
		p.write(fmt.Sprintf(verb+string(conv), printfFloat(arg)))
	}
}

// printfInt is a numeric argument as bash's printf reads it: decimal,
// 0x hex or 0 octal, or the code of the character after a leading quote
// ('g is 103); what does not read as a number counts as its longest
// number prefix, or 0.
func printfInt(s string) int64 {
	s = strings.TrimLeft(s, " \t\n")
	if len(s) > 1 && (s[0] == '\'' || s[0] == '"') {
		return int64(s[1])
	}
	s = s[:min(len(s), 32)]
	for end := len(s); end > 0; end-- {
		if v, err := strconv.ParseInt(s[:end], 0, 64); err == nil {
			return v
		}
		if v, err := strconv.ParseUint(s[:end], 0, 64); err == nil {
			return int64(v)
		}
	}
	return 0
}

// printfFloat is a floating-point argument, read like printfInt.
func printfFloat(s string) float64 {
	s = strings.TrimSpace(s)
	if len(s) > 1 && (s[0] == '\'' || s[0] == '"') {
		return float64(s[1])
	}
	s = s[:min(len(s), 32)]
	for end := len(s); end > 0; end-- {
		if v, err := strconv.ParseFloat(s[:end], 64); err == nil {
			return v
		}
	}
	return float64(printfInt(s))
}
