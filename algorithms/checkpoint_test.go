package algorithms_test

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/core"
	_ "github.com/fedlab/fedlab/effects/availability"
	_ "github.com/fedlab/fedlab/effects/compress"
	_ "github.com/fedlab/fedlab/effects/privacy"
	"github.com/fedlab/fedlab/experiment"
	_ "github.com/fedlab/fedlab/metrics"
	"github.com/fedlab/fedlab/plan"
	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/schedules"
)

// checkpointProblems are a dense and a sparse LASSO, the dense one without
// its penalty (for the algorithms that refuse one) and with a λ that
// decays every round, and a neural
// classifier (a one-hidden-layer MLP), small enough for every algorithm.
func checkpointProblems() map[string]plan.Problem {
	lasso := func(format string) plan.Problem {
		return plan.Problem{
			Data: plan.Component{Kind: registry.Dataset, Name: "lasso", Params: map[string]any{
				"variant": "custom", "support": 4, "dim": 24, "clients": 6, "samples": 10, "test_samples": 4, "format": format, "density": 0.5}},
			Loss: plan.Component{Kind: registry.Loss, Name: "squared", Params: map[string]any{"intercept": true}},
			Reg:  plan.Component{Kind: registry.Regularizer, Name: "l1", Params: map[string]any{"lambda": 0.05}},
		}
	}
	unregularized := lasso("dense")
	unregularized.Reg = plan.Component{}
	decaying := lasso("dense")
	decaying.Reg = plan.Component{Kind: registry.Regularizer, Name: "l1", Params: map[string]any{
		"lambda": schedules.Geometric{Start: 0.1, Factor: 0.7, Every: 1}}}
	return map[string]plan.Problem{
		"decaying":      decaying,
		"dense":         lasso("dense"),
		"unregularized": unregularized,
		"sparse":        lasso("sparse"),
		"neural": {
			Data: plan.Component{Kind: registry.Dataset, Name: "sparse_federated", Params: map[string]any{
				"task": "classification", "format": "dense", "clients": 6, "samples": 10, "test_samples": 4, "dim": 40, "nnz": 8}},
			Loss: plan.Component{Kind: registry.Loss, Name: "mlp", Params: map[string]any{"hidden": []float64{5}}},
		},
	}
}

// minimalParams gives an algorithm's required parameters a value: a small
// step for numbers and schedules, the first choice of a string.
func minimalParams(t *testing.T, name string) map[string]any {
	spec, ok := registry.Lookup(registry.Algorithm, name)
	if !ok {
		t.Fatalf("algorithm %q is listed but not found", name)
	}
	params := map[string]any{}
	for _, p := range spec.Params {
		if !p.Required() {
			continue
		}
		switch {
		case p.Type == registry.Float || p.Type == registry.Sched:
			params[p.Name] = 0.01
		case p.Type == registry.String && len(p.Choices) > 0:
			params[p.Name] = p.Choices[0]
		default:
			t.Fatalf("algorithm %q: give its required parameter %q (%v) a value in minimalParams", name, p.Name, p.Type)
		}
	}
	return params
}

// checkpointAt runs job j to its end, keeping the checkpoint written after
// round r; it returns the result and the checkpoint.
func checkpointAt(t *testing.T, j experiment.Job, r int) (*core.Result, []byte) {
	var ckpt []byte
	s := settings(j)
	s.Checkpoint = func(done int, save func(io.Writer) error) error {
		if done != r {
			return nil
		}
		var b bytes.Buffer
		if err := save(&b); err != nil {
			return err
		}
		ckpt = b.Bytes()
		return nil
	}
	return core.Run(j.Problem, build(t, j), s, j.Metrics), ckpt
}

func settings(j experiment.Job) core.Settings {
	s := j.Settings
	s.Seed, s.Workers, s.CheckpointKey, s.AlgorithmName = j.Seed, 2, j.Key, j.Algorithm
	return s
}

