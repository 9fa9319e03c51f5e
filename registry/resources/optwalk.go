package resources

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// optWalk splits a modelled program's arguments into options and operands
// the way getopt_long does. opts maps each option (a letter or a long name)
// to 0 (no argument), 1 (an argument, attached or the next word) or 2 (an
// optional attached argument). short lists the letters that may be
// clustered. An option not in opts is refused when strict is set (the
// program runs things, so the gate does not guess what the option does) and
// taken as a flag otherwise.
type optWalk struct {
	prog     string
	opts     map[string]int
	short    string // letters without an argument
	argShort string // letters with an argument
	optShort string // letters with an optional attached argument
	lax      bool   // unknown options are flags (the program runs nothing)
	stopAt   bool   // options end at the first operand (POSIX), as for git subcommands' pathspecs after --
	ops      []*syntax.Word
	vals     map[string][]*syntax.Word
	seen     []string // the options given: a command gives few, and most none
	afterDD  bool     // "--" was seen; ops after it are all operands
	// ordered: keep every option value in seq as well, in the order
	// given across options (vals keeps the order of one option only).
	ordered bool
	seq     []namedWord
	cur     *syntax.Word // the option word being read
}

// namedWord is one option value with the option's name, and the
// argument word it came from (the option's own word for --opt=v and -ov,
// else the next one).
type namedWord struct {
	name   string
	w, src *syntax.Word
}

// addVal records the value w of option name, given in the argument src.
func (p *optWalk) addVal(name string, w, src *syntax.Word) {
	p.vals = appendWord(p.vals, name, w)
	if p.ordered {
		p.seq = append(p.seq, namedWord{name, w, src})
	}
}

func (p *optWalk) has(names ...string) bool {
	for _, n := range names {
		if slices.Contains(p.seen, n) {
			return true
		}
	}
	return false
}

// mark records that option name was given.
func (p *optWalk) mark(name string) {
	if !slices.Contains(p.seen, name) {
		p.seen = append(p.seen, name)
	}
}

// valueWord is an option's value as a word of its own. A leading ~ stays
// a tilde: bash expands it in a separate word and after the = of
// --opt=~/x, and taking a quoted one for the home directory only errs
// towards refusing.
func valueWord(v string) *syntax.Word {
	if strings.HasPrefix(v, "~") {
		prefix, rest, _ := strings.Cut(v, "/")
		parts := []syntax.WordPart{&syntax.Lit{Value: prefix}}
		if strings.Contains(v, "/") {
			parts = append(parts, &syntax.SglQuoted{Value: "/" + rest})
		}
		return &syntax.Word{Parts: parts}
	}
	return &syntax.Word{Parts: []syntax.WordPart{&syntax.SglQuoted{Value: v}}}
}

// walk parses args; false means the analysis failed.
func (p *optWalk) walk(a *analyzer, args []*syntax.Word) bool {
	p.vals, p.seen, p.seq = nil, nil, nil
	for i := 0; i < len(args); i++ {
		w := args[i]
		l, ok := staticWord(w)
		if p.afterDD || !ok || len(l.s) < 2 || l.s[0] != '-' {
			if !ok && !p.afterDD && !singleField(w) && !isProcSubst(w) {
				a.failf("cannot tell what %s does: %s may expand to an option", p.prog, wordText(w))
				return false
			}
			p.ops = append(p.ops, w)
			if p.stopAt {
				p.afterDD = true
			}
			continue
		}
		if l.s == "--" {
			p.afterDD = true
			continue
		}
		var next *syntax.Word
		if i+1 < len(args) {
			next = args[i+1]
		}
		p.cur = w
		used, ok := p.option(a, l.s, next)
		if !ok {
			return false
		}
		i += used
	}
	return true
}

// option handles one option word s; next is the word after it. It returns
// how many extra words it used.
func (p *optWalk) option(a *analyzer, s string, next *syntax.Word) (int, bool) {
	if strings.HasPrefix(s, "--") {
		name, v, hasV := strings.Cut(s[2:], "=")
		kind, known := p.opts[name]
		if len(name) < 2 {
			known = false // --r is not -r: a prefix of the long options
		}
		if !known {
			var ok bool
			if name, known, ok = p.expandLong(a, name, hasV); !ok {
				return 0, false
			}
			kind = p.opts[name]
		}
		switch {
		case !known && p.lax:
			p.mark(name)
			return 0, true
		case !known:
			a.failf("refused: %s --%s is not an option the gate knows, and %s can run programs or write files", p.prog, name, p.prog)
			return 0, false
		}
		p.mark(name)
		switch {
		case hasV:
			p.addVal(name, valueWord(v), p.cur)
		case kind == 1 && next == nil:
			a.failf("cannot tell what %s does: --%s needs a value", p.prog, name)
			return 0, false
		case kind == 1:
			p.addVal(name, next, next)
			return 1, true
		}
		return 0, true
	}
	for j := 1; j < len(s); j++ {
		ch := s[j]
		opt := s[j : j+1]
		p.mark(opt)
		switch {
		case strings.IndexByte(p.argShort, ch) >= 0:
			if j+1 < len(s) {
				p.addVal(opt, valueWord(s[j+1:]), p.cur)
				return 0, true
			}
			if next == nil {
				a.failf("cannot tell what %s does: -%s needs a value", p.prog, opt)
				return 0, false
			}
			p.addVal(opt, next, next)
			return 1, true
		case strings.IndexByte(p.optShort, ch) >= 0:
			if j+1 < len(s) {
				p.addVal(opt, valueWord(s[j+1:]), p.cur)
			}
			return 0, true
		case strings.IndexByte(p.short, ch) >= 0:
		case p.lax:
		default:
			a.failf("refused: %s -%s is not an option the gate knows, and %s can run programs or write files", p.prog, opt, p.prog)
			return 0, false
		}
	}
	return 0, true
}
