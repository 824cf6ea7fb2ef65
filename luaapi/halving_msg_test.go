package luaapi

import (
	"testing"
	"time"
)

// TestHalvingMessagesNameWhatTheScriptWrote: a halving key the script
// got wrong is reported once, by its key and the value written (no second
// message about eta = 0 or first = 0, values the script never wrote); an
// eta so close to 1 that it would make more than 64 rungs is refused at
// once, naming eta and the rungs (eta = 1 + 1e-15 planned about 10¹⁵
// rungs, past any time limit).
func TestHalvingMessagesNameWhatTheScriptWrote(t *testing.T) {
	const pre = "script.lua:3: fedlab.sweep: key \"halving\": "
	for _, c := range []struct{ halving, want string }{
		{`{ eta = "x" }`, pre + `key "eta": expected a number, got the string "x"`},
		{`{ eta = 0.5 }`, pre + `key "eta": expected a number ≥ 1, got 0.5`},
		{`{ first = "y" }`, pre + `key "first": expected an integer, got the string "y"`},
		{`{ eta = 2, first = 0 }`, pre + `key "first": expected an integer ≥ 1, got 0`},
		{`{ eta = 1/0 }`, pre + `key "eta": expected a finite number ≥ 1, got +Inf`},
		{`{ eta = 2e6 }`, pre + `halving: eta = 2e+06: want a number from 1 (no elimination) to 1e6`},
		{`{ eta = 1 + 1e-15, first = 1 }`, pre + `halving: eta = 1.000000000000001 would make 100000 rungs (the first of at least 1 rounds, each next one eta times longer, up to 100000 rounds), more than 64: give a larger eta (1.2006 or more makes at most 64)`},
		{`{ eta = 1.00001, first = 1 }`, pre + `halving: eta = 1.00001 would make 100000 rungs (the first of at least 1 rounds, each next one eta times longer, up to 100000 rounds), more than 64: give a larger eta (1.2006 or more makes at most 64)`},
	} {
		start := time.Now()
		_, err := script(t, problemSrc+`local h = fedlab.sweep{
  problem = problem, rounds = 100000, local_steps = 1,
  metrics = { "test_objective" }, algorithms = { fedlab.algo.test_gd{ label = "gd" } },
  grid = { eta_c = { 0.01, 0.02 } },
  select = { metric = "test_objective", mode = "min" }, halving = `+c.halving+` }
`, Options{})
		if err == nil || err.Error() != c.want {
			t.Errorf("halving = %s: %v\nwant %s", c.halving, err, c.want)
		}
		if d := time.Since(start); d > stopBound {
			t.Errorf("halving = %s: refused after %v", c.halving, d)
		}
	}
}
