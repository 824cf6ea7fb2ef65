package layers

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/fedlab/fedlab/algorithms"
	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
	_ "github.com/fedlab/fedlab/fedlabtest"
	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/rundir"
)

// traced is the experiment.Store of a run directory with the stack of
// every entry into it by which a run's state or result reaches the disk:
// a checkpoint (Checkpoints().Save), a rung state (the KeepState the
// directory extends in Plan) and a completed run (Save).
type traced struct {
	*rundir.Dir
	mu     sync.Mutex
	stacks map[string][][]string // by entry: the module's functions on the stack, outermost first
}

// record keeps the stack of the entry what, from the test down to the
// caller of the traced method.
func (s *traced) record(what string) {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs)])
	var fns []string
	for {
		f, more := frames.Next()
		if fn, ok := strings.CutPrefix(f.Function, module); ok {
			fns = append([]string{fn}, fns...)
		}
		if !more {
			break
		}
	}
	s.mu.Lock()
	s.stacks[what] = append(s.stacks[what], fns)
	s.mu.Unlock()
}

func (s *traced) Plan(c experiment.Call, jobs, todo []experiment.Job) error {
	err := s.Dir.Plan(c, jobs, todo)
	for i := range todo {
		if keep := todo[i].KeepState; keep != nil {
			todo[i].KeepState = func(st *experiment.State) { s.record("rung state"); keep(st) }
		}
	}
	return err
}

func (s *traced) Checkpoints() experiment.Checkpoints {
	return tracedCheckpoints{s.Dir.Checkpoints(), s}
}

func (s *traced) Save(j *experiment.Job, r experiment.Run) error {
	s.record("result")
	return s.Dir.Save(j, r)
}

type tracedCheckpoints struct {
	experiment.Checkpoints
	s *traced
}

func (c tracedCheckpoints) Save(j *experiment.Job, done int, elapsed time.Duration, data []byte) error {
	c.s.record("checkpoint")
	return c.Checkpoints.Save(j, done, elapsed, data)
}

// packageOf is the package (relative to the module) of a function name
// relative to the module, e.g. experiment for experiment.(*Session).ExecuteCall.
func packageOf(fn string) string {
	dir, name := "", fn
	if i := strings.LastIndex(fn, "/"); i >= 0 {
		dir, name = fn[:i+1], fn[i+1:]
	}
	name, _, _ = strings.Cut(name, ".")
	return dir + name
}

// TestACheckpointAndAHalvingRungReachTheDiskWithoutCallingBackUp traces
// the rung of a halving sweep (experiment.Rungs on an experiment.Session)
// whose runs take checkpoints and keep their final states, executed in a
// run directory (rundir.Dir as the session's Store), from the call to
// the disk: at each entry into the directory by which a checkpoint, a
// rung state or a result is written, every function of the module on the
// stack between the call and the directory is of a layer below the
// directory's (execution and the engine), so the directory is entered once
// on the way down and no storage code runs above it; and the files are on
// disk, recorded in the manifest. Checkpoints and rung states are written
// from the goroutines that experiment.Execute starts for the runs (their
// stacks begin there; the engine hands them over through the hooks of its
// settings, which experiment sets), results from the session's goroutine.
func TestACheckpointAndAHalvingRungReachTheDiskWithoutCallingBackUp(t *testing.T) {
	f, err := os.Open(doc)
	if err != nil {
		t.Fatal(err)
	}
	layers, err := readLayers(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	layerOf := func(path string) int {
		for _, l := range layers {
			for _, p := range l.patterns {
				if matches(p, path) {
					return l.n
				}
			}
		}
		return 0
	}
	out := t.TempDir()
	d, err := rundir.OpenDir(out, rundir.DirOptions{Script: rundir.Script{Path: "halving.lua", SHA256: strings.Repeat("a", 64)}})
	if err != nil {
		t.Fatal(err)
	}
	store := &traced{Dir: d, stacks: map[string][][]string{}}
	session := experiment.NewSession(store, experiment.SessionOptions{Jobs: 1, CheckpointEvery: time.Nanosecond})
	jobs := rungJobs(t, 8)
	kept := 0
	for i := range jobs {
		jobs[i].KeepState = func(*experiment.State) { kept++ }
	}
	rungs := experiment.Rungs(session, experiment.Call{Function: "fedlab.sweep", Where: "halving.lua:1"})
	if _, err := rungs.ExecuteRung(experiment.Rung{Index: 1, Of: 2, Rounds: 8}, jobs); err != nil {
		t.Fatal(err)
	}
	if err := session.Finish(nil); err != nil {
		t.Fatal(err)
	}
	storage := layerOf("rundir")
	for _, what := range []string{"checkpoint", "rung state", "result"} {
		if len(store.stacks[what]) == 0 {
			t.Errorf("no %s reached the run directory", what)
		}
		for _, fns := range store.stacks[what] {
			for _, fn := range fns {
				if p := packageOf(fn); p != "internal/layers" && layerOf(p) >= storage {
					t.Errorf("a %s reaches the directory through %s (layer %d, the directory's is %d): the path calls back up\n%s",
						what, fn, layerOf(p), storage, strings.Join(fns, "\n"))
				}
			}
		}
	}
	if kept != len(jobs) {
		t.Errorf("%d of %d runs kept their final states", kept, len(jobs))
	}
	m, _, err := rundir.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	if m.Status != rundir.StatusComplete || len(m.Calls) != 1 || m.Calls[0].Rung == nil || m.Calls[0].Rung.Index != 1 {
		t.Fatalf("manifest: status %s, calls %+v", m.Status, m.Calls)
	}
	for _, j := range jobs {
		if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(m.Runs[j.Key].Result))); err != nil {
			t.Errorf("run %s: its result is not on disk: %v", j.Key, err)
		}
	}
}

// rungJobs plans two fedavg runs (seeds 1 and 2) of the given rounds on
// test_data.
func rungJobs(t *testing.T, rounds int) []experiment.Job {
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
	base := experiment.Base{Problem: p,
		ProblemID: experiment.ProblemID{Data: experiment.NewComponent("test_data", nil), Loss: experiment.NewComponent("test_squared", nil),
			Reg: experiment.NewComponent("test_l1", map[string]any{"lambda": 0.01})},
		Settings: core.Settings{Rounds: rounds, ClientsPerRound: 2, LocalSteps: 2, Batch: 2, EvalEvery: 4},
		Metrics:  []core.Metric{obj}, MetricIDs: []experiment.Component{experiment.NewComponent("test_objective", nil)}}
	jobs, err := experiment.Jobs(base, experiment.AlgoSpec{Name: "fedavg", Params: map[string]any{"eta_c": 0.05}}, nil, []uint64{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}