func build(t *testing.T, j experiment.Job) core.Algorithm {
	alg, err := registry.BuildArgs[core.Algorithm](j.Args)
	if err != nil {
		t.Fatal(err)
	}
	return alg
}

// sameResult fails unless got equals want bit for bit: status, error,
// records (rounds, counts, values) and final model.
func sameResult(t *testing.T, what string, got, want *core.Result) {
	t.Helper()
	if got.Status != want.Status || got.Err != want.Err || got.DivergedAt != want.DivergedAt {
		t.Fatalf("%s: %s %q at %d, uninterrupted %s %q at %d", what, got.Status, got.Err, got.DivergedAt, want.Status, want.Err, want.DivergedAt)
	}
	if !bitsEqual(got.Model, want.Model) {
		t.Fatalf("%s: final model differs from the uninterrupted run's", what)
	}
	if len(got.Records) != len(want.Records) {
		t.Fatalf("%s: %d records, uninterrupted %d", what, len(got.Records), len(want.Records))
	}
	for k, rec := range got.Records {
		w := want.Records[k]
		if rec.Round != w.Round || rec.Up != w.Up || rec.Down != w.Down || rec.CommRounds != w.CommRounds ||
			rec.Samples != w.Samples || !bitsEqual(rec.Values, w.Values) {
			t.Fatalf("%s: record %d: %+v, uninterrupted %+v", what, k, rec, w)
		}
	}
}

