package runfile

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fedlab/fedlab/schedules/sched"
)

// maxListShown bounds the elements of a list parameter ParamText spells out.
const maxListShown = 4

// ParamText renders a resolved parameter value shortly: numbers in their
// shortest exact form, constant schedules as numbers, long lists (a Lua
// function tabulated per round) as their first elements and length:
// "[0.1 0.05 0.033 0.025 … (1000 values)]".
func ParamText(v any) string {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case sched.Constant:
		return strconv.FormatFloat(float64(x), 'g', -1, 64)
	case sched.Table:
		return listText(len(x), func(i int) string { return strconv.FormatFloat(x[i], 'g', 4, 64) })
	case []float64:
		return listText(len(x), func(i int) string { return strconv.FormatFloat(x[i], 'g', 4, 64) })
	case []any:
		return listText(len(x), func(i int) string {
			if f, ok := x[i].(float64); ok {
				return strconv.FormatFloat(f, 'g', 4, 64)
			}
			return fmt.Sprint(x[i])
		})
	}
	return fmt.Sprint(v)
}

// listText renders n elements, the first maxListShown of them spelled out.
func listText(n int, elem func(i int) string) string {
	parts := make([]string, 0, maxListShown+1)
	for i := range min(n, maxListShown) {
		parts = append(parts, elem(i))
	}
	if n > maxListShown {
		parts = append(parts, fmt.Sprintf("… (%d values)", n))
	}
	return "[" + strings.Join(parts, " ") + "]"
}
