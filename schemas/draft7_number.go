package schemas

import (
	"encoding/json"
	"math"
	"math/big"
	"strconv"
)

// Numbers are compared exactly. A JSON number keeps its literal text
// (json.Number), so 9007199254740993 is never rounded to ...992 on its way
// to `maximum`. Most numbers leasedeck meets are small integers, which take
// an int64 fast path; everything else becomes a decimal: significant digits
// and a power of ten, compared digit by digit without allocating.

// decimal is sign × digits × 10^exp, digits having no leading or trailing
// zeros; zero has no digits and is never negative.
type decimal struct {
	neg    bool
	digits []byte
	exp    int64
}

// expClamp bounds a literal's exponent. A value beyond it is so far from
// any limit a schema can name that clamping changes no comparison and no
// integer test, and it keeps the adjusted exponent clear of overflow.
const expClamp = 1 << 40

// parseDecimal reads a JSON number literal. buf is scratch space for the
// digits, so that a decimal built on the stack does not allocate.
func parseDecimal(s string, buf []byte) (decimal, bool) {
	var d decimal
	i := 0
	if i < len(s) && s[i] == '-' {
		d.neg = true
		i++
	}
	digits := buf[:0]
	intStart := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == intStart || (s[intStart] == '0' && i-intStart > 1) {
		return decimal{}, false
	}
	digits = append(digits, s[intStart:i]...)
	var frac int64
	if i < len(s) && s[i] == '.' {
		i++
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == start {
			return decimal{}, false
		}
		digits = append(digits, s[start:i]...)
		frac = int64(i - start)
	}
	e, ok := parseExponent(s[i:])
	if !ok {
		return decimal{}, false
	}
	// Strip leading zeros, then move trailing zeros into the exponent.
	lead := 0
	for lead < len(digits) && digits[lead] == '0' {
		lead++
	}
	digits = digits[lead:]
	trail := len(digits)
	for trail > 0 && digits[trail-1] == '0' {
		trail--
	}
	e += int64(len(digits)-trail) - frac
	digits = digits[:trail]
	if len(digits) == 0 {
		return decimal{}, true
	}
	d.digits = digits
	d.exp = max(min(e, expClamp), -expClamp)
	return d, true
}

// parseExponent reads what follows a number's digits: nothing, or an
// exponent, which is all that may remain of the literal. Its magnitude
// stops growing at expClamp, so no literal can overflow it.
func parseExponent(s string) (int64, bool) {
	if len(s) == 0 {
		return 0, true
	}
	if s[0] != 'e' && s[0] != 'E' {
		return 0, false
	}
	i := 1
	eneg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		eneg = s[i] == '-'
		i++
	}
	start := i
	var e int64
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		if e < expClamp {
			e = e*10 + int64(s[i]-'0')
		}
		i++
	}
	if i == start || i != len(s) {
		return 0, false
	}
	if eneg {
		e = -e
	}
	return e, true
}

func (d decimal) isZero() bool { return len(d.digits) == 0 }

// isInt: no fractional part, as draft-07 defines "integer" (1.0 is one).
func (d decimal) isInt() bool { return d.exp >= 0 }

// cmpDecimal returns -1, 0 or +1 as a < b, a == b, a > b.
func cmpDecimal(a, b decimal) int {
	switch {
	case a.isZero() && b.isZero():
		return 0
	case a.isZero():
		if b.neg {
			return 1
		}
		return -1
	case b.isZero():
		if a.neg {
			return -1
		}
		return 1
	case a.neg != b.neg:
		if a.neg {
			return -1
		}
		return 1
	}
	c := cmpMagnitude(a, b)
	if a.neg {
		return -c
	}
	return c
}

func cmpMagnitude(a, b decimal) int {
	// The position of the most significant digit decides first.
	aa, ba := int64(len(a.digits))+a.exp, int64(len(b.digits))+b.exp
	if aa != ba {
		if aa < ba {
			return -1
		}
		return 1
	}
	n := min(len(a.digits), len(b.digits))
	for i := 0; i < n; i++ {
		if a.digits[i] != b.digits[i] {
			if a.digits[i] < b.digits[i] {
				return -1
			}
			return 1
		}
	}
	// Equal prefixes: the one with more (non-zero) digits is larger.
	switch {
	case len(a.digits) < len(b.digits):
		return -1
	case len(a.digits) > len(b.digits):
		return 1
	}
	return 0
}

// number is an instance number: an int64 when that is exact, otherwise a
// decimal whose digits live in scratch space the caller provides.
type number struct {
	isInt64 bool
	i       int64
	d       decimal
}

// numberOf reads v as a JSON number, using buf (at least 32 bytes of
// capacity) for digits. ok is false for a value that is not a number;
// valid is false for a json.Number that is not a JSON number literal, or a
// float JSON cannot carry (NaN, ±Inf).
func numberOf(v any, buf []byte) (n number, ok, valid bool) {
	switch x := v.(type) {
	case json.Number:
		n, valid = literalNumber(string(x), buf)
		return n, true, valid
	case float64:
		n, valid = floatNumber(x, buf)
		return n, true, valid
	case float32:
		n, valid = floatNumber(float64(x), buf)
		return n, true, valid
	case int:
		return intNumber(int64(x)), true, true
	case int64:
		return intNumber(x), true, true
	case int32:
		return intNumber(int64(x)), true, true
	case int16:
		return intNumber(int64(x)), true, true
	case int8:
		return intNumber(int64(x)), true, true
	case uint:
		return uintNumber(uint64(x), buf), true, true
	case uint64:
		return uintNumber(x, buf), true, true
	case uint32:
		return intNumber(int64(x)), true, true
	case uint16:
		return intNumber(int64(x)), true, true
	case uint8:
		return intNumber(int64(x)), true, true
	}
	return number{}, false, false
}

