package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func TestFormatMeanStdRoundingRule(t *testing.T) {
	for _, c := range []struct {
		mean, std float64
		want      string
	}{
		{0.6703, 0.06183, "0.670 ± 0.062"}, // std to 2 significant digits, mean to the same place
		{0.2291, 1.01e-06, "0.2291000 ± 0.0000010"},
		{12.3456, 1.26, "12.3 ± 1.3"},
		{0.5, 0.0996, "0.50 ± 0.10"}, // the std rounds up to the next decade: one decimal fewer
		{6178123, 12345, "6178000 ± 12000"},
		{-3.14159, 0.025, "-3.142 ± 0.025"},
		{1e-9, 3.04e-10, "1.00e-09 ± 3.0e-10"}, // far below 1: exponents
		{0.6703, 0, "0.6703"},                  // no spread: the value alone
		{6178123, 0, "6178123"},                // integers as integers
		{2, 0, "2"},
		{0.5, 0, "0.5"},
		{12345.678, 0, "12346"},
		{1.234e-7, 0, "1.234e-07"},
	} {
		if got := FormatMeanStd(c.mean, c.std); got != c.want {
			t.Errorf("FormatMeanStd(%g, %g) = %q, want %q", c.mean, c.std, got, c.want)
		}
	}
}

// goldenRuns: label "seeds" has 3 seeds with spread, "one" a single seed,
// "same" 2 seeds with identical values, and the metric "count" is an
// integer counter.
func goldenRuns() []experiment.Run {
	mk := func(label string, seed uint64, acc, loss float64) experiment.Run {
		res := &core.Result{Metrics: []string{"test_accuracy", "train_loss", "nnz"}, Status: core.Done}
		for r := 0; r <= 100; r += 50 {
			res.Records = append(res.Records, core.Record{Round: r,
				Values: []float64{acc * float64(r+50) / 150, loss * 150 / float64(r+50), float64(6178000 + 10*r)}})
		}
		return experiment.Run{Label: label, Algorithm: "algo", Seed: seed, Result: res}
	}
	return []experiment.Run{
		mk("seeds", 1, 0.61, 0.30), mk("seeds", 2, 0.67, 0.22), mk("seeds", 3, 0.73, 0.25),
		mk("one", 1, 0.5, 0.4),
		mk("same_α|β", 1, 0.8, 0.2), mk("same_α|β", 2, 0.8, 0.2),
	}
}

func TestTableGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		opts TableOptions
	}{
		{"text.golden", TableOptions{Title: "demo"}},
		{"bold.md.golden", TableOptions{Title: "demo", Format: "md", Bold: true}},
		{"bold.tex.golden", TableOptions{Title: "demo & 100% of it", Format: "latex", Bold: true}},
		{"table.csv.golden", TableOptions{Format: "csv", Metrics: []string{"test_accuracy"}}},
		{"transpose.golden", TableOptions{Transpose: true, Metrics: []string{"train_loss"}}},
		{"narrow.golden", TableOptions{Width: 40}},
	} {
		var buf bytes.Buffer
		if err := Table(&buf, goldenRuns(), c.opts); err != nil {
			t.Fatal(err)
		}
		golden(t, c.name, buf.Bytes())
	}
}

func TestNarrowTableFitsTheWidth(t *testing.T) {
	var buf bytes.Buffer
	if err := Table(&buf, goldenRuns(), TableOptions{Width: 40}); err != nil {
		t.Fatal(err)
	}
	for i, line := range bytes.Split(buf.Bytes(), []byte("\n")) {
		if n := len([]rune(string(line))); n > 40 && i > 0 { // the heading line may be longer
			t.Errorf("line %d has %d columns: %q", i, n, line)
		}
	}
}

// golden compares got with testdata/name (rewritten with -update).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}
