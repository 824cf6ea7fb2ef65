package experiment

import "testing"

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
