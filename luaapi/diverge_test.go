package luaapi

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A run whose loss grows past the divergence threshold while staying
// finite is diverged at that round in results, tables, CSV files and
// sweep selection, exactly like a NaN/Inf run; a run under the threshold
// is untouched. test_gd at eta_c = 5 on this problem multiplies its loss by
// ≈ 15 per round from F(w₀) = 0.567 (scale max(0.567, 1) = 1): 2.01e5 at
// round 5, 3.08e6 at round 6, 7.26e8 at round 8, 1.11e10 at round 9.
func TestFiniteBlowUpIsDivergedEverywhere(t *testing.T) {
	dir := t.TempDir()
	out, err := script(t, problemSrc+`local common = { problem = problem, rounds = 30, local_steps = 1, eval_every = 1, metrics = { "test_objective" } }
local function with(t) local c = {} for k, v in pairs(common) do c[k] = v end for k, v in pairs(t) do c[k] = v end return c end
local runs = fedlab.compare(with{ algorithms = { fedlab.algo.test_gd{ eta_c = 1, label = "calm" }, fedlab.algo.test_gd{ eta_c = 5, label = "wild" } } })
assert(runs[1].status == "done" and #runs[1].records == 31, runs[1].status)
assert(runs[2].status == "diverged" and runs[2].diverged_at == 6, runs[2].status .. " " .. tostring(runs[2].diverged_at))
assert(#runs[2].records == 6 and runs[2].records[6].round == 5)
print(runs[2].error)
fedlab.table(runs, { rounds = { 5, 10 } })
fedlab.csv(runs, "runs.csv")
local late = fedlab.run(with{ algorithm = fedlab.algo.test_gd{ eta_c = 5 }, divergence = 1e9 })
print("late", late.status, late.diverged_at)
local off = fedlab.run(with{ algorithm = fedlab.algo.test_gd{ eta_c = 5 }, divergence = math.huge })
print("off", off.status, #off.records)
local sw = fedlab.sweep(with{ algorithms = { fedlab.algo.test_gd{} }, grid = { eta_c = { 1, 5 } },
  select = { metric = "test_objective", mode = "min" } })
fedlab.sweep_table(sw)
print("best", sw.best[1].config.eta_c)
`, Options{Out: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"diverged at round 6: the training loss 3.08e+06 exceeds 1e+06 × 1 (divergence × max(|F(w₀)|, 1))",
		"diverged@6", "late\tdiverged\t9\n", "off\tdone\t31\n", "best\t1\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	csv, err := os.ReadFile(filepath.Join(dir, "runs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(csv), ",diverged,"); n != 6 {
		t.Errorf("CSV has %d rows with status diverged, want 6:\n%s", n, csv)
	}
}

func TestDivergenceSettingIsValidated(t *testing.T) {
	for _, bad := range []string{"1", "0.5", "-3", "0/0"} {
		mustFail(t, problemSrc+`fedlab.run{ problem = problem, algorithm = fedlab.algo.test_gd{}, rounds = 1, local_steps = 1, divergence = `+bad+` }
`, "script.lua:3: ", `fedlab.run: key "divergence": expected a factor > 1 (or math.huge: only a NaN/Inf model diverges), got `)
	}
	mustFail(t, problemSrc+`fedlab.run{ problem = problem, algorithm = fedlab.algo.test_gd{}, rounds = 1, local_steps = 1, divergence = "big" }
`, "script.lua:3: ", `fedlab.run: key "divergence": expected a number, got`)
}

// fedlab.plot and fedlab.xyplot refuse sizes and texts beyond their
// documented ranges at the call, naming the key and the range.
func TestPlotSizesHaveRanges(t *testing.T) {
	run := problemSrc + `local r = fedlab.run{ problem = problem, algorithm = fedlab.algo.test_gd{}, rounds = 2, local_steps = 1, metrics = { "test_objective" } }
`
	for _, c := range []struct{ opt, want string }{
		{"width = 1e7", "fedlab.plot: width 1e+07 cm is outside 2–60 cm (0: the default, 16 cm)"},
		{"font_size = 1e6", "fedlab.plot: font size 1e+06 pt is outside 4–36 pt (0: the default, 10 pt)"},
		{"height = 0.5", "fedlab.plot: height 0.5 cm is outside 2–60 cm"},
		{`title = string.rep("t", 2^20)`, "fedlab.plot: title of 1048576 characters: at most 300 fit a figure"},
		{`xlabel = string.rep("x", 400)`, "fedlab.plot: xlabel of 400 characters: at most 300 fit a figure"},
	} {
		mustFail(t, run+"fedlab.plot(r, { metric = \"test_objective\", "+c.opt+" })\n", "script.lua:4: ", c.want)
	}
	mustFail(t, `fedlab.xyplot{ series = { { label = "a", x = { 1, 2 }, y = { 1, 2 } } }, file = "f", ylabel = string.rep("y", 301) }
`, "script.lua:1: ", "fedlab.xyplot: ylabel of 301 characters: at most 300 fit a figure")
	labelSize := 1 << 20
	if testing.Short() {
		labelSize = 4096 // still metres of legend: measuring 1 MiB of text takes a quarter of a second
	}
	mustFail(t, fmt.Sprintf(`fedlab.xyplot{ series = { { label = string.rep("l", %d), x = { 1, 2 }, y = { 1, 2 } } }, file = "f" }
`, labelSize), "script.lua:1: ", fmt.Sprintf("(%d characters) is too long; shorten the label", labelSize))
}
