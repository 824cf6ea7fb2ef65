package rundir

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
	_ "github.com/fedlab/fedlab/fedlabtest"
	"github.com/fedlab/fedlab/registry"
)

// testBase is the problem of the tests' runs: least squares with ℓ1
// (λ = 0.01) on test_data, the given rounds of 2 clients × 2 local steps
// of batch 2, the objective evaluated every 4 rounds.
func testBase(t testing.TB, rounds int) experiment.Base {
	t.Helper()
	data, err := registry.Build[*core.Federated](registry.Dataset, "test_data", nil)
	if err != nil {
		t.Fatal(err)
	}
	loss, _ := registry.Build[core.Loss](registry.Loss, "test_squared", nil)
	pen, _ := registry.Build[core.Penalty](registry.Regularizer, "test_l1", map[string]any{"lambda": 0.01})
	p, err := core.NewProblem(data, loss, pen, nil)
	if err != nil {
		t.Fatal(err)
	}
	obj, _ := registry.Build[core.Metric](registry.Metric, "test_objective", nil)
	return experiment.Base{Problem: p,
		ProblemID: experiment.ProblemID{Data: experiment.NewComponent("test_data", nil),
			Loss: experiment.NewComponent("test_squared", nil), Reg: experiment.NewComponent("test_l1", map[string]any{"lambda": 0.01})},
		Settings: core.Settings{Rounds: rounds, ClientsPerRound: 2, LocalSteps: 2, Batch: 2, EvalEvery: 4},
		Metrics:  []core.Metric{obj}, MetricIDs: []experiment.Component{experiment.NewComponent("test_objective", nil)}}
}

// sweepJobs plans a small sweep: test_gd over eta_c (one value diverges)
// and two seeds, plus a run that fails.
func sweepJobs(t testing.TB) []experiment.Job {
	t.Helper()
	base := testBase(t, 12)
	var jobs []experiment.Job
	for _, v := range []float64{0.01, 0.1, 1e200} {
		cfg := experiment.NewConfig(experiment.NewSetting("eta_c", v))
		js, err := experiment.Jobs(base, experiment.AlgoSpec{Name: "test_gd", Params: map[string]any{"eta_c": v}}, cfg, []uint64{1, 2})
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, js...)
	}
	js, err := experiment.Jobs(base, experiment.AlgoSpec{Name: "test_gd", Label: "broken", Params: map[string]any{"fail": true}}, nil, []uint64{1})
	if err != nil {
		t.Fatal(err)
	}
	return append(jobs, js...)
}

var script = Script{Path: "sweep.lua", SHA256: strings.Repeat("a", 64)}

var rules = []experiment.Rule{{Metric: "test_objective", Mode: "min"}}

// session runs jobs as one call in a session on dir and finishes it.
func session(t *testing.T, dir string, opts Options, jobs []experiment.Job) ([]experiment.Run, Summary, error) {
	t.Helper()
	if opts.Script == (Script{}) {
		opts.Script = script
	}
	d, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := d.Execute("fedlab.sweep", "sweep.lua:3", rules, jobs)
	sum, ferr := d.Finish(err)
	if ferr != nil {
		t.Fatal(ferr)
	}
	return runs, sum, err
}

