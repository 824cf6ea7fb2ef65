package plot

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
)

// curve makes a run whose "loss" at rounds 0, 10, 20 is scale/(round+1).
func curve(label string, seed uint64, scale float64, diverged bool) experiment.Run {
	res := &core.Result{Metrics: []string{"loss"}, Status: core.Done}
	for r := 0; r <= 20; r += 10 {
		if diverged && r > 10 {
			res.Status, res.DivergedAt = core.Diverged, 15
			break
		}
		res.Records = append(res.Records, core.Record{Round: r, Up: int64(r), Down: int64(2 * r), CommRounds: r,
			Values: []float64{scale / float64(r+1)}})
	}
	return experiment.Run{Label: label, Seed: seed, Result: res}
}

func TestLinesMeanAndStdOverSeeds(t *testing.T) {
	runs := []experiment.Run{curve("a", 1, 1, false), curve("a", 2, 3, false), curve("b", 1, 2, true), {Label: "later"}}
	s, err := Lines(runs, Options{Metric: "loss", X: "comm"})
	if err != nil {
		t.Fatal(err)
	}
	if len(s) != 2 || s[0].Name != "a" || s[1].Name != "b" || s[0].Runs != 2 {
		t.Fatalf("series %+v", s)
	}
	a := s[0]
	if a.X[1] != 30 || a.Mean[0] != 2 || math.Abs(a.Std[0]-math.Sqrt2) > 1e-15 || a.Count[2] != 2 {
		t.Errorf("series a: %+v", a)
	}
	if len(s[1].X) != 2 {
		t.Errorf("the diverged run has %d points, want 2", len(s[1].X))
	}
	for _, bad := range []Options{{Metric: "nope"}, {Metric: "loss", X: "time"}} {
		if _, err := Lines(runs, bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

func TestSaveWritesPNGAndSVG(t *testing.T) {
	runs := []experiment.Run{curve("a", 1, 1, false), curve("a", 2, 3, false), curve("b", 1, 2, false)}
	base := filepath.Join(t.TempDir(), "fig", "loss")
	paths, err := Save(base, runs, Options{Metric: "loss", LogY: true, Title: "demo"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 2 || paths[0] != base+".png" || paths[1] != base+".svg" {
		t.Fatalf("paths %v", paths)
	}
	png, _ := os.ReadFile(paths[0])
	if !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("%s is not a PNG", paths[0])
	}
	svg, _ := os.ReadFile(paths[1])
	if !strings.Contains(string(svg), "<svg") || !strings.Contains(string(svg), "demo") {
		t.Errorf("%s is not the SVG chart", paths[1])
	}
	if _, err := Save(base, runs, Options{Metric: "loss"}, []string{"gif"}); err == nil {
		t.Errorf("an unknown format was accepted")
	}
	neg := []experiment.Run{curve("a", 1, -1, false)}
	if _, err := Save(base, neg, Options{Metric: "loss", LogY: true}, nil); err == nil || !strings.Contains(err.Error(), "positive") {
		t.Errorf("log scale of negative values: %v", err)
	}
}

func TestMetricAsXAxis(t *testing.T) {
	run := curve("a", 1, 1, false)
	run.Result.Metrics = append(run.Result.Metrics, "bits")
	for i := range run.Result.Records {
		run.Result.Records[i].Values = append(run.Result.Records[i].Values, float64(640*i))
	}
	s, err := Lines([]experiment.Run{run}, Options{Metric: "loss", X: "bits"})
	if err != nil {
		t.Fatal(err)
	}
	if x := s[0].X; len(x) != 3 || x[0] != 0 || x[1] != 640 || x[2] != 1280 {
		t.Fatalf("x = %v, want the bits column 0, 640, 1280", x)
	}
	if _, err := Lines([]experiment.Run{run}, Options{Metric: "loss", X: "epsilon"}); err == nil ||
		!strings.Contains(err.Error(), `key "x": "epsilon" is neither an axis (round, comm, comm_rounds, samples) nor a metric the runs measured (they have: loss, bits)`) {
		t.Fatalf("unknown x: %v", err)
	}
}
