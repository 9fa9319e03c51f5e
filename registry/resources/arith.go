package resources

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Bash evaluates the value of a variable used in arithmetic as an
// arithmetic expression in turn, and an array subscript in that value
// performs command substitution: with v='a[$(id)]', ((v)), $((v)),
// $(( $v )), [[ $v -eq 0 ]], ${arr[$v]} and ${x:$v} all run id, although no
// program appears on the line. Arithmetic is therefore allowed over
// literals and over variables this line has itself set to a number
// (i=0; ((i++))), and over values that are numbers by nature ($#, $?, ${#x});
// any other variable, and any command substitution, in arithmetic is
// refused.

const arithRefusal = "the gate cannot tell what this runs: arithmetic over %s evaluates a run-time value, which can run commands"

// noteAssign records whether an assignment leaves name holding a number.
func (a *analyzer) noteAssign(name string, value lit, static bool) {
	if static && isArithNumber(value.s) {
		a.setNumeric(name)
	} else {
		a.forgetNumber(name)
	}
}

// setNumeric records that name holds a number (the map is made on first use).
func (a *analyzer) setNumeric(name string) {
	if a.numeric == nil {
		a.numeric = map[string]bool{}
	}
	a.numeric[name] = true
}

// isArithNumber reports a literal bash reads as a number: decimal, 0x hex,
// octal or base#digits, optionally signed.
func isArithNumber(s string) bool {
	s = strings.TrimLeft(s, "+-")
	if s == "" {
		return false
	}
	if b, digits, ok := strings.Cut(s, "#"); ok {
		if !isDigits(b) || digits == "" {
			return false
		}
		for i := 0; i < len(digits); i++ {
			c := digits[i]
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '@' || c == '_') {
				return false
			}
		}
		return true
	}
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		for i := 2; i < len(s); i++ {
			if !isHex(s[i]) {
				return false
			}
		}
		return len(s) > 2
	}
	return isDigits(s)
}

// numericParams are parameters whose value is always a number.
var numericParams = map[string]bool{
	"#": true, "?": true, "$": true, "!": true, "RANDOM": true, "SECONDS": true, "LINENO": true,
	"EPOCHSECONDS": true, "BASHPID": true, "PPID": true, "UID": true, "EUID": true, "SRANDOM": true,
}

// arithAssignOps are the assignment operators of arithmetic.
var arithAssignOps = map[syntax.BinAritOperator]bool{
	syntax.Assgn: true, syntax.AddAssgn: true, syntax.SubAssgn: true, syntax.MulAssgn: true,
	syntax.QuoAssgn: true, syntax.RemAssgn: true, syntax.AndAssgn: true, syntax.OrAssgn: true,
	syntax.XorAssgn: true, syntax.ShlAssgn: true, syntax.ShrAssgn: true,
}

// arithTestOps are the arithmetic comparisons of [[ … ]].
var arithTestOps = map[syntax.BinTestOperator]bool{
	syntax.TsEql: true, syntax.TsNeq: true, syntax.TsLeq: true, syntax.TsGeq: true, syntax.TsLss: true,
	syntax.TsGtr: true,
}

// arith checks an arithmetic expression (see the comment above).
func (a *analyzer) arith(e syntax.ArithmExpr, c ctx) {
	if a.err != nil || isNilNode(e) {
		return
	}
	switch x := e.(type) {
	case *syntax.BinaryArithm:
		if arithAssignOps[x.Op] {
			a.arith(x.Y, c)
			name, ok := arithName(x.X)
			if !ok {
				a.arith(x.X, c)
				return
			}
			if x.Op != syntax.Assgn && !a.lineNumber(name) {
				a.failf(arithRefusal, name)
				return
			}
			a.checkAssignName(name)
			a.setNumeric(name)
			return
		}
		a.arith(x.X, c)
		a.arith(x.Y, c)
	case *syntax.UnaryArithm:
		a.arith(x.X, c)
	case *syntax.ParenArithm:
		a.arith(x.X, c)
	case *syntax.Word:
		a.arithWord(x, c)
	default:
		a.failf(arithRefusal, "an expression the gate does not model")
	}
}

