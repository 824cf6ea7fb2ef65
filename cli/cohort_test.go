package cli

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCohortsAndSoloWriteTheSameRecords runs a script of two calls (a
// comparison over 3 seeds, a sweep) by default, where each call's runs
// execute in cohorts, and with --solo, one run at a time, and checks that
// records.csv is byte for byte the same, and that the manifest says which
// runs ran in a cohort. The data (21 MB) is above experiment.CohortMinData.
func TestCohortsAndSoloWriteTheSameRecords(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a 21 MB problem in cohorts and with --solo (-short: experiment's TestCohortsGiveTheRunsOfOneByOne)")
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "cohorts.lua")
	src := `
local problem = fedlab.problem{
  data = fedlab.data.lasso{ variant = "custom", support = 4, dim = 1024, clients = 16, samples = 160 },
  loss = fedlab.loss.squared{ intercept = true }, reg = fedlab.reg.l1{ lambda = 0.05 } }
local runs = fedlab.compare{ problem = problem, rounds = 30, clients_per_round = 4, batch = 4, epochs = 1,
  seeds = { 1, 2, 3 }, eval_every = 5, metrics = { "objective", "f1", "l2_error" },
  algorithms = { fedlab.algo.feddualavg{ eta_c = 0.01, eta_s = 1 }, fedlab.algo.fedmid{ eta_c = 0.01, eta_s = 1 },
    fedlab.algo.fedmid_osp{ eta_c = 0.01, eta_s = 1 }, fedlab.algo.scaffold{ eta_c = 0.01 } } }
fedlab.table(runs)
fedlab.sweep{ problem = problem, rounds = 30, clients_per_round = 4, batch = 4, epochs = 1, eval_every = 10,
  algorithms = { fedlab.algo.fedmid{} }, grid = { eta_c = { 0.001, 0.01, 0.1, 10 }, eta_s = { 0.5, 1 } },
  select = { metric = "objective", mode = "min", last = 10 } }
`
	if testing.Short() {
		src = strings.ReplaceAll(src, "rounds = 30", "rounds = 10") // the cohorts are the same; fewer rounds to compare
	}
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	records := map[string][]byte{}
	cohorts := map[string]map[int]int{} // mode → cohort size → runs
	for _, mode := range []string{"cohorts", "solo"} {
		out := filepath.Join(dir, mode)
		args := []string{"run", script, "--out", out, "--quiet", "--jobs", "2"}
		if mode == "solo" {
			args = append(args, "--solo")
		}
		if code, _, stderr := runCLI(args...); code != 0 {
			t.Fatalf("%s: exit %d: %s", mode, code, stderr)
		}
		b, err := os.ReadFile(filepath.Join(out, "records.csv"))
		if err != nil {
			t.Fatal(err)
		}
		records[mode] = b
		var m struct {
			Runs map[string]struct {
				Elapsed float64 `json:"elapsed_seconds"`
				Cohort  int     `json:"cohort"`
			}
		}
		if b, err = os.ReadFile(filepath.Join(out, "manifest.json")); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		cohorts[mode] = map[int]int{}
		for key, r := range m.Runs {
			if !(r.Elapsed > 0) {
				t.Fatalf("%s: run %s: elapsed %g, want its time or a positive share of its cohort's", mode, key, r.Elapsed)
			}
			cohorts[mode][r.Cohort]++
		}
	}
	if !bytes.Equal(records["cohorts"], records["solo"]) {
		t.Fatalf("records.csv differs between cohorts and --solo:\n%s\n---\n%s", records["cohorts"], records["solo"])
	}
	// 12 runs of the comparison (one cohort of 12) and 8 of the sweep (one of 8)
	if want := map[int]int{12: 12, 8: 8}; !maps.Equal(cohorts["cohorts"], want) {
		t.Fatalf("cohort sizes → runs %v, want %v", cohorts["cohorts"], want)
	}
	if want := map[int]int{0: 20}; !maps.Equal(cohorts["solo"], want) {
		t.Fatalf("--solo: cohort sizes → runs %v, want %v (none)", cohorts["solo"], want)
	}
}