func TestResumeSkipsCompletedRunsAndGivesTheSameDirectory(t *testing.T) {
	jobs := sweepJobs(t)
	whole := t.TempDir()
	ref, sum, err := session(t, whole, Options{Jobs: 2}, jobs)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Runs != 7 || sum.Ran != 7 || sum.Diverged != 2 || sum.Failed != 1 || sum.Status != StatusComplete {
		t.Errorf("summary %+v", sum)
	}

	// A session killed after three runs: Finish never called.
	dir := t.TempDir()
	d, err := Open(dir, Options{Script: script})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Execute("fedlab.sweep", "sweep.lua:3", rules, jobs[:3]); err != nil {
		t.Fatal(err)
	}
	d.lock.f.Close() // the kernel ends a killed process's lock; its lock file stays
	m, _, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Status != StatusRunning {
		t.Errorf("an interrupted session's manifest says %q", m.Status)
	}
	for key, e := range m.Runs {
		_, problem, _ := load(dir, key, e.resultSum())
		if ok := problem == ""; ok != (e.Status != Pending) {
			t.Errorf("run %s: manifest says %s, result stored %v", key, e.Status, ok)
		}
	}

	runs, sum, err := session(t, dir, Options{Jobs: 3, Workers: 1}, jobs)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ran != 4 || sum.Reused != 3 {
		t.Errorf("resume: %+v, want 4 ran and 3 reused", sum)
	}
	for i := range runs {
		if fmt.Sprint(stripped(runs[i].Result)) != fmt.Sprint(stripped(ref[i].Result)) { // NaN-safe
			t.Errorf("run %d differs after resume", i)
		}
	}
	sameDirs(t, whole, dir)

	// A third session runs only the failed run, and a run whose result file was damaged.
	if err := os.WriteFile(filepath.Join(dir, resultPath(jobs[0].Key)), []byte(`{"format": "fedlab-res`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, sum, _ := session(t, dir, Options{}, jobs); sum.Ran != 2 || sum.Reused != 5 {
		t.Errorf("second resume: %+v, want 2 ran (the failed and the damaged run), 5 reused", sum)
	}
	sameDirs(t, whole, dir)
}

func TestChangedScriptIsRefused(t *testing.T) {
	jobs := sweepJobs(t)
	dir := t.TempDir()
	if _, _, err := session(t, dir, Options{}, jobs[:2]); err != nil {
		t.Fatal(err)
	}
	other := Script{Path: "sweep.lua", SHA256: strings.Repeat("b", 64)}
	if _, err := Open(dir, Options{Script: other}); err == nil || !strings.Contains(err.Error(), "--fresh") {
		t.Fatalf("a changed script was accepted: %v", err)
	}
	if _, sum, _ := session(t, dir, Options{Script: other, Update: true}, jobs[1:3]); sum.Reused != 1 || sum.Ran != 1 {
		t.Errorf("update: %+v, want 1 reused, 1 ran", sum)
	}
	if left, _ := os.ReadDir(filepath.Join(dir, ResultsDir)); len(left) != 2 {
		t.Errorf("after an update, %d result files, want the 2 the script plans", len(left))
	}
	if _, sum, _ := session(t, dir, Options{Script: other, Fresh: true}, jobs[1:3]); sum.Reused != 0 || sum.Ran != 2 {
		t.Errorf("fresh: %+v, want 2 ran", sum)
	}
}

func TestShardsMergeToTheSingleRun(t *testing.T) {
	jobs := sweepJobs(t)
	single := t.TempDir()
	if _, _, err := session(t, single, Options{}, jobs); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	var shards []string
	total := 0
	for i := range 3 {
		dir := filepath.Join(root, "shard", string(rune('0'+i)))
		shards = append(shards, dir)
		_, sum, err := session(t, dir, Options{Shard: Shard{Index: i, Count: 3}}, jobs)
		var stop *Stopped
		if !errors.As(err, &stop) || sum.Status != StatusStopped {
			t.Fatalf("shard %d: %v, status %s", i, err, sum.Status)
		}
		total += sum.Ran
	}
	if total != 7 {
		t.Errorf("the shards ran %d runs, want 7", total)
	}
	merged := filepath.Join(root, "merged")
	m, err := Merge(merged, shards)
	if err != nil {
		t.Fatal(err)
	}
	if m.Status != StatusMerged || len(m.MergedFrom) != 3 {
		t.Errorf("merged manifest: %s from %v", m.Status, m.MergedFrom)
	}
	sameDirs(t, single, merged)

	// Finishing the script in the merged directory runs nothing.
	if _, sum, err := session(t, merged, Options{}, jobs); err != nil || sum.Ran != 1 || sum.Reused != 6 {
		t.Errorf("finishing the merged directory: %+v, %v (want only the failed run retried)", sum, err)
	}
	// A missing shard leaves its runs pending.
	part := filepath.Join(root, "part")
	m, err = Merge(part, shards[:2])
	if err != nil {
		t.Fatal(err)
	}
	pending := 0
	for _, e := range m.Runs {
		if e.Status == Pending {
			pending++
		}
	}
	if pending == 0 {
		t.Errorf("a merge of 2 of 3 shards has no pending run")
	}
	other := t.TempDir()
	if _, _, err := session(t, other, Options{Script: Script{SHA256: "c"}}, jobs[:1]); err != nil {
		t.Fatal(err)
	}
	if _, err := Merge(filepath.Join(root, "bad"), []string{shards[0], other}); err == nil || !strings.Contains(err.Error(), "different scripts") {
		t.Errorf("merging different scripts: %v", err)
	}
}

func TestMemoryOnlyExecutesEqualKeysOnce(t *testing.T) {
	jobs := sweepJobs(t)
	d, err := Open("", Options{Script: script})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Execute("fedlab.compare", "x.lua:1", nil, slices.Concat(jobs[:2], jobs[:2])); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Execute("fedlab.compare", "x.lua:2", nil, jobs[:3]); err != nil {
		t.Fatal(err)
	}
	if sum, _ := d.Finish(nil); sum.Ran != 3 || sum.Runs != 3 {
		t.Errorf("summary %+v, want 3 runs executed once", sum)
	}
}

func TestFloatsRoundTrip(t *testing.T) {
	in := floats{0.1, math.NaN(), math.Inf(1), math.Inf(-1), 1e-300, -0.5}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `[0.1,"NaN","+Inf","-Inf",1e-300,-0.5]` {
		t.Errorf("encoded %s", b)
	}
	var out floats
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	for i := range in {
		if math.Float64bits(in[i]) != math.Float64bits(out[i]) && !(math.IsNaN(in[i]) && math.IsNaN(out[i])) {
			t.Errorf("value %d: %v → %v", i, in[i], out[i])
		}
	}
}

// stripped is a result without its timing.
func stripped(r *core.Result) core.Result {
	c := *r
	c.Elapsed = 0
	return c
}

// timeFields are left out when directories are compared.
var timeFields = []string{"result_sha256", "result_size", "started", "finished", "elapsed_seconds", "cpu_seconds", "status", "merged_from", "shard", "fedlab_version"}

// sameDirs checks that two run directories hold the same runs: equal
// records.csv and model files, and equal manifests' calls and runs and
// result files up to times and the directory status.
func sameDirs(t *testing.T, a, b string) {
	t.Helper()
	files := func(dir string) map[string]string {
		out := map[string]string{}
		filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
			if err == nil && !e.IsDir() {
				rel, _ := filepath.Rel(dir, p)
				out[rel] = p
			}
			return nil
		})
		return out
	}
	fa, fb := files(a), files(b)
	if len(fa) != len(fb) {
		t.Errorf("%d files vs %d files:\n%v\n%v", len(fa), len(fb), fa, fb)
	}
	for rel, pa := range fa {
		pb, ok := fb[rel]
		if !ok {
			t.Errorf("%s missing from %s", rel, b)
			continue
		}
		x, _ := os.ReadFile(pa)
		y, _ := os.ReadFile(pb)
		if strings.HasSuffix(rel, ".json") {
			x, y = withoutTimes(t, x, rel), withoutTimes(t, y, rel)
		}
		if string(x) != string(y) {
			t.Errorf("%s differs:\n%s\n---\n%s", rel, x, y)
		}
	}
}

