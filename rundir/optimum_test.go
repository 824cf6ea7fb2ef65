package rundir

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/losses"
	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/regularizers"
	"github.com/fedlab/fedlab/schedules/sched"
)

// countingStore counts what the problem asked of the directory's store: a
// stored reference means a solve ran.
type countingStore struct {
	core.ReferenceStore
	loaded, stored atomic.Int32
}

func (c *countingStore) LoadReference(lambda float64, solver string, s core.SolveSettings) (*core.Reference, bool, error) {
	ref, ok, err := c.ReferenceStore.LoadReference(lambda, solver, s)
	if ok {
		c.loaded.Add(1)
	}
	return ref, ok, err
}

func (c *countingStore) StoreReference(ref *core.Reference, s core.SolveSettings) error {
	c.stored.Add(1)
	return c.ReferenceStore.StoreReference(ref, s)
}

// lassoProblem is a fresh test problem (its own reference cache) with
// penalty weight lambda, and its identity.
func lassoProblem(t testing.TB, lambda float64) (*core.Problem, experiment.ProblemID) {
	t.Helper()
	data, err := registry.Build[*core.Federated](registry.Dataset, "test_data", nil)
	if err != nil {
		t.Fatal(err)
	}
	loss, _ := registry.Build[core.Loss](registry.Loss, "test_squared", nil)
	pen, _ := registry.Build[core.Penalty](registry.Regularizer, "test_l1", map[string]any{"lambda": lambda})
	p, err := core.NewProblem(data, loss, pen, nil)
	if err != nil {
		t.Fatal(err)
	}
	id := experiment.ProblemID{Data: experiment.NewComponent("test_data", nil),
		Loss: experiment.NewComponent("test_squared", nil), Reg: experiment.NewComponent("test_l1", map[string]any{"lambda": lambda})}
	return p, id
}

// referenceSession opens a session on dir, solves (or reads) the reference
// of the problem with λ = lambda and finishes the session.
func referenceSession(t *testing.T, dir string, lambda float64) (*core.Reference, *countingStore) {
	t.Helper()
	d, err := Open(dir, Options{Script: script})
	if err != nil {
		t.Fatal(err)
	}
	p, id := lassoProblem(t, lambda)
	store := &countingStore{ReferenceStore: d.ReferenceStore(id)}
	p.RefStore = store
	ref, err := p.Reference()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Finish(nil); err != nil {
		t.Fatal(err)
	}
	return ref, store
}

func TestStoredOptimumIsReusedAndInvalidatedByAChangedProblem(t *testing.T) {
	dir := t.TempDir()
	first, s := referenceSession(t, dir, 0.01)
	if s.stored.Load() != 1 || s.loaded.Load() != 0 {
		t.Fatalf("first session: %d solves, %d stored optima read; want 1 and 0", s.stored.Load(), s.loaded.Load())
	}
	p, _ := lassoProblem(t, 0.01)
	solved, err := p.Reference() // no store: today's solve
	if err != nil {
		t.Fatal(err)
	}
	if first.Objective != solved.Objective || first.Iters != solved.Iters || first.Residual > 1e-8 {
		t.Fatalf("stored solve %+v differs from a plain solve %+v", first, solved)
	}

	again, s := referenceSession(t, dir, 0.01)
	if s.stored.Load() != 0 || s.loaded.Load() != 1 {
		t.Fatalf("resumed session: %d solves, %d stored optima read; want 0 and 1", s.stored.Load(), s.loaded.Load())
	}
	if again.Objective != first.Objective || again.Iters != first.Iters || again.Change != first.Change ||
		again.Residual != first.Residual || again.Solver != first.Solver || len(again.W) != len(first.W) {
		t.Fatalf("read back %+v, stored %+v", again, first)
	}
	for i := range first.W {
		if again.W[i] != first.W[i] {
			t.Fatalf("w[%d] read back as %v, stored %v", i, again.W[i], first.W[i])
		}
	}

	changed, s := referenceSession(t, dir, 0.02)
	if s.stored.Load() != 1 || s.loaded.Load() != 0 {
		t.Fatalf("changed problem: %d solves, %d stored optima read; want 1 and 0", s.stored.Load(), s.loaded.Load())
	}
	if changed.Objective == first.Objective || changed.Lambda != 0.02 {
		t.Fatalf("the changed problem got the old optimum: %+v", changed)
	}
	files, _ := filepath.Glob(filepath.Join(dir, OptimaDir, "*.json"))
	if len(files) != 2 {
		t.Fatalf("optima: %v, want one file per problem", files)
	}
}

