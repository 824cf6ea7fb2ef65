package runfile

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/experiment/experimenttest"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
)

func TestWriteCSV(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "out.csv")
	runs := testRuns()
	if err := WriteCSV(path, runs); err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, path)
	// 3 records × 3 full runs + 2 for the diverged run + 1 for the failed run, plus the header
	if len(rows) != 1+9+2+1 {
		t.Fatalf("got %d rows, want 13", len(rows))
	}
	head := strings.Join(rows[0], ",")
	if head != "label,algorithm,seed,status,round,comm_up,comm_down,samples,acc,loss" {
		t.Errorf("header %q", head)
	}
	if got := rows[1][9]; got != "0.3333333333333333" {
		t.Errorf("loss written as %q, want full precision", got)
	}
	if got := strings.Join(rows[3], ","); got != "a,algo,1,done,20,200,400,20,0.7,0.3333333333333333" {
		t.Errorf("row 3 = %q", got)
	}
	if got := strings.Join(rows[12], ","); got != "c,algo,1,failed,,,,,," {
		t.Errorf("failed run row = %q", got)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*tmp")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestSaveModel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.txt")
	runs := testRuns()
	if err := SaveModel(path, runs[0]); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "# fedlab model: a (algorithm algo, seed 1, status done)\n" +
		"# layout: kernel 2x1 (reg), row-major blocks in this order\n# dim: 2\n0.1\n0.3333333333333333\n"
	if string(b) != want {
		t.Errorf("model file:\n%s\nwant:\n%s", b, want)
	}
	if err := SaveModel(path, runs[4]); err == nil {
		t.Errorf("saving a failed run's model succeeded")
	}
}

// readCSV reads the CSV file at path.
func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// A label is free text: in a CSV file it must not become a spreadsheet
// formula.
func TestFreeTextCannotEscapeItsCell(t *testing.T) {
	label := "=HYPERLINK(\"http://x\")|a\nb & c"
	runs := []experiment.Run{run(label, 1, 0.5, core.Done, 0)}
	path := filepath.Join(t.TempDir(), "out.csv")
	if err := WriteCSV(path, runs); err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, path)
	if got := rows[1][0]; got != "'"+label {
		t.Errorf("label cell %q, want the label behind an apostrophe", got)
	}
	if got := rows[1][8]; got != "0.5" {
		t.Errorf("metric cell %q changed", got)
	}
}

func TestCSVConfigColumnsAndRecords(t *testing.T) {
	dir := t.TempDir()
	runs := []experiment.Run{sweepRun("X", 1, 10, 0.5, false), sweepRun("X", 2, 10, 0, true)}
	plain := run("p", 3, 0.5, core.Done, 0)
	plain.Key = "kp"
	pending := experiment.Run{Label: "later"}
	path := filepath.Join(dir, "records.csv")
	if err := WriteRecords(path, [][]experiment.Run{runs, {plain, pending}}, nil); err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, path)
	if got := strings.Join(rows[0], ","); got != "call,run,label,algorithm,seed,a,b,status,round,comm_up,comm_down,samples,acc,loss" {
		t.Errorf("header %q", got)
	}
	if len(rows) != 1+2+1+3 {
		t.Fatalf("got %d rows, want 7", len(rows))
	}
	if got := strings.Join(rows[2], ","); got != "1,kX,X,algo,1,1,10,done,10,0,0,0,0.5," {
		t.Errorf("row 2 = %q", got)
	}
	if got := strings.Join(rows[4], ","); got != "2,kp,p,algo,3,,,done,0,0,0,0,0.5,0.3333333333333333" {
		t.Errorf("row 4 = %q", got)
	}
}

func TestReadModelRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.txt")
	r := run("a", 1, 0.5, core.Diverged, 15)
	r.Config = experiment.NewConfig(experiment.NewSetting("eta", 0.1))
	r.Result.Model = []float64{0.1, math.NaN(), math.Inf(-1), 1.0 / 3}
	if err := SaveModel(path, r); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), "# config: eta=0.1\n") {
		t.Errorf("model header lacks the config:\n%s", b)
	}
	w, err := ReadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(w) != 4 || w[0] != 0.1 || !math.IsNaN(w[1]) || !math.IsInf(w[2], -1) || w[3] != 1.0/3 {
		t.Errorf("read back %v", w)
	}
	os.WriteFile(path, []byte("# x\n1\nnope\n"), 0o644)
	if _, err := ReadModel(path); err == nil || !strings.Contains(err.Error(), ":3: not a number") {
		t.Errorf("bad model: %v", err)
	}
}

func TestCSVHasTheResolvedParameters(t *testing.T) {
	a := run("a", 1, 0.5, core.Done, 0)
	a.Params = map[string]any{"eta_c": 0.1, "eta_s": 1.0, "samples": 3, "schedule": []any{1.0, 0.5, 0.25, 0.125, 0.0625}}
	a.Params["a"] = 7.0 // not swept for this run: its value fills the sweep's column
	b := sweepRun("X", 1, 10, 0.5, false)
	b.Params = map[string]any{"a": 1.0, "b": 10.0, "mu": 0.01}
	path := filepath.Join(t.TempDir(), "p.csv")
	if err := WriteCSV(path, []experiment.Run{a, b}); err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, path)
	want := "label,algorithm,seed,a,b,eta_c,eta_s,mu,algo.samples,schedule,status,round,comm_up,comm_down,samples,acc,loss"
	if got := strings.Join(rows[0], ","); got != want {
		t.Errorf("header %q\nwant   %q", got, want)
	}
	if got := strings.Join(rows[1][:11], ","); got != "a,algo,1,7,,0.1,1,,3,[1 0.5 0.25 0.125 … (5 values)],done" {
		t.Errorf("row 1 = %q", got)
	}
	if got := strings.Join(rows[4][:11], ","); got != "X,algo,1,1,10,,,0.01,,,done" {
		t.Errorf("row 4 = %q", got)
	}
}

// TestModelWithAHugeLabelReadsBack: a model file whose header holds a
// label longer than 64 KiB reads back (bufio.Scanner's default token
// limit made it unreadable, so resume ran the run again and table and plot
// printed nothing).
func TestModelWithAHugeLabelReadsBack(t *testing.T) {
	run := experiment.Run{Label: strings.Repeat("λ", 70_000), Algorithm: "algo", Seed: 1,
		Result: &core.Result{Status: core.Done, Model: []float64{1.5, -2, 0.25}}}
	path := filepath.Join(t.TempDir(), "m.txt")
	if err := SaveModel(path, run); err != nil {
		t.Fatal(err)
	}
	w, err := ReadModel(path)
	if err != nil || len(w) != 3 || w[0] != 1.5 || w[1] != -2 || w[2] != 0.25 {
		t.Fatalf("read back %v, %v", w, err)
	}
}

// The runs of the tests (experimenttest).
var (
	run      = experimenttest.Run
	testRuns = experimenttest.Runs
	sweepRun = experimenttest.SweepRun
)