func withoutTimes(t *testing.T, b []byte, rel string) []byte {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	var strip func(v any)
	strip = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for _, f := range timeFields {
				if rel != ManifestFile || f != "status" || x["calls"] != nil {
					delete(x, f)
				}
			}
			for _, y := range x {
				strip(y)
			}
		case []any:
			for _, y := range x {
				strip(y)
			}
		}
	}
	strip(v)
	out, _ := json.MarshalIndent(v, "", " ")
	return out
}

// TestExecuteCallRecordsTheCallAsGiven: the manifest records the call
// ExecuteCall is given, every field of it (a field left out when the call
// was rebuilt field by field would be lost), followed by the jobs' runs;
// experiment.Rungs executes a halving rung as such a call, named after
// the rung and marked with it.
func TestExecuteCallRecordsTheCallAsGiven(t *testing.T) {
	jobs := sweepJobs(t)[:2]
	dir := t.TempDir()
	d, err := Open(dir, Options{Script: script})
	if err != nil {
		t.Fatal(err)
	}
	call := experiment.Call{Function: "fedlab.sweep", Name: "grid, rung 1 of 2 (12 rounds)", Where: "sweep.lua:7", Select: rules,
		Rung: &experiment.Rung{Index: 1, Of: 2, Rounds: 12}}
	if _, err := d.ExecuteCall(call, jobs); err != nil {
		t.Fatal(err)
	}
	rung := experiment.Rung{Index: 2, Of: 2, Rounds: 12}
	if _, err := experiment.Rungs(d, experiment.Call{Function: "fedlab.sweep", Name: "grid", Where: "sweep.lua:7"}).ExecuteRung(rung, jobs[:1]); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Finish(nil); err != nil {
		t.Fatal(err)
	}
	m, ok, err := ReadManifest(dir)
	if err != nil || !ok {
		t.Fatalf("manifest: %v, %v", ok, err)
	}
	runs := []CallRun{{Key: jobs[0].Key, Label: jobs[0].Label, Seed: 1, Config: jobs[0].Config},
		{Key: jobs[1].Key, Label: jobs[1].Label, Seed: 2, Config: jobs[1].Config}}
	want := []Call{{Call: call, Runs: runs},
		{Call: experiment.Call{Function: "fedlab.sweep", Name: "grid, rung 2 of 2 (12 rounds)", Where: "sweep.lua:7", Rung: &rung}, Runs: runs[:1]}}
	got, _ := json.Marshal(m.Calls)
	wantJSON, _ := json.Marshal(want)
	if string(got) != string(wantJSON) {
		t.Errorf("manifest calls:\n%s\nwant:\n%s", got, wantJSON)
	}
	// The manifest's form of a call: its fields, then its runs.
	if s := string(got); !strings.HasPrefix(s, `[{"function":"fedlab.sweep","name":"grid, rung 1 of 2 (12 rounds)","where":"sweep.lua:7","select":[`) ||
		!strings.Contains(s, `,"rung":{"index":1,"of":2,"rounds":12},"runs":[{"key":"`) {
		t.Errorf("manifest calls' JSON:\n%s", s)
	}
}
