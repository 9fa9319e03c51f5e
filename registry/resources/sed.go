package resources

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// sedOpts are GNU sed's options: 1 takes an argument, 0 does not, 2 takes
// an optional attached one. Anything else is refused: sed can run
// commands, so an unknown option is not guessed at.
var sedOpts = map[string]int{
	"n": 0, "quiet": 0, "silent": 0, "e": 1, "expression": 1, "f": 1, "file": 1, "i": 2, "in-place": 2,
	"E": 0, "r": 0, "regexp-extended": 0, "s": 0, "separate": 0, "u": 0, "unbuffered": 0, "z": 0,
	"null-data": 0, "l": 1, "line-length": 1, "posix": 0, "debug": 0, "sandbox": 0, "follow-symlinks": 0,
	"b": 0, "binary": 0, "help": 0, "version": 0,
}

// sed models sed: the script is parsed for the commands that run (e, and
// the e flag of s), write (w, W, the w flag of s) and read (r, R) files;
// a script read from a file (-f) cannot be seen and is refused; with -i
// the file operands are written, else read.
func (a *analyzer) sed(prog string, args []*syntax.Word, c ctx) {
	p := optWalk{prog: prog, opts: sedOpts, short: "nersuzEbil", argShort: "efl", optShort: "i"}
	if !p.walk(a, args) {
		return
	}
	scripts := append(p.vals["e"], p.vals["expression"]...)
	if p.has("f", "file") {
		a.failf("the gate cannot tell what this runs: sed -f reads its script from a file, and a sed script can run commands and write files")
		return
	}
	ops := p.ops
	if len(scripts) == 0 {
		if len(ops) == 0 {
			return
		}
		scripts, ops = ops[:1], ops[1:]
	}
	for _, w := range scripts {
		l, ok := staticWord(w)
		if !ok {
			a.failf("the gate cannot tell what this runs: the sed script %s is not static", wordText(w))
			return
		}
		a.sedScript(l.s, c)
	}
	if p.has("i", "in-place") {
		a.writeArgs(prog+" -i", ops, c)
		a.sedBackups(append(p.vals["i"], p.vals["in-place"]...), ops, c)
	}
	a.readArgs(prog, ops, c)
}

// sedScript scans a sed script command by command.
func (a *analyzer) sedScript(s string, c ctx) {
	i := 0
	for i < len(s) && a.err == nil {
		i = sedSkipAddress(s, i)
		if i < 0 {
			a.failf(sedBracketRefusal)
			return
		}
		if i >= len(s) {
			return
		}
		cmd := s[i]
		i++
		switch {
		case strings.IndexByte(" \t\n;{}!", cmd) >= 0:
		case cmd == '#':
			i = sedLineEnd(s, i)
		case cmd == 'e':
			a.failf("the gate cannot tell what this runs: the sed command e runs a shell command")
		case strings.IndexByte("rRwW", cmd) >= 0:
			end := sedLineEnd(s, i)
			a.sedFile(cmd, strings.TrimSpace(s[i:end]), c)
			i = end
		case strings.IndexByte("aic", cmd) >= 0:
			i = sedTextEnd(s, i)
		case strings.IndexByte(":btTvlLqQ", cmd) >= 0:
			i = sedLabelEnd(s, i)
		case cmd == 's' || cmd == 'y':
			i = a.sedSubst(s, i, cmd, c)
		case strings.IndexByte("=dDgGhHnNpPxzF", cmd) >= 0:
		default:
			a.failf("refused: the sed command %q is not one the gate knows", cmd)
		}
	}
}

// sedFile records the file of r, R, w and W.
func (a *analyzer) sedFile(cmd byte, name string, c ctx) {
	if name == "" || name == "/dev/stdout" || name == "/dev/stderr" || name == "/dev/stdin" {
		return
	}
	w := &syntax.Word{Parts: []syntax.WordPart{&syntax.SglQuoted{Value: name}}}
	if cmd == 'w' || cmd == 'W' {
		a.writeArg("sed "+string(cmd), w, c)
	} else {
		a.readArg("sed "+string(cmd), w, c)
	}
}

// sedSubst scans s/regex/replacement/flags (or y/src/dst/) from the
// delimiter at s[i] and returns the index after it.
func (a *analyzer) sedSubst(s string, i int, cmd byte, c ctx) int {
	if i >= len(s) || s[i] == '\n' || s[i] == '\\' {
		a.failf("refused: a sed %c command the gate cannot read", cmd)
		return len(s)
	}
	delim := s[i]
	i++
	for part := 0; part < 2; part++ {
		start := i
		i = sedDelimEnd(s, i, delim)
		if i >= len(s) {
			a.failf("refused: a sed %c command the gate cannot read", cmd)
			return len(s)
		}
		if cmd == 's' && part == 0 && !a.sedRegexAgrees(s, start, i, delim) {
			return len(s)
		}
		i++
	}
	if cmd == 'y' {
		return i
	}
	for i < len(s) {
		f := s[i]
		switch {
		case f == 'e':
			a.failf("the gate cannot tell what this runs: the e flag of sed's s command runs the result as a shell command")
			return len(s)
		case f == 'w':
			end := sedLineEnd(s, i+1)
			a.sedFile('w', strings.TrimSpace(s[i+1:end]), c)
			return end
		case strings.IndexByte("gpiImM0123456789", f) >= 0:
			i++
		default:
			return i
		}
	}
	return i
}