func TestDamagedStoredOptimumIsNamed(t *testing.T) {
	dir := t.TempDir()
	referenceSession(t, dir, 0.01)
	files, _ := filepath.Glob(filepath.Join(dir, OptimaDir, "*.json"))
	if len(files) != 1 {
		t.Fatalf("optima: %v", files)
	}
	if err := os.WriteFile(files[0], []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	recordOptimum(t, dir, filepath.Base(files[0])) // damaged with its record: not an edit fedlab can tell from its own file
	d, err := Open(dir, Options{Script: script})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Finish(nil) //nolint:errcheck
	p, id := lassoProblem(t, 0.01)
	p.RefStore = d.ReferenceStore(id)
	_, err = p.Reference()
	if err == nil || !strings.Contains(err.Error(), files[0]+" is not a stored optimum") || !strings.Contains(err.Error(), "delete it to solve again") {
		t.Fatalf("error %v, want one naming %s", err, files[0])
	}
}

func TestMergeCopiesStoredOptima(t *testing.T) {
	jobs := sweepJobs(t)
	a, b, out := t.TempDir(), t.TempDir(), filepath.Join(t.TempDir(), "merged")
	for i, dir := range []string{a, b} {
		d, err := Open(dir, Options{Script: script, Shard: Shard{Index: i, Count: 2}})
		if err != nil {
			t.Fatal(err)
		}
		p, id := lassoProblem(t, 0.01*float64(i+1))
		p.RefStore = d.ReferenceStore(id)
		if _, err := p.Reference(); err != nil {
			t.Fatal(err)
		}
		_, err = d.Execute("fedlab.sweep", "sweep.lua:3", rules, jobs)
		if _, ferr := d.Finish(err); ferr != nil {
			t.Fatal(ferr)
		}
	}
	if _, err := Merge(out, []string{a, b}); err != nil {
		t.Fatal(err)
	}
	for _, lambda := range []float64{0.01, 0.02} {
		_, s := referenceSession(t, out, lambda)
		if s.stored.Load() != 0 || s.loaded.Load() != 1 {
			t.Fatalf("merged directory, λ = %g: %d solves, %d stored optima read; want 0 and 1", lambda, s.stored.Load(), s.loaded.Load())
		}
	}
}

// TestStoredOptimumIsKeyedBySolver: an optimum is stored under the solver
// that produced it (core.SolverFor of the problem), with its certificate;
// the optimum of one solver is not read for another, and a certificate
// that is not finite is stored as absent and read back as +Inf.
func TestStoredOptimumIsKeyedBySolver(t *testing.T) {
	dir := t.TempDir()
	d, err := Open(dir, Options{Script: script})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Finish(nil) //nolint:errcheck
	p, id := lassoProblem(t, 0.01)
	solved, err := p.Reference()
	if err != nil {
		t.Fatal(err)
	}
	if solved.Solver != core.SolverFISTA || solved.Solver != core.SolverFor(p, p.Penalty.At(0, p.Layout)) {
		t.Fatalf("the test problem was solved by %q", solved.Solver)
	}
	store := d.ReferenceStore(id)
	cd := *solved
	cd.Solver, cd.Residual, cd.Objective = core.SolverCD, 3e-9, solved.Objective+1e-12
	fista := *solved
	fista.Residual = math.Inf(1)
	set := core.SolveSettings{MaxIters: 100, Tol: 1e-8}
	for _, ref := range []*core.Reference{&cd, &fista} {
		if err := store.StoreReference(ref, set); err != nil {
			t.Fatal(err)
		}
	}
	if files, _ := filepath.Glob(filepath.Join(dir, OptimaDir, "*.json")); len(files) != 2 {
		t.Fatalf("optima: %v, want one file per solver", files)
	}
	for _, want := range []*core.Reference{&cd, &fista} {
		got, ok, err := store.LoadReference(0.01, want.Solver, set)
		if err != nil || !ok {
			t.Fatalf("%s: ok %v, error %v", want.Solver, ok, err)
		}
		if got.Solver != want.Solver || got.Residual != want.Residual || got.Objective != want.Objective || got.Change != want.Change {
			t.Fatalf("%s: read back %+v, stored %+v", want.Solver, got, want)
		}
	}
	if _, ok, err := store.LoadReference(0.01, "another-solver", set); ok || err != nil {
		t.Fatalf("another solver: ok %v, error %v; want no stored optimum", ok, err)
	}
	if _, ok, err := store.LoadReference(0.01, core.SolverCD, core.SolveSettings{MaxIters: 100, Tol: 1e-10}); ok || err != nil {
		t.Fatalf("another tolerance: ok %v, error %v; want no stored optimum", ok, err)
	}
}

// TestStoredOptimumOfCoordinateDescent: a least-squares LASSO is solved by
// coordinate descent, stored under that solver with its certificate, and
// read back (no solve) by the next session.
func TestStoredOptimumOfCoordinateDescent(t *testing.T) {
	dir := t.TempDir()
	session := func() (*core.Reference, *countingStore) {
		d, err := Open(dir, Options{Script: script})
		if err != nil {
			t.Fatal(err)
		}
		data, err := registry.Build[*core.Federated](registry.Dataset, "test_data", nil)
		if err != nil {
			t.Fatal(err)
		}
		p, err := core.NewProblem(data, losses.Squared{Intercept: true},
			core.Penalty{Name: "l1", Reg: regularizers.L1{}, Lambda: sched.Constant(0.01)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		id := experiment.ProblemID{Data: experiment.NewComponent("test_data", nil),
			Loss: experiment.NewComponent("squared", nil), Reg: experiment.NewComponent("l1", map[string]any{"lambda": 0.01})}
		store := &countingStore{ReferenceStore: d.ReferenceStore(id)}
		p.RefStore = store
		ref, err := p.Reference()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := d.Finish(nil); err != nil {
			t.Fatal(err)
		}
		return ref, store
	}
	first, s := session()
	if s.stored.Load() != 1 || first.Solver != core.SolverCD || first.Residual > 1e-8 {
		t.Fatalf("first session: %d solves, solver %q, certificate %g", s.stored.Load(), first.Solver, first.Residual)
	}
	again, s := session()
	if s.stored.Load() != 0 || s.loaded.Load() != 1 || again.Solver != core.SolverCD || again.Residual != first.Residual ||
		again.Objective != first.Objective || again.Iters != first.Iters {
		t.Fatalf("second session: %d solves, %d read; read back %+v, stored %+v", s.stored.Load(), s.loaded.Load(), again, first)
	}
}

// recordOptimum makes dir's manifest record the stored optimum name as
// it is now (what an edit of both would do).
func recordOptimum(t *testing.T, dir, name string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, OptimaDir, name))
	if err != nil {
		t.Fatal(err)
	}
	sum := sumOf(b)
	m, ok, err := ReadManifest(dir)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	m.Optima[name] = &sum
	if err := m.write(dir); err != nil {
		t.Fatal(err)
	}
}
