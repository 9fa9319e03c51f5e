package resources

import (
	"slices"
	"strings"
)

// expandLong reads a long option name that is not in p.opts the way
// getopt_long does: a unique prefix of one option is that option (sort
// --compress-prog is --compress-program, grep --exclude-fr=.env is
// --exclude-from=.env), and a prefix of several is refused (the program
// would refuse it too, or take it for an option the gate cannot tell).
// known is false when name is a prefix of nothing in the table.
//
// A lax table lists only the options the model needs, not all the
// program's: an option missing from it may be exactly name (grep
// --binary is an option of its own, and a prefix of --binary-files). So a
// lax program's abbreviation of an option that takes a separate value is
// refused: the gate cannot tell whether the next word is that value or
// an operand.
func (p *optWalk) expandLong(a *analyzer, name string, hasValue bool) (full string, known, ok bool) {
	var cands []string
	for opt := range p.opts {
		if len(opt) > 1 && strings.HasPrefix(opt, name) {
			cands = append(cands, opt)
		}
	}
	switch {
	case len(cands) == 0:
		return name, false, true
	case len(cands) > 1:
		slices.Sort(cands)
		a.failf("refused: %s --%s is ambiguous (it could be --%s); spell options out", p.prog, name, strings.Join(cands, ", --"))
		return "", false, false
	case p.lax && p.opts[cands[0]] == 1 && !hasValue:
		a.failf("refused: %s --%s may be --%s, which takes the next word, or an option of its own; spell options out", p.prog, name, cands[0])
		return "", false, false
	}
	return cands[0], true, true
}
