package luaapi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const presentRuns = problemSrc + `local runs = fedlab.compare{ problem = problem, rounds = 10, local_steps = 1, seeds = { 1, 2 },
  algorithms = { fedlab.algo.test_gd{ eta_c = 0.1 }, fedlab.algo.test_gd{ eta_c = 0.05, label = "slow" } },
  eval_every = 5, metrics = { "test_objective" } }
`

func TestTableFileAndPlotOptions(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	_, err := script(t, presentRuns+`
print(fedlab.table(runs, { file = "t.tex", bold = true }))
print(fedlab.table(runs, { file = "t.txt", format = "md" }))
local files = fedlab.plot(runs, { metrics = { "test_objective", "test_objective" }, x = "samples", log = false,
  xlim = { 0, 100 }, skip_round0 = true, width = 12, height = 7, font_size = 8, formats = { "pdf" }, ylabel = "Φ" })
print(files[1])
`, Options{Out: out})
	if err != nil {
		t.Fatal(err)
	}
	tex, _ := os.ReadFile(filepath.Join(out, "t.tex"))
	md, _ := os.ReadFile(filepath.Join(out, "t.txt"))
	if !strings.Contains(string(tex), `\toprule`) || !strings.HasPrefix(string(md), "| label ") {
		t.Errorf("table files:\n%s\n%s", tex, md)
	}
	if _, err := os.Stat(filepath.Join(out, "test_objective_test_objective_vs_samples.pdf")); err != nil {
		t.Error(err)
	}
	mustFail(t, presentRuns+`fedlab.plot(runs, { x = "round" })`, "script.lua:6: fedlab.plot: missing key \"metric\"")
	mustFail(t, presentRuns+`fedlab.plot(runs, { metric = "test_objective", ylim = { 1 } })`, "script.lua:6: fedlab.plot: ylim")
	mustFail(t, presentRuns+`fedlab.table(runs, { format = "html" })`, "script.lua:6: fedlab.table: key \"format\"")
}

func TestArgsAreTyped(t *testing.T) {
	out, err := script(t, `print(type(fedlab.args.n), fedlab.args.n + 1, type(fedlab.args.s), fedlab.args.b, fedlab.args.missing)`,
		Options{Args: map[string]any{"n": 2.5, "s": "x", "b": true}})
	if err != nil {
		t.Fatal(err)
	}
	if out != "number\t3.5\tstring\ttrue\tnil\n" {
		t.Errorf("output %q", out)
	}
	for in, want := range map[string]any{"n=3": 3.0, "x=1e-3": 1e-3, "s=abc": "abc", "q='1'": "1", "b=false": false, "e=": ""} {
		k, v, err := ParseSet(in)
		if err != nil || v != want || k != strings.Split(in, "=")[0] {
			t.Errorf("ParseSet(%q) = %q, %v, %v; want %v", in, k, v, err, want)
		}
	}
	for _, bad := range []string{"novalue", "1x=2", "a.b=3", "=4"} {
		if _, _, err := ParseSet(bad); err == nil {
			t.Errorf("ParseSet(%q) accepted", bad)
		}
	}
}

func TestSweepTableExport(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	_, err := script(t, problemSrc+`local sw = fedlab.sweep{ problem = problem, rounds = 4, local_steps = 1, metrics = { "test_objective" },
  algorithms = { fedlab.algo.test_gd{} }, grid = { eta_c = { 0.05, 0.1 } }, select = { metric = "test_objective", mode = "min" } }
print(fedlab.sweep_table(sw, { file = "grid.tex" }))
`, Options{Out: out})
	if err != nil {
		t.Fatal(err)
	}
	tex, _ := os.ReadFile(filepath.Join(out, "grid.tex"))
	for _, want := range []string{`\toprule`, `\mathbf{`, `\caption{test\_gd: min test\_objective (at the last round) (best test\_gd: eta\_c=`} {
		if !strings.Contains(string(tex), want) {
			t.Errorf("grid.tex lacks %q:\n%s", want, tex)
		}
	}
}

// fedlab.plot's hline: one table or a list of them; each label is a legend
// entry (the SVG holds it); mistakes name the line and the key.
func TestPlotReferenceLines(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	_, err := script(t, presentRuns+`
fedlab.plot(runs, { metric = "test_objective", file = "one", formats = { "svg" },
  hline = { value = 0.5, label = "optimum <Φ*>" } })
fedlab.plot(runs, { metric = "test_objective", file = "two", formats = { "svg" },
  hline = { { value = 0.25, label = "lower", metric = "test_objective" }, { value = 2, label = "upper" } } })
`, Options{Out: out})
	if err != nil {
		t.Fatal(err)
	}
	one, _ := os.ReadFile(filepath.Join(out, "one.svg"))
	two, _ := os.ReadFile(filepath.Join(out, "two.svg"))
	if !strings.Contains(string(one), "optimum &lt;Φ*&gt;") {
		t.Errorf("one.svg lacks the escaped legend entry of the line")
	}
	if !strings.Contains(string(two), "lower") || !strings.Contains(string(two), "upper") {
		t.Errorf("two.svg lacks the legend entries of the lines")
	}
	mustFail(t, presentRuns+`fedlab.plot(runs, { metric = "test_objective", hline = { value = 1, metric = "f1" } })`,
		"script.lua:6: fedlab.plot: hline 1: metric \"f1\" is not drawn; the panels: test_objective")
	mustFail(t, presentRuns+`fedlab.plot(runs, { metric = "test_objective", hline = 3 })`,
		"script.lua:6: fedlab.plot: key \"hline\": expected a table")
	mustFail(t, presentRuns+`fedlab.plot(runs, { metric = "test_objective", hline = { { label = "x" }, { value = "y" } } })`,
		"script.lua:6: ", `fedlab.plot hline 1: missing required key "value"`, `fedlab.plot hline 2: key "value": expected a number`)
	mustFail(t, presentRuns+`fedlab.plot(runs, { metric = "test_objective", log = true, hline = { value = -1 } })`,
		"script.lua:6: fedlab.plot: hline 1: value -1 cannot be drawn on the log y axis of test_objective")
}