func intNumber(i int64) number { return number{isInt64: true, i: i} }

func uintNumber(u uint64, buf []byte) number {
	if u <= math.MaxInt64 {
		return intNumber(int64(u))
	}
	return number{d: uintDecimal(false, u, buf)}
}

func literalNumber(s string, buf []byte) (number, bool) {
	// Fast path: a plain integer of at most 18 digits fits an int64.
	if len(s) > 0 && len(s) <= 19 {
		i, neg := 0, false
		if s[0] == '-' {
			neg, i = true, 1
		}
		if digits := len(s) - i; digits > 0 && digits <= 18 && (s[i] != '0' || digits == 1) {
			var v int64
			j := i
			for ; j < len(s) && s[j] >= '0' && s[j] <= '9'; j++ {
				v = v*10 + int64(s[j]-'0')
			}
			if j == len(s) {
				if neg {
					v = -v
				}
				return intNumber(v), true
			}
		}
	}
	d, ok := parseDecimal(s, buf)
	return number{d: d}, ok
}

func floatNumber(f float64, buf []byte) (number, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return number{}, false
	}
	if f == math.Trunc(f) && math.Abs(f) <= 1<<53 {
		return intNumber(int64(f)), true
	}
	// A float a Go caller built means the number its JSON text says: the
	// shortest representation that reads back as the same float.
	var tmp [32]byte
	return literalNumber(string(strconv.AppendFloat(tmp[:0], f, 'e', -1, 64)), buf)
}

// uintDecimal writes u's digits into buf.
func uintDecimal(neg bool, u uint64, buf []byte) decimal {
	if u == 0 {
		return decimal{}
	}
	var tmp [20]byte
	i := len(tmp)
	exp := int64(0)
	for u%10 == 0 {
		u /= 10
		exp++
	}
	for u > 0 {
		i--
		tmp[i] = byte('0' + u%10)
		u /= 10
	}
	return decimal{neg: neg, digits: append(buf[:0], tmp[i:]...), exp: exp}
}

// dec returns n as a decimal, writing an int64's digits into buf.
func (n *number) dec(buf []byte) decimal {
	if !n.isInt64 {
		return n.d
	}
	if n.i < 0 {
		return uintDecimal(true, uint64(-(n.i+1))+1, buf)
	}
	return uintDecimal(false, uint64(n.i), buf)
}

func (n *number) isInt() bool { return n.isInt64 || n.d.isInt() }

// limit is a number a schema names: minimum, maximum, multipleOf and so on.
type limit struct {
	text    string // as written, for messages
	isInt64 bool
	i       int64
	d       decimal
}

func newLimit(v any) (*limit, bool) {
	num, ok := v.(json.Number)
	if !ok {
		return nil, false
	}
	l := &limit{text: string(num)}
	n, ok := literalNumber(string(num), make([]byte, 0, len(num)))
	if !ok {
		return nil, false
	}
	if n.isInt64 {
		l.isInt64, l.i = true, n.i
	}
	l.d = n.dec(make([]byte, 0, 20))
	return l, true
}

// cmpNumber compares an instance number with a limit.
func cmpNumber(n *number, l *limit) int {
	if n.isInt64 && l.isInt64 {
		switch {
		case n.i < l.i:
			return -1
		case n.i > l.i:
			return 1
		}
		return 0
	}
	var buf [20]byte
	return cmpDecimal(n.dec(buf[:0]), l.d)
}

// isMultipleOf reports whether n / l is an integer (l > 0, checked at
// compile time). Powers of ten are kept symbolic: 10^k with k beyond what
// the divisor's factors of 2 and 5 need cannot change the answer.
func isMultipleOf(n *number, l *limit) bool {
	var buf [20]byte
	a := n.dec(buf[:0])
	if a.isZero() {
		return true
	}
	ai, ok := new(big.Int).SetString(string(a.digits), 10)
	if !ok {
		return false
	}
	bi, ok := new(big.Int).SetString(string(l.d.digits), 10)
	if !ok {
		return false
	}
	k := a.exp - l.d.exp
	ten := big.NewInt(10)
	if k >= 0 {
		// bi's factors of 2 and 5 number at most 4 per decimal digit.
		k = min(k, int64(4*len(l.d.digits)+1))
		ai.Mul(ai, new(big.Int).Exp(ten, big.NewInt(k), nil))
	} else {
		if -k > int64(len(a.digits)) {
			return false // |a| < |b| × 10^-k: a non-zero quotient below one
		}
		bi.Mul(bi, new(big.Int).Exp(ten, big.NewInt(-k), nil))
	}
	return new(big.Int).Rem(ai, bi).Sign() == 0
}
