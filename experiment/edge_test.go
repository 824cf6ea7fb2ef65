package experiment

import (
	"fmt"
	"testing"
)

// TestEdgesFlagTheEndsOfTheGrid: η_s = 3 selected at the top of
// {0.3, 1, 3} is flagged, η_c = 0.01 in the middle of its grid is not; the
// grid of a key is taken along the selected configuration's other values.
func TestEdgesFlagTheEndsOfTheGrid(t *testing.T) {
	var cands []Candidate
	for _, c := range []float64{0.001, 0.01, 0.1} {
		for _, s := range []float64{0.3, 1, 3} {
			cands = append(cands, Candidate{Config: NewConfig(NewSetting("eta_c", c), NewSetting("eta_s", s))})
		}
	}
	sel := Selection{Label: "FedAvg", Candidates: cands, Best: 5} // eta_c = 0.01, eta_s = 3
	edges := sel.Edges()
	if len(edges) != 1 || edges[0].String() != "eta_s = 3 is the largest value of its grid {0.3, 1, 3}" {
		t.Fatalf("edges %v", edges)
	}
	sel.Best = 0 // eta_c = 0.001, eta_s = 0.3: both at the bottom
	if e := sel.Edges(); len(e) != 2 || e[0].Key != "eta_c" || e[0].Largest || e[1].Key != "eta_s" || e[1].Largest {
		t.Fatalf("edges %v", e)
	}
	sel.Best = 4 // the middle of both grids
	if e := sel.Edges(); len(e) != 0 {
		t.Fatalf("edges %v", e)
	}
	sel.Best = -1
	if e := sel.Edges(); e != nil {
		t.Fatalf("no selection: edges %v", e)
	}
}

// TestHalvingRungs: rung budgets are rounds/etaᵏ rounded, from the
// largest k whose budget is at least first down to k = 0 (the rounds
// themselves): geometric, ending exactly at the rounds, without the
// near-duplicate last rung that multiplying up from first made (200 rounds
// at eta 3 ran 22, 66, 198 and 200); eta = 1 is one rung (the full grid);
// ⌈n/eta⌉ continue.
func TestHalvingRungs(t *testing.T) {
	for _, c := range []struct {
		h      Halving
		rounds int
		want   []int
	}{
		{Halving{Eta: 3, First: 22}, 200, []int{22, 67, 200}}, // 200/9 = 22.2, 200/3 = 66.7
		{Halving{Eta: 3, First: 1}, 200, []int{2, 7, 22, 67, 200}},
		{Halving{Eta: 3, First: 23}, 200, []int{67, 200}}, // 200/9 < 23: first is the least budget of the first rung
		{Halving{Eta: 3, First: 10}, 90, []int{10, 30, 90}},
		{Halving{Eta: 3, First: 10}, 100, []int{11, 33, 100}},
		{Halving{Eta: 2, First: 50}, 500, []int{63, 125, 250, 500}},
		{Halving{Eta: 4, First: 10}, 1000, []int{16, 63, 250, 1000}},
		{Halving{Eta: 1, First: 10}, 90, []int{90}},
		{Halving{Eta: 3, First: 90}, 90, []int{90}},
		{Halving{Eta: 1.5, First: 1}, 3, []int{1, 2, 3}},
	} {
		got, err := c.h.Rungs(c.rounds)
		if err != nil || fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%+v over %d rounds: %v %v, want %v", c.h, c.rounds, got, err, c.want)
		}
	}
	for _, h := range []Halving{{Eta: 0.5, First: 1}, {Eta: 3, First: 0}, {Eta: 3, First: 91}} {
		if _, err := h.Rungs(90); err == nil {
			t.Errorf("%+v accepted", h)
		}
	}
	if k := (Halving{Eta: 3}).Keep(9); k != 3 {
		t.Errorf("Keep(9) = %d", k)
	}
	if k := (Halving{Eta: 3}).Keep(4); k != 2 {
		t.Errorf("Keep(4) = %d", k)
	}
}
