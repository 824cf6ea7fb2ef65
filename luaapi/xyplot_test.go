package luaapi

import (
	"os"
	"path/filepath"
	"testing"
)

func TestXYPlotWritesChartsAndChecksSeries(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	src := `local files = fedlab.xyplot{ file = "rounds", title = "t", xlabel = "log2 d", ylabel = "rounds",
  series = { { label = "a", x = { 10, 12, 14 }, y = { 5, 0/0, 9 } }, { label = "b", x = { 10 }, y = { 3 } } } }
assert(#files == 2, "two files")`
	if msg, err := script(t, src, Options{Out: out}); err != nil {
		t.Fatalf("%v\n%s", err, msg)
	}
	for _, f := range []string{"rounds.png", "rounds.svg"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	mustFail(t, `fedlab.xyplot{ file = "x", series = { { label = "a", x = { 1, 2 }, y = { 1 } } } }`,
		"script.lua:1: ", "fedlab.xyplot series 1: 2 x values but 1 y values")
	mustFail(t, `fedlab.xyplot{ file = "x", series = { { label = "a", x = { 1 }, y = { 1/0 } } } }`,
		"script.lua:1: ", "expected a finite number or 0/0")
}