func bitsEqual(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// checkpointCase is a problem and its system effects.
type checkpointCase struct {
	name     string
	problem  plan.Problem
	system   plan.System
	perRound int              // clients per round (0: all, for the algorithms that need every client)
	algs     []plan.Algorithm // nil: every registered algorithm with minimalParams
}

func checkpointCases() []checkpointCase {
	ps := checkpointProblems()
	var cases []checkpointCase
	for _, name := range []string{"dense", "neural", "sparse", "unregularized"} {
		cases = append(cases, checkpointCase{name: name, problem: ps[name], perRound: map[string]int{"dense": 4, "sparse": 4}[name]})
	}
	cases = append(cases, checkpointCase{name: "decaying", problem: ps["decaying"]})
	markov := plan.Component{Kind: registry.Availability, Name: "markov", Params: map[string]any{"p_off": 0.3, "p_on": 0.6}}
	topk := plan.Component{Kind: registry.Compressor, Name: "top_k", Params: map[string]any{"k": 5, "error_feedback": true}}
	down := plan.Component{Kind: registry.Compressor, Name: "top_k", Params: map[string]any{"k": 7}}
	straggle := plan.Component{Kind: registry.Availability, Name: "pareto", Params: map[string]any{}}
	dp := plan.Component{Kind: registry.Privacy, Name: "gaussian", Params: map[string]any{"clip": 1.0, "noise": 0.5, "local_noise": 0.1}}
	cases = append(cases, checkpointCase{name: "dense+effects", problem: ps["unregularized"],
		system: plan.System{Availability: &markov, CompressUp: &topk, Privacy: &dp}, perRound: 4},
		checkpointCase{name: "dense+stragglers", problem: ps["dense"], system: plan.System{Availability: &straggle}, perRound: 4},
		checkpointCase{name: "dense+downlink", problem: ps["dense"], system: plan.System{CompressDown: &down, CompressUp: &topk}})
	return cases
}

// checkpointVariants are parameter settings whose state the defaults do
// not reach: server optimizers with state, FedPD's skipped rounds and
// oracle II, stages and restarts that fall on both sides of the
// checkpoint, time averages, anchor batches, other preconditioners and
// estimators, and the centralized baselines.
func checkpointVariants() []checkpointCase {
	ps := checkpointProblems()
	v := func(problem, name string, params map[string]any) checkpointCase {
		return checkpointCase{name: problem, problem: ps[problem],
			algs: []plan.Algorithm{{Component: plan.Component{Kind: registry.Algorithm, Name: name, Params: params}}}}
	}
	return []checkpointCase{
		v("dense", "fedavg", map[string]any{"server": "momentum"}),
		v("dense", "fedavg", map[string]any{"server": "yogi"}),
		v("dense", "fedavg", map[string]any{"server": "adagrad"}),
		v("dense", "fedmid", map[string]any{"server": "momentum"}),
		v("dense", "fedpd", map[string]any{"p": 0.5, "oracle": "II", "period": 2}),
		v("dense", "fedpd", map[string]any{"p": 0.4, "order": "matlab"}),
		v("dense", "dfedda", map[string]any{"output": "average"}),
		v("dense", "dfedda_gt", map[string]any{"output": "average"}),
		v("unregularized", "mrefedda_gt", map[string]any{"Q": 0.01, "stage_rounds": 2, "sparsity": 5, "restart": "average"}),
		v("unregularized", "mrefedda_gt", map[string]any{"Q": 4.0, "stage_rounds": 3, "restart": "last"}),
		v("dense", "mcfedda", map[string]any{"L": 10.0, "stage_rounds": []float64{2, 2}}),
		v("dense", "mcfedda", map[string]any{"L": 10.0, "stage_rounds": []float64{4}, "model": "average"}),
		v("dense", "cfedda", map[string]any{"L": 10.0, "model": "average"}),
		v("decaying", "cfedda", map[string]any{"L": 10.0}),
		v("dense", "fastfedda", map[string]any{"L": 10.0}),
		v("decaying", "fastfedda", map[string]any{"L": 10.0}),
		v("decaying", "feddualavg", map[string]any{"eta_c": 0.05}),
		v("dense", "fedda_1_2", map[string]any{"lr": 0.01}),
		v("dense", "centralized", map[string]any{"method": "pgd"}),
		v("dense", "centralized", map[string]any{"eta": 0.01}),
		v("dense", "mime_mvr", map[string]any{"anchor_batches": 2}),
		v("dense", "fedprox", map[string]any{"solver": "sarah"}),
		v("dense", "fedda", map[string]any{"precond": "norm", "bias_correction": true}),
		v("dense", "fedda", map[string]any{"precond": "identity", "estimator": "momentum"}),
		v("dense", "fedda", map[string]any{"estimator": "sgd"}),
	}
}

// TestContinuationEqualsUninterruptedRun walks the registry: every
// algorithm, with its defaults (a small step where one is required), on a
// dense, a sparse, an unregularized and a neural problem, and under system
// effects (a decaying λ, Markov dropout, top-k uplink compression with error feedback
// and client-level DP; stragglers; downlink compression), 2 seeds (1 under -short), and
// the parameter variants of checkpointVariants: a run checkpointed after
// round 3 of 7 and a fresh engine resumed from that checkpoint end with
// the records (counts, bits and ε included) and the model of the
// uninterrupted run, bit for bit, alone and in a cohort of resumed and
// fresh runs, whose fresh members write the very checkpoint written alone. A job refused when it is planned (an effect the algorithm
// does not take) is skipped with its reason; every algorithm must be
// checked on at least one problem, and none may lack a declared state.
func TestContinuationEqualsUninterruptedRun(t *testing.T) {
	names := registry.Names(registry.Algorithm)
	var all []plan.Algorithm
	for _, name := range names {
		all = append(all, plan.Algorithm{Component: plan.Component{Kind: registry.Algorithm, Name: name, Params: minimalParams(t, name)}})
	}
	checked := map[string]int{}
	var refused, undeclared []string
	seeds := []uint64{1, 2}
	if testing.Short() {
		seeds = seeds[:1] // -short: every algorithm and case, one seed
	}
	for _, cs := range append(checkpointCases(), checkpointVariants()...) {
		algs := cs.algs
		if algs == nil {
			algs = all
		}
		b := plan.NewBuilder()
		base := core.Settings{Rounds: 7, ClientsPerRound: cs.perRound, LocalEpochs: 1, Batch: 3, EvalEvery: 2}
		metrics := []plan.Component{{Kind: registry.Metric, Name: "objective"}, {Kind: registry.Metric, Name: "test_loss"},
			{Kind: registry.Metric, Name: "bits_up"}, {Kind: registry.Metric, Name: "bits_down"}, {Kind: registry.Metric, Name: "epsilon"}}
		var jobs []experiment.Job
		for _, alg := range algs {
			for k, v := range minimalParams(t, alg.Name) {
				if _, ok := alg.Params[k]; !ok {
					alg.Params[k] = v
				}
			}
			cmp := plan.Compare{Problem: cs.problem, Settings: base, Metrics: metrics, Seeds: seeds, System: cs.system,
				Algorithms: []plan.Algorithm{alg}}
			js, err := b.Compare(cmp)
			if err != nil {
				if cs.algs != nil {
					t.Fatalf("variant %s %v on %s: %v", alg.Name, alg.Params, cs.name, err)
				}
				refused = append(refused, fmt.Sprintf("%s on %s: %v", alg.Name, cs.name, err))
				continue
			}
			jobs = append(jobs, js...)
		}
		var members []core.Member
		var wants []*core.Result
		var ckpts [][]byte     // per fresh member: the checkpoint written alone
		var inCohort []*[]byte // per member: the checkpoint written in the cohort (members run concurrently)
		for _, j := range jobs {
			what := fmt.Sprintf("%s %v seed %d on %s", j.Algorithm, j.Params, j.Seed, cs.name)
			want := core.Run(j.Problem, build(t, j), settings(j), j.Metrics)
			at := 3
			full, ckpt := checkpointAt(t, j, at)
			if ckpt == nil && want.Status == core.Diverged && want.DivergedAt >= 2 {
				at = 1 // a run that diverges sooner continues to its divergence
				full, ckpt = checkpointAt(t, j, at)
			}
			if full.Status == core.Failed && strings.Contains(full.Err, "does not declare its state") {
				undeclared = append(undeclared, what+": "+full.Err)
				continue
			}
			sameResult(t, what+" (checkpointing)", full, want)
			if ckpt == nil {
				if cs.algs != nil {
					t.Fatalf("variant %s: %s: %s", what, want.Status, want.Err)
				}
				t.Logf("%s: %s before the checkpoint: %s", what, want.Status, want.Err)
				continue
			}
			s := settings(j)
			s.Resume = ckpt
			sameResult(t, what+" (resumed)", core.Run(j.Problem, build(t, j), s, j.Metrics), want)
			fresh, slot := settings(j), new([]byte)
			fresh.Checkpoint = func(d int, save func(io.Writer) error) error {
				if d != at {
					return nil
				}
				var b bytes.Buffer
				err := save(&b)
				*slot = b.Bytes()
				return err
			}
			members = append(members, core.Member{Alg: build(t, j), Settings: s}, core.Member{Alg: build(t, j), Settings: fresh})
			wants = append(wants, want, want)
			ckpts = append(ckpts, nil, ckpt)
			inCohort = append(inCohort, nil, slot)
			checked[j.Algorithm]++
		}
		if len(members) == 0 {
			continue
		}
		for k, r := range core.RunCohort(jobs[0].Problem, members, jobs[0].Metrics) {
			sameResult(t, fmt.Sprintf("cohort member %d on %s", k, cs.name), r, wants[k])
			if ckpts[k] != nil && !bytes.Equal(*inCohort[k], ckpts[k]) {
				t.Fatalf("cohort member %d on %s: its checkpoint differs from the one written alone", k, cs.name)
			}
		}
	}
	var unchecked []string
	for _, name := range names {
		if checked[name] == 0 {
			unchecked = append(unchecked, name)
		}
	}
	t.Logf("%d algorithms; runs checked per algorithm: %v; jobs refused when planned:\n  %s", len(names), checked, strings.Join(refused, "\n  "))
	if len(undeclared) > 0 {
		t.Errorf("algorithms that do not declare their state (skipped):\n  %s", strings.Join(undeclared, "\n  "))
	}
	if len(unchecked) > 0 {
		t.Errorf("algorithms checked on none of the problems: %v", unchecked)
	}
}
