package claims_test

import (
	"math"
	"os"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment/claims"
)

// A Go plan states a claim about its runs (here two hand-built ones; in a
// plan, claims.FromRuns of the experiment.Runs a rundir.Dir returned) and
// prints the table fedlab run prints.
func Example() {
	run := func(label string, density float64) claims.Run {
		return claims.Run{Label: label, Seed: 1, Result: &core.Result{Status: core.Done, Metrics: []string{"density"},
			Records: []core.Record{{Round: 0, Values: []float64{1}}, {Round: 500, Values: []float64{density}}}}}
	}
	runs := []claims.Run{run("FedMiD", 0.66), run("FedDualAvg", 0.50)}
	c := claims.Claim{Text: "FedMiD gives the least sparse solution", Source: "FCO Fig. 3", Kind: claims.Order,
		Seeds: claims.EverySeed, Metric: "density", Rounds: claims.AtRound(500),
		Groups: [][]string{{"FedMiD"}, {"FedDualAvg"}}, Decreasing: true, Bound: claims.Bound{Min: math.NaN(), Max: math.NaN()}}
	if err := claims.Validate(c); err != nil {
		panic(err)
	}
	claims.Table(os.Stdout, "plan", []claims.Result{claims.Evaluate(c, runs)}, 100)
	// Output:
	// Claims of plan: 1 holds, 0 fail, 0 not evaluated
	// 1  holds          FCO Fig. 3: FedMiD gives the least sparse solution
	//                   density at round 500 (1 seed): closest "FedMiD" 0.66 vs "FedDualAvg" 0.5 at seed
	//                   1, round 500, margin 0.16
}
