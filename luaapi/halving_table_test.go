package luaapi

import (
	"strings"
	"testing"
)

// A halving sweep of an algorithm that does not declare its state says
// once, on the standard error, that its survivors are recomputed; its
// sweep_table marks the configurations that stopped early, explains the
// marks, and wraps at the width given (4 configurations: 2 continue after
// the rung of 1 round, 1 after the rung of 3).
func TestHalvingSweepTableAndRecomputedNote(t *testing.T) {
	out, err := script(t, problemSrc+`local sw = fedlab.sweep{
  problem = problem, rounds = 9, local_steps = 1, eval_every = 1,
  metrics = { "test_objective" }, algorithms = { fedlab.algo.test_gd{ label = "gd" } },
  grid = { eta_c = { 0.01, 0.03 }, eta_s = { 0.5, 1 } },
  select = { metric = "test_objective", mode = "min" }, halving = { eta = 3, first = 1 } }
fedlab.sweep_table(sw, { width = 20 })
`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	edges := "edge of the grid: eta_c = 0.03 is the largest value of its grid {0.01, 0.03}: the best value may lie beyond the grid; extend it to be sure\n" +
		"edge of the grid: eta_s = 1 is the largest value of its grid {0.5, 1}: the best value may lie beyond the grid; extend it to be sure\n"
	want := "fedlab: script.lua:3 fedlab.sweep: halving: gd does not declare its state (core.Stateful): its survivors are recomputed from round 0 at each rung\n" +
		strings.ReplaceAll(edges, "edge of the grid", "fedlab: script.lua:3 fedlab.sweep: gd: edge of the grid") +
		`gd: min test_objective (at the last round)
eta_c \ eta_s      0.5
─────────────  ───────
0.01           0.5632¹
0.03           0.5326²

eta_c \ eta_s        1
─────────────  ───────
0.01           0.5593¹
0.03           *0.3917
¹ stopped at rung 1 of 3 (1 round), ² at rung 2 of 3 (3 rounds); unmarked: ran the last rung (9 rounds)
best gd: eta_c=0.03 eta_s=1 (test_objective 0.3917)
` + edges
	if out != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
}
