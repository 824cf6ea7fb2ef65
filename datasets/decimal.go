package datasets

import (
	"math"
	"strconv"
	"strings"
)

// isDecimal reports whether s is a number of a data file: an optional
// sign, digits with an optional fraction (or a fraction alone), an
// optional exponent — the regular expression
// ^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$ — as C's strtod and
// every svmlight/CSV writer produce. Go's literal extensions that
// strconv.ParseFloat also takes (1_000, 0x1p-2, Inf, NaN) are not numbers
// in a data file. (A byte scan: the regular expression cost more than the
// parse; TestIsDecimalIsTheGrammar checks the two agree.)
func isDecimal(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := i
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		}
		if i == exp {
			return false
		}
	}
	return i == len(s)
}

// parseDecimal reads a number of a data file (see isDecimal).
func parseDecimal(s string) (float64, error) {
	if v, ok := exactDecimal(s); ok {
		return v, nil
	}
	if !isDecimal(s) {
		if v, err := strconv.ParseFloat(s, 64); err == nil && (math.IsInf(v, 0) || math.IsNaN(v)) && !strings.ContainsAny(s, "_xX") {
			return v, nil // inf, nan: the callers say "not finite"
		}
		return 0, &strconv.NumError{Func: "ParseFloat", Num: s, Err: strconv.ErrSyntax}
	}
	return strconv.ParseFloat(s, 64)
}

// pow10 are the powers of ten that float64 holds exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// exactDecimal reads s in one scan when it is a number of a data file
// (see isDecimal) whose value is m·10^e with at most 19 digits, m ≤ 2⁵³
// and |e| ≤ 22, as almost every number a data file holds is ("0.123456",
// "-1", "3.5e-7"): m and 10^|e| are then exact float64s, and one IEEE
// multiplication or division rounds their exact product or quotient
// correctly, so the value is strconv.ParseFloat's bit for bit (its own
// exact path; TestExactDecimalIsParseFloat). ok is false for every other
// string, which the full parse reads.
func exactDecimal(s string) (v float64, ok bool) {
	i, neg := 0, false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	var m uint64
	digits, frac := 0, 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		if digits < 19 {
			m = m*10 + uint64(s[i]-'0')
		}
		digits++
	}
	if i < len(s) && s[i] == '.' {
		for i++; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			if digits < 19 {
				m = m*10 + uint64(s[i]-'0')
			}
			digits++
			frac++
		}
	}
	if digits == 0 || digits > 19 {
		return 0, false
	}
	e := -frac
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		x, start := 0, i
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			if x < 1e6 {
				x = x*10 + int(s[i]-'0')
			}
		}
		if i == start {
			return 0, false
		}
		if eneg {
			x = -x
		}
		e += x
	}
	if i != len(s) || m > 1<<53 {
		return 0, false
	}
	v = float64(m)
	switch {
	case m == 0:
	case e < -22 || e > 22:
		return 0, false
	case e < 0:
		v /= pow10[-e]
	default:
		v *= pow10[e]
	}
	if neg {
		v = -v
	}
	return v, true
}
