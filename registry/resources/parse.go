package resources

import (
	"path"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// pooledParser is a parser with the reader it parses from, pooled
// together so that a parse does not allocate a strings.Reader.
type pooledParser struct {
	p   *syntax.Parser
	src strings.Reader
}

var parserPool = sync.Pool{New: func() any {
	return &pooledParser{p: syntax.NewParser(syntax.Variant(syntax.LangBash))}
}}

// script parses src and analyses it in context c. c.depth is the nesting
// level of src itself.
func (a *analyzer) script(src string, c ctx) {
	if a.err != nil {
		return
	}
	if c.depth > maxShellDepth {
		a.failf("cannot analyse shell command: scripts nested more than %d levels deep", maxShellDepth)
		return
	}
	if err := checkBytes(src); err != nil {
		a.failf("%v", err)
		return
	}
	f, plain, err := parseBashLine(src)
	if err != nil {
		if c.depth > 0 {
			a.failf("cannot parse nested shell script %q: %v", shorten(src), err)
		} else {
			a.failf("cannot parse shell command: %v", err)
		}
		return
	}
	// A plain line can hold a backslash, a $ or a backquote only inside
	// quotes: without a quote its words are as written, and two byte
	// searches say so at less cost than wordsAsWritten's.
	written := plain && strings.IndexByte(src, '\'') < 0 && strings.IndexByte(src, '"') < 0
	if !written && !wordsAsWritten(src) && len(a.use.Dequoted) < maxDequoted {
		a.use.Dequoted += dequotedWords(f)
	}
	a.decodeScript(src, f, c.depth)
	// A plain line's commands are simple commands: it holds no loop and
	// no function, and its text need not be searched for them.
	if !plain && mayHoldLoopOrFunction(src) {
		a.prescanCwd(f)
	}
	a.stmts(f.Stmts, c)
	if c.depth == 0 {
		a.holdDecodedSends()
	}
}

// parseBash parses src as bash: a plain line by parsePlain, any other
// with a pooled parser.
func parseBash(src string) (*syntax.File, error) {
	f, _, err := parseBashLine(src)
	return f, err
}

// parseBashLine is parseBash, and whether parsePlain took the line.
func parseBashLine(src string) (f *syntax.File, plain bool, err error) {
	if f, ok := parsePlain(src); ok {
		return f, true, nil
	}
	f, err = parseBashGeneral(src)
	return f, false, err
}

// parseBashGeneral parses src with mvdan.cc/sh's parser, pooled.
func parseBashGeneral(src string) (*syntax.File, error) {
	pp := parserPool.Get().(*pooledParser)
	pp.src.Reset(src)
	f, err := pp.p.Parse(&pp.src, "")
	pp.src.Reset("") // the pool keeps no line alive
	parserPool.Put(pp)
	return f, err
}

// mayHoldLoopOrFunction reports whether src may parse to a loop or a
// function definition, which is what prescanCwd looks for; a line without
// one need not be walked twice. Those are keywords (while, until, for,
// select, function) or "name()", and a keyword is never quoted or escaped,
// so each leaves its bytes in the text — unless a backslash-newline splits
// it, which the line continuation joins again: such a line is walked.
func mayHoldLoopOrFunction(src string) bool {
	// One pass over the text: strings.Contains per keyword would scan a
	// long line once per keyword, stopping at every "s" of "status".
	for i := 0; i < len(src); i++ {
		if !loopOrFunctionFirst[src[i]] {
			continue
		}
		switch src[i] {
		case ')':
			return true
		case '\\':
			if i+1 < len(src) && src[i+1] == '\n' {
				return true
			}
		case 'w', 'u', 'f', 's':
			if i+1 < len(src) && keywordSecond[src[i+1]] {
				for _, k := range loopOrFunctionText {
					if strings.HasPrefix(src[i:], k) {
						return true
					}
				}
			}
		}
	}
	return false
}

var loopOrFunctionText = []string{"while", "until", "for", "select", "function"}

// loopOrFunctionFirst are the bytes mayHoldLoopOrFunction looks at: the
// rest is skipped with one table look-up a byte.
var loopOrFunctionFirst = newByteSet(")\\wufs")

// keywordSecond are the second letters of loopOrFunctionText, a cheap
// first test.
var keywordSecond = newByteSet("hnoeu")

// nested analyses a script run by the current shell or a child shell that
// inherits the current standard input.
func (a *analyzer) nested(src string, c ctx) {
	inner := c
	inner.depth++
	inner.xargs, inner.subst = false, ""
	a.script(src, inner)
}

// prescanCwd makes relative redirection targets unresolvable when something
// that may change directory sits inside a loop or a function body: there the
// textual order is not the execution order.
func (a *analyzer) prescanCwd(f *syntax.File) {
	if a.cwdUnknown {
		return
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		if a.cwdUnknown {
			return false
		}
		switch n.(type) {
		case *syntax.WhileClause, *syntax.ForClause, *syntax.FuncDecl:
			if mentionsCwdChange(n) {
				a.cwdUnknown = true
			}
			return false
		}
		return true
	})
}

func mentionsCwdChange(n syntax.Node) bool {
	found := false
	syntax.Walk(n, func(m syntax.Node) bool {
		if w, ok := m.(*syntax.Word); ok {
			if l, ok := staticWord(w); ok && cwdWords[path.Base(l.s)] {
				found = true
			}
		}
		return !found
	})
	return found
}

// wordsAsWritten: src holds no quote, backslash or expansion, so every
// word passes as written and dequotedWords would add nothing.
func wordsAsWritten(src string) bool {
	return strings.IndexAny(src, "'\"\\$`") < 0
}
