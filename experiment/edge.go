package experiment

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Edge is a swept key whose selected value is the smallest or the largest
// of its grid: the best value may lie beyond the grid (the classic tuning
// mistake reviewers ask about).
type Edge struct {
	Key     string
	Value   float64
	Grid    []float64 // the key's values among the candidates, sorted
	Largest bool      // the largest value (else the smallest)
}

// String says it, e.g. "eta_s = 3 is the largest value of its grid {0.3, 1, 3}".
func (e Edge) String() string {
	side := "smallest"
	if e.Largest {
		side = "largest"
	}
	vals := make([]string, len(e.Grid))
	for i, v := range e.Grid {
		vals[i] = strconv.FormatFloat(v, 'g', 6, 64)
	}
	return fmt.Sprintf("%s = %s is the %s value of its grid {%s}", e.Key, strconv.FormatFloat(e.Value, 'g', 6, 64), side, strings.Join(vals, ", "))
}

// Edges lists, per swept numeric key with at least two values, whether the
// selected configuration sits at an end of that key's grid (the values
// the candidates with the same other settings take); none when nothing
// was selected.
func (s Selection) Edges() []Edge {
	if s.Best < 0 {
		return nil
	}
	best := s.Candidates[s.Best].Config
	var out []Edge
	for _, st := range best {
		v, ok := st.Value.(float64)
		if !ok {
			continue
		}
		var grid []float64
		for _, c := range s.Candidates {
			if x, ok := c.Config.Get(st.Key); ok && sameExcept(c.Config, best, st.Key) {
				if f, ok := x.(float64); ok && !slices.Contains(grid, f) {
					grid = append(grid, f)
				}
			}
		}
		if len(grid) < 2 {
			continue
		}
		slices.Sort(grid)
		if v == grid[0] || v == grid[len(grid)-1] {
			out = append(out, Edge{Key: st.Key, Value: v, Grid: grid, Largest: v == grid[len(grid)-1]})
		}
	}
	return out
}

// sameExcept reports whether a and b agree on every key but key.
func sameExcept(a, b Config, key string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, st := range a {
		if st.Key == key {
			continue
		}
		v, ok := b.Get(st.Key)
		if !ok || FormatValue(v) != FormatValue(st.Value) {
			return false
		}
	}
	return true
}
