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
	if !isDecimal(s) {
		if v, err := strconv.ParseFloat(s, 64); err == nil && (math.IsInf(v, 0) || math.IsNaN(v)) && !strings.ContainsAny(s, "_xX") {
			return v, nil // inf, nan: the callers say "not finite"
		}
		return 0, &strconv.NumError{Func: "ParseFloat", Num: s, Err: strconv.ErrSyntax}
	}
	return strconv.ParseFloat(s, 64)
}
