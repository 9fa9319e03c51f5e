package resources

import "mvdan.cc/sh/v3/syntax"

// testMentions records the operands of [[ … ]] as operands, as those of
// test and [ are: [[ -f .env ]] tells whether a denied file exists (and
// -s its size, -nt its age) just as test -f .env does, and the gate
// judges the three spellings alike. The operands of arithmetic
// comparisons and of -v are names and numbers, not paths, and are left
// out; a pattern is checked like test's operand, against the files it
// could name, which refuses more than bash would open.
func (a *analyzer) testMentions(e syntax.TestExpr, c ctx) {
	if a.err != nil || isNilNode(e) {
		return
	}
	switch x := e.(type) {
	case *syntax.Word:
		a.mention(x, c)
	case *syntax.BinaryTest:
		if arithTestOps[x.Op] {
			return
		}
		a.testMentions(x.X, c)
		a.testMentions(x.Y, c)
	case *syntax.UnaryTest:
		if x.Op == syntax.TsVarSet || x.Op == syntax.TsRefVar {
			return
		}
		a.testMentions(x.X, c)
	case *syntax.ParenTest:
		a.testMentions(x.X, c)
	}
}
