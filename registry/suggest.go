package registry

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Suggest returns the name among valid closest to name, or "" when none is
// close: the "did you mean" of every name a user types (components,
// metrics, keys, --set keys, flags, commands). The distance is the edit
// distance ignoring case, with a transposition of two neighbouring letters
// counting as one edit; a name is close within one edit when name has at
// most three characters and within two otherwise. Ties go to the first
// name in valid.
func Suggest(name string, valid []string) string {
	limit := 2
	if utf8.RuneCountInString(name) <= 3 {
		limit = 1
	}
	best, bestD := "", limit+1
	for _, v := range valid {
		if v == name {
			continue
		}
		if d := editDistance(strings.ToLower(name), strings.ToLower(v)); d < bestD {
			best, bestD = v, d
		}
	}
	return best
}

// DidYouMean is ` (did you mean "x"?)` for x = Suggest(name, valid), or ""
// when no valid name is close: messages append it to the name they refuse.
func DidYouMean(name string, valid []string) string {
	if near := Suggest(name, valid); near != "" {
		return fmt.Sprintf(" (did you mean %q?)", near)
	}
	return ""
}

// editDistance is the optimal string alignment distance between a and b
// (insertions, deletions, substitutions and transpositions of neighbouring
// runes each count one).
func editDistance(a, b string) int {
	r, s := []rune(a), []rune(b)
	// d[i][j] is the distance between r[:i] and s[:j].
	d := make([][]int, len(r)+1)
	for i := range d {
		d[i] = make([]int, len(s)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(r); i++ {
		for j := 1; j <= len(s); j++ {
			cost := 1
			if r[i-1] == s[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && r[i-1] == s[j-2] && r[i-2] == s[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(r)][len(s)]
}
