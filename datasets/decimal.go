package datasets

import (
	"math"
	"regexp"
	"strconv"
	"strings"
)

// decimalText is the grammar of numbers in data files: an optional sign,
// digits with an optional fraction (or a fraction alone), an optional
// exponent, as C's strtod and every svmlight/CSV writer produce. Go's
// literal extensions that strconv.ParseFloat also takes (1_000, 0x1p-2,
// Inf, NaN) are not numbers in a data file.
var decimalText = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// parseDecimal reads a number of a data file (see decimalText).
func parseDecimal(s string) (float64, error) {
	if !decimalText.MatchString(s) {
		if v, err := strconv.ParseFloat(s, 64); err == nil && (math.IsInf(v, 0) || math.IsNaN(v)) && !strings.ContainsAny(s, "_xX") {
			return v, nil // inf, nan: the callers say "not finite"
		}
		return 0, &strconv.NumError{Func: "ParseFloat", Num: s, Err: strconv.ErrSyntax}
	}
	return strconv.ParseFloat(s, 64)
}
