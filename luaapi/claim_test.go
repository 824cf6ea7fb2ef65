package luaapi

import (
	"strings"
	"testing"
)

// A malformed fedlab.claim is refused at its line with what to give; a
// check's Lua error makes the claim not evaluated, naming the error
// without a traceback.
func TestClaimMistakes(t *testing.T) {
	const runs = problemSrc + `local runs = fedlab.compare{ problem = problem, algorithms = { fedlab.algo.test_gd{ label = "A" } }, rounds = 2, local_steps = 1, metrics = { 'test_objective' } }
`
	line := "script.lua:4: "
	for _, c := range []struct{ claim, want string }{
		{`fedlab.claim{ text = "x", runs = runs, label = "A", metric = "test_objective", at = 1 }`,
			"fedlab.claim: give exactly one of at_least/at_most (threshold), slope_at_least/slope_at_most (rate), order, equals or check; got 0"},
		{`fedlab.claim{ text = "x", runs = runs, label = "A", metric = "test_objective", at = 1, at_least = 0, check = function() return true, "" end }`,
			"fedlab.claim: give exactly one of at_least/at_most (threshold), slope_at_least/slope_at_most (rate), order, equals or check; got 2"},
		{`fedlab.claim{ text = "x", runs = runs, metric = "test_objective", at = 1, order = { "A", "B" } }`,
			`fedlab.claim: key "order" needs key "direction": "decreasing" (the metric is larger for the labels listed first) or "increasing"`},
		{`fedlab.claim{ text = "x", runs = runs, label = "A", metric = "test_objective", at = 1, equals = 2 }`,
			`fedlab.claim: key "equals" needs key "tol", the tolerance`},
		{`fedlab.claim{ text = "x", runs = runs, label = "A", metric = "test_objective", at = 1, from = 0, at_least = 0 }`,
			"fedlab.claim: give one of at, from and throughout"},
		{`fedlab.claim{ text = "x", runs = runs, label = "A", metric = "test_objective", at_least = 0 }`,
			"fedlab.claim: a threshold claim needs its rounds: at, from or throughout"},
		{`fedlab.claim{ text = "x", runs = runs, label = "A", metric = "test_objective", at = 1, at_least = 0, seeds = "all" }`,
			`fedlab.claim: key "seeds": "all" is not one of every, mean, separated`},
		{`fedlab.claim{ text = "x", runs = 3, check = function() return true, "" end }`,
			`fedlab.claim: key "runs": expected run results (from fedlab.run or fedlab.compare), got the number 3`},
	} {
		mustFail(t, runs+c.claim+"\n", line, c.want)
	}
	out, err := script(t, runs+`local v, m = fedlab.claim{ text = "x", runs = runs, check = function(rs) return rs.nothing.there, "" end }
print(v .. ": " .. m)
`, Options{})
	if want := "not evaluated: the check raised an error: script.lua:4: attempt to index a non-table object(nil) with key 'there'\n"; err != nil || !strings.Contains(out, want) {
		t.Errorf("a check's error: %v\n%s\nwant %q", err, out, want)
	}
}