// arithName is the variable an arithmetic assignment assigns, if plain.
func arithName(e syntax.ArithmExpr) (string, bool) {
	w, ok := e.(*syntax.Word)
	if !ok {
		return "", false
	}
	l, ok := staticWord(w)
	if !ok || !validName(l.s) {
		return "", false
	}
	return l.s, true
}

// arithWord checks one operand of an arithmetic expression.
func (a *analyzer) arithWord(w *syntax.Word, c ctx) {
	if l, ok := staticWord(w); ok {
		switch {
		case isArithNumber(l.s), l.s == "@", l.s == "*":
		case validName(l.s) && (a.lineNumber(l.s) || numericParams[l.s]):
		default:
			a.failf(arithRefusal, shorten(l.s))
		}
		return
	}
	if len(w.Parts) == 1 {
		switch p := w.Parts[0].(type) {
		case *syntax.ParamExp:
			if a.numericParam(p) {
				return
			}
		case *syntax.ArithmExp:
			return // a number; its own expression is checked where it is walked
		}
	}
	a.failf(arithRefusal, wordText(w))
}

// numericParam reports a parameter expansion that is a number: $i for a
// variable set to a number on this line, $#, $?, ${#x}.
func (a *analyzer) numericParam(pe *syntax.ParamExp) bool {
	if pe.Param == nil {
		return false
	}
	if pe.Length && pe.Index == nil && pe.Exp == nil && pe.Repl == nil && pe.Slice == nil {
		return true
	}
	return simpleParam(pe) && (a.lineNumber(pe.Param.Value) || numericParams[pe.Param.Value])
}

// paramExp checks a parameter expansion: indirect expansion evaluates the
// name it finds, and a subscript or slice is arithmetic.
func (a *analyzer) paramExp(pe *syntax.ParamExp, c ctx) {
	a.expansionAssign(pe)
	if pe.Excl && pe.Names == 0 && !isAllIndex(pe.Index) {
		a.failf("the gate cannot tell what this runs: ${!%s} expands the variable a run-time value names, and bash evaluates subscripts in it", paramName(pe))
		return
	}
	if pe.Index != nil && !isAllIndex(pe.Index) {
		if pe.Param != nil && a.assoc[pe.Param.Value] {
			return // an associative array's key is a string, not arithmetic
		}
		a.arith(pe.Index, c)
	}
	if pe.Slice != nil {
		a.arith(pe.Slice.Offset, c)
		a.arith(pe.Slice.Length, c)
	}
}

func paramName(pe *syntax.ParamExp) string {
	if pe.Param == nil {
		return "?"
	}
	return pe.Param.Value
}

// isAllIndex reports the [@] and [*] subscripts.
func isAllIndex(e syntax.ArithmExpr) bool {
	w, ok := e.(*syntax.Word)
	if !ok {
		return false
	}
	l, ok := staticWord(w)
	return ok && (l.s == "@" || l.s == "*")
}

// testExpr checks [[ … ]]: the operands of -eq, -ne, -lt, -le, -gt and -ge
// are arithmetic, and -v evaluates the subscript of the name it is given.
func (a *analyzer) testExpr(e syntax.TestExpr, c ctx) {
	if a.err != nil || isNilNode(e) {
		return
	}
	switch x := e.(type) {
	case *syntax.BinaryTest:
		if arithTestOps[x.Op] {
			a.testArith(x.X, c)
			a.testArith(x.Y, c)
			return
		}
		a.testExpr(x.X, c)
		a.testExpr(x.Y, c)
	case *syntax.UnaryTest:
		if x.Op == syntax.TsVarSet || x.Op == syntax.TsRefVar {
			if w, ok := x.X.(*syntax.Word); ok {
				a.nameWord("[[ -v ]]", w)
			}
			return
		}
		a.testExpr(x.X, c)
	case *syntax.ParenTest:
		a.testExpr(x.X, c)
	}
}

// testArith checks an arithmetic operand of [[ … ]].
func (a *analyzer) testArith(e syntax.TestExpr, c ctx) {
	w, ok := e.(*syntax.Word)
	if !ok {
		a.failf(arithRefusal, "a test expression")
		return
	}
	a.arithWord(w, c)
}
