package luaapi

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/fedlab/fedlab/rundir"
)

// stagesScript runs a two-stage pipeline for three seeds and writes its
// records to stages.csv.
const stagesScript = problemSrc + `
local runs = fedlab.stages{ ` + stagesSettings + ` label = "two", restart = "average", seeds = { 1, 2, 3 },
  { algo = fedlab.algo.test_gd{ eta_c = 0.05 }, lambda = 0.5, rounds = 4 },
  { lambda = function(r) return 0.01 * r end, rounds = 5 } }
fedlab.csv(runs, "stages.csv")
`

// runStages runs stagesScript (written once in src) into out.
func runStages(t *testing.T, src, out string, shard rundir.Shard) (rundir.Summary, error) {
	t.Helper()
	return RunFile(src, Options{Out: out, Shard: shard, Jobs: 2, Stdout: io.Discard, Stderr: io.Discard})
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fedlab.stages goes through the run directory: a second session reuses
// every pipeline run; runs lost to a kill are executed again, giving the
// same bytes; shards merge to the single-machine result.
func TestStagesResumeAndShards(t *testing.T) {
	tmp := t.TempDir()
	src := filepath.Join(tmp, "stages.lua")
	if err := os.WriteFile(src, []byte(stagesScript), 0o644); err != nil {
		t.Fatal(err)
	}
	one := filepath.Join(tmp, "one")
	sum, err := runStages(t, src, one, rundir.Shard{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Runs != 3 || sum.Ran != 3 {
		t.Fatalf("first session: %s, want 3 runs executed", sum)
	}
	want := readFile(t, filepath.Join(one, "stages.csv"))
	records := readFile(t, filepath.Join(one, rundir.RecordsFile))
	if !bytes.Contains(records, []byte(",stage,")) || !bytes.Contains(records, []byte("test_gd+test_gd")) {
		t.Errorf("records.csv lacks the pipeline runs:\n%s", records)
	}

	sum, err = runStages(t, src, one, rundir.Shard{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ran != 0 || sum.Reused != 3 {
		t.Errorf("second session: %s, want every run reused", sum)
	}
	if got := readFile(t, filepath.Join(one, "stages.csv")); !bytes.Equal(got, want) {
		t.Errorf("the resumed session wrote other records")
	}

	// A session killed after its first run completed left one result
	// file: the rerun executes the two others and ends byte-identical.
	results, err := filepath.Glob(filepath.Join(one, rundir.ResultsDir, "*.json"))
	if err != nil || len(results) != 3 {
		t.Fatalf("results %v, %v", results, err)
	}
	for _, r := range results[1:] {
		if err := os.Remove(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(filepath.Join(one, "stages.csv")); err != nil {
		t.Fatal(err)
	}
	sum, err = runStages(t, src, one, rundir.Shard{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ran != 2 || sum.Reused != 1 {
		t.Errorf("after the kill: %s, want 2 ran and 1 reused", sum)
	}
	if got := readFile(t, filepath.Join(one, "stages.csv")); !bytes.Equal(got, want) {
		t.Errorf("the rerun after a kill wrote other records")
	}

	// Two shards stop at the call, each with its runs; merged, the script
	// finishes without running anything and writes the same records.
	var shards []string
	for i := range 2 {
		dir := filepath.Join(tmp, "shard", string(rune('a'+i)))
		sum, err := runStages(t, src, dir, rundir.Shard{Index: i, Count: 2})
		var stop *rundir.Stopped
		if !errors.As(err, &stop) {
			t.Fatalf("shard %d: %v, want a stop at the call", i, err)
		}
		if sum.Ran != 2-i {
			t.Errorf("shard %d ran %d runs, want %d", i, sum.Ran, 2-i)
		}
		shards = append(shards, dir)
	}
	merged := filepath.Join(tmp, "merged")
	if _, err := rundir.Merge(merged, shards); err != nil {
		t.Fatal(err)
	}
	sum, err = runStages(t, src, merged, rundir.Shard{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ran != 0 || sum.Reused != 3 {
		t.Errorf("merged: %s, want every run reused", sum)
	}
	if got := readFile(t, filepath.Join(merged, "stages.csv")); !bytes.Equal(got, want) {
		t.Errorf("the merged shards wrote other records:\n%s\nwant\n%s", got, want)
	}
}