// sedSkipAddress skips blanks and an address (line numbers, $, /re/, \cREc,
// first~step, addr,+N, !).
func sedSkipAddress(s string, i int) int {
	for i < len(s) {
		ch := s[i]
		switch {
		case ch == ' ' || ch == '\t' || ('0' <= ch && ch <= '9') || ch == '$' || ch == ',' || ch == '~' || ch == '+':
			i++
		case ch == '/' || ch == '\\':
			delim := ch
			if ch == '\\' {
				if i+1 >= len(s) {
					return len(s)
				}
				i++
				delim = s[i]
			}
			i++
			start := i
			i = sedDelimEnd(s, i, delim)
			if !sedBracketsAgree(s, start, i, delim) {
				return -1
			}
			i++
			for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
				i++
			}
		default:
			return i
		}
	}
	return i
}

// sedLineEnd is the end of a file name or comment: the next newline.
func sedLineEnd(s string, i int) int {
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(s)
}

// sedLabelEnd is the end of a label or numeric argument. GNU sed 4.9 ends
// a label at a blank or a semicolon (":x e" is the label x, then the
// command e), older seds at a semicolon or a newline only: the earliest of
// them is taken, so that what follows is read as commands either way.
func sedLabelEnd(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++ // the blanks between the command and its label
	}
	if j := strings.IndexAny(s[i:], " \t;\n}"); j >= 0 {
		return i + j
	}
	return len(s)
}

// sedTextEnd is the end of the text of a, i and c: the newline that is not
// escaped.
func sedTextEnd(s string, i int) int {
	for i < len(s) {
		if s[i] == '\\' {
			i += 2
			continue
		}
		if s[i] == '\n' {
			return i
		}
		i++
	}
	return len(s)
}

// sedDelimEnd is the index of the delimiter that ends the part of an s or
// y command, or of a /regex/ address, starting at i, read as sed's older
// parsers read it: a backslash escapes the next byte, nothing else is
// special. len(s) when there is none.
func sedDelimEnd(s string, i int, delim byte) int {
	for i < len(s) && s[i] != delim {
		if s[i] == '\\' {
			i++
		}
		i++
	}
	return min(i, len(s))
}

const sedBracketRefusal = "refused: a bracket expression in a sed regex holds its delimiter, which GNU sed and other seds read differently: use another delimiter (s|[/]|x|)"

// sedRegexAgrees fails the analysis when the regex s[start:end] holds a
// bracket expression that may swallow the delimiter.
func (a *analyzer) sedRegexAgrees(s string, start, end int, delim byte) bool {
	if !sedBracketsAgree(s, start, end, delim) {
		a.failf(sedBracketRefusal)
		return false
	}
	return true
}

// sedBracketsAgree reports whether a regex that ends at end for a reader
// that knows no brackets ends there too for GNU sed, which skips bracket
// expressions: in s/[/]/x/e the regex is [/] (and e runs the result), not
// [. A regex without a [ agrees at once.
func sedBracketsAgree(s string, start, end int, delim byte) bool {
	if strings.IndexByte(s[start:min(end, len(s))], '[') < 0 {
		return true
	}
	i := start
	for i < len(s) && s[i] != delim {
		switch s[i] {
		case '\\':
			i += 2
			continue
		case '[':
			j := sedBracketEnd(s, i)
			if j < 0 {
				return false // unterminated: GNU sed looks on past the delimiter
			}
			i = j
			continue
		}
		i++
	}
	return i == end
}

// sedBracketEnd is the index after the bracket expression that opens at
// s[i] ('['), as GNU sed reads it: a leading ^ and then ] belong to it,
// [:class:], [=x=] and [.x.] are skipped whole, a backslash is an
// ordinary byte; -1 when it does not end.
func sedBracketEnd(s string, i int) int {
	j := i + 1
	if j < len(s) && s[j] == '^' {
		j++
	}
	if j < len(s) && s[j] == ']' {
		j++
	}
	for j < len(s) {
		switch {
		case s[j] == '[' && j+1 < len(s) && strings.IndexByte(".:=", s[j+1]) >= 0:
			k := strings.Index(s[j+2:], string(s[j+1])+"]")
			if k < 0 {
				return -1
			}
			j += 2 + k + 2
		case s[j] == ']':
			return j + 1
		default:
			j++
		}
	}
	return -1
}
