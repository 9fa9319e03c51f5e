package resources

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// maxExpansion bounds the words one argument may expand to (braces and
// globs) before the analysis gives up.
const maxExpansion = 256

// argValues returns the values bash gives one argument word: braces are
// expanded, $HOME and ${HOME} at the start become "~", $PWD and ~+ the
// working directory ("."), and the result is still subject to pathname
// expansion (see lit.hasGlob). ok is false when the value depends on
// anything else at run time ($X, $(…), ~-, ~user, $OLDPWD).
func (a *analyzer) argValues(w *syntax.Word) ([]lit, bool) {
	if w == nil {
		return nil, false
	}
	if !hasBraceLit(w) {
		// The word is its own only value (most are): no list of words
		// to expand.
		l, ok := argValue(w)
		if !ok {
			return nil, false
		}
		return []lit{l}, true
	}
	words, ok := braceWords(w)
	if !ok {
		return nil, false
	}
	out := make([]lit, 0, len(words))
	for _, bw := range words {
		l, ok := argValue(bw)
		if !ok {
			return nil, false
		}
		out = append(out, l)
	}
	return out, true
}

// braceWords are the words bash expands w's braces to (w itself when
// they are not an expansion); ok is false past maxExpansion words or when
// they cannot be expanded.
func braceWords(w *syntax.Word) ([]*syntax.Word, bool) {
	cp := *w
	cp.Parts = slices.Clone(w.Parts)
	if !syntax.SplitBraces(&cp) {
		return []*syntax.Word{w}, true
	}
	var words []*syntax.Word
	for bw, err := range expand.BracesSeq(nil, &cp) {
		if err != nil || len(words) >= maxExpansion {
			return nil, false
		}
		words = append(words, bw)
	}
	return words, true
}

// argValue is the value of one word after brace expansion (see
// argValues).
func argValue(w *syntax.Word) (lit, bool) {
	l, ok := staticWordEnv(w)
	if !ok {
		return lit{}, false
	}
	if l.s != "" && l.s[0] == '~' && !l.quoted[0] {
		prefix, _, _ := strings.Cut(l.s, "/")
		switch prefix {
		case "~":
		case "~+":
			l = lit{s: "." + l.s[2:], quoted: append([]bool{true}, l.quoted[2:]...)}
		default: // ~-, ~user, ~N: run-time state
			return lit{}, false
		}
	}
	return l, true
}

func hasBraceLit(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.Contains(l.Value, "{") {
			return true
		}
	}
	return false
}

// staticWordEnv is staticWord that also knows $HOME and $PWD when they begin
// the word (the gate refuses assigning either): "$HOME/x" is "~/x" and
// "$PWD/x" is "./x".
func staticWordEnv(w *syntax.Word) (lit, bool) {
	if l, ok := staticWord(w); ok {
		return l, true
	}
	if len(w.Parts) == 0 {
		return lit{}, false
	}
	rest := w.Parts[1:]
	first := w.Parts[0]
	if dq, ok := first.(*syntax.DblQuoted); ok && !dq.Dollar && len(dq.Parts) > 0 {
		first = dq.Parts[0]
		rest = append([]syntax.WordPart{&syntax.DblQuoted{Parts: dq.Parts[1:]}}, w.Parts[1:]...)
	}
	pe, ok := first.(*syntax.ParamExp)
	if !ok || !simpleParam(pe) {
		return lit{}, false
	}
	var l lit
	switch pe.Param.Value {
	case "HOME":
		l.add("~", false)
	case "PWD":
		l.add(".", true)
	default:
		return lit{}, false
	}
	tail, ok := staticWord(&syntax.Word{Parts: rest})
	if !ok && len(rest) > 0 {
		return lit{}, false
	}
	if tail.s != "" && tail.s[0] != '/' {
		return lit{}, false // "$HOME"x is another name
	}
	l.s += tail.s
	l.quoted = append(l.quoted, tail.quoted...)
	return l, true
}

// simpleParam is $name or ${name}, with no operator, index or slice.
func simpleParam(pe *syntax.ParamExp) bool {
	return pe.Param != nil && !pe.Excl && !pe.Length && !pe.Width && pe.Index == nil &&
		pe.Slice == nil && pe.Repl == nil && pe.Exp == nil && pe.Names == 0
}

// argPaths returns the paths an argument word may name, each as seen from
// every candidate working directory, with patterns expanded against the
// file system when the starting directory is known (the pattern itself is
// kept too: bash passes an unmatched pattern on as written). Words that
// the wrapping find or xargs fills in at run time are the paths the
// wrapper hands over (c.substPaths). ok is false when the paths cannot be
// known.
func (a *analyzer) argPaths(w *syntax.Word, c ctx) ([]string, bool) {
	if c.subst != "" {
		if l, ok := staticWord(w); ok && strings.Contains(l.s, c.subst) {
			return c.substPaths, c.substPaths != nil
		}
	}
	vals, ok := a.argValues(w)
	if !ok {
		return nil, false
	}
	var out []string
	for _, l := range vals {
		paths, ok := a.litPaths(l)
		if !ok {
			return nil, false
		}
		out = append(out, paths...)
	}
	return out, true
}

// litPaths is argPaths for one value.
func (a *analyzer) litPaths(l lit) ([]string, bool) {
	if l.s == "" {
		return nil, true
	}
	if l.quoted[0] && l.s[0] == '~' {
		l = lit{s: "./" + l.s, quoted: append([]bool{true, true}, l.quoted...)}
	}
	p := l.s
	if a.cwdUnknown && !isAbsOrHome(p) {
		a.failf("cannot determine the directory of relative path %q: the working directory changes in a way the analysis cannot follow", p)
		return nil, false
	}
	var out []string
	for _, full := range a.inCwds(p) {
		out = append(out, full)
		if l.hasGlob() {
			matches, ok := a.glob(full, l, len(full)-len(p))
			if !ok {
				return nil, false
			}
			out = append(out, matches...)
		}
	}
	return out, true
}

// glob expands the pattern full (l is its value before the working
// directory, whose prefix of length pre was added) against the file system.
// Without a known starting directory, relative patterns stay as written.
func (a *analyzer) glob(full string, l lit, pre int) ([]string, bool) {
	var b strings.Builder
	for i := 0; i < len(full); i++ {
		ch := full[i]
		quoted := i < pre || l.quoted[i-pre]
		if quoted && strings.IndexByte(`*?[]{}\`, ch) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(ch)
	}
	pattern := b.String()
	switch {
	case pattern == "~" || strings.HasPrefix(pattern, "~/"):
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, false
		}
		pattern = filepath.ToSlash(home) + pattern[1:]
	case strings.HasPrefix(pattern, "/"):
	case a.base == "":
		return nil, true
	default:
		pattern = filepath.ToSlash(a.base) + "/" + pattern
	}
	var matches []string
	var err error
	if hasDotDot(pattern) {
		var ok bool
		if matches, ok = globDotDot(pattern); !ok {
			a.failf("cannot determine the files %s names: a \"..\" after a wildcard or through a link the gate cannot follow", shorten(full))
			return nil, false
		}
	} else {
		matches, err = doublestar.FilepathGlob(pattern, doublestar.WithFailOnIOErrors())
	}
	if err != nil || len(matches) > maxExpansion {
		a.failf("cannot determine the files %s names: the pattern matches too much or cannot be read", shorten(full))
		return nil, false
	}
	return matches, true
}
