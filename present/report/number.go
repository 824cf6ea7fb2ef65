package report

import (
	"math"
	"strconv"
	"strings"
)

// FormatValue renders one number for a table: integers as integers
// ("6178000", never "6.178e+06"), other numbers with four significant
// digits in fixed notation where that stays short ("0.6703", "12346",
// trailing zeros dropped: "0.5"),
// and in exponent notation below 10⁻⁴ or from 10¹⁵ ("1.234e-07").
func FormatValue(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return strconv.FormatFloat(v, 'g', -1, 64)
	case isInteger(v):
		return strconv.FormatFloat(v, 'f', 0, 64)
	case math.Abs(v) < 1e-4 || math.Abs(v) >= 1e15:
		return strconv.FormatFloat(v, 'e', 3, 64)
	}
	s := strconv.FormatFloat(v, 'f', max(0, 3-exponent(v)), 64)
	if strings.Contains(s, ".") {
		s = strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// FormatMeanStd renders a mean and its standard deviation: the deviation
// rounded to two significant digits and the mean to the same decimal
// place ("0.670 ± 0.062", "6178000 ± 12000"). A zero (or non-finite)
// deviation renders the mean alone, as FormatValue does. Far from 1
// (below 10⁻⁴ or from 10¹⁵), both are written with exponents and the
// mean keeps the digits down to the deviation's second significant
// digit ("1.00e-09 ± 3.0e-10").
func FormatMeanStd(mean, std float64) string {
	if std == 0 || math.IsNaN(std) || math.IsInf(std, 0) || math.IsNaN(mean) || math.IsInf(mean, 0) {
		return FormatValue(mean)
	}
	e := exponent(roundSignificant(std, 2))
	big := max(math.Abs(mean), std)
	if big < 1e-4 || big >= 1e15 {
		digits := max(exponent(mean)-e, 0) + 1 // significant digits of the mean after the first
		return strconv.FormatFloat(mean, 'e', digits, 64) + " ± " + strconv.FormatFloat(std, 'e', 1, 64)
	}
	decimals := 1 - e // the decimal place of the deviation's second significant digit
	if decimals >= 0 {
		return strconv.FormatFloat(mean, 'f', decimals, 64) + " ± " + strconv.FormatFloat(std, 'f', decimals, 64)
	}
	unit := math.Pow10(-decimals)
	return strconv.FormatFloat(math.Round(mean/unit)*unit, 'f', 0, 64) + " ± " +
		strconv.FormatFloat(math.Round(std/unit)*unit, 'f', 0, 64)
}

// isInteger reports whether v is a whole number small enough to print exactly.
func isInteger(v float64) bool { return v == math.Trunc(v) && math.Abs(v) < 1<<53 }

// exponent is the decimal exponent of v's first significant digit
// (0 for 0).
func exponent(v float64) int {
	if v == 0 {
		return 0
	}
	s := strconv.FormatFloat(math.Abs(v), 'e', -1, 64) // exact, unlike floor(log10(v))
	_, exp, _ := strings.Cut(s, "e")
	e, _ := strconv.Atoi(exp)
	return e
}

// roundSignificant rounds v to n significant digits.
func roundSignificant(v float64, n int) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'e', n-1, 64), 64)
	return r
}
