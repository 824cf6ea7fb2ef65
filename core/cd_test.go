package core_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/losses"
	"github.com/fedlab/fedlab/regularizers"
	"github.com/fedlab/fedlab/schedules/sched"
)

// regression returns clients of the given sizes with d Gaussian features
// shifted by a client mean (correlated columns, as the FCO LASSO data),
// a zero fraction of the features set to 0, and y = xᵀw* + 0.5 + noise
// with w* supported on the first d/4 coordinates.
func regression(seed uint64, sizes []int, d int, zeros float64) *core.Federated {
	rng := rand.New(rand.NewPCG(seed, 1))
	f := &core.Federated{Name: "regression", Features: d}
	for _, n := range sizes {
		mu := rng.NormFloat64()
		x, y := make([]float64, n*d), make([]float64, n)
		for i := range n {
			for j := range d {
				if rng.Float64() >= zeros {
					x[i*d+j] = mu + rng.NormFloat64()
				}
				if j < d/4 {
					y[i] += x[i*d+j]
				}
			}
			y[i] += 0.5 + 0.3*rng.NormFloat64()
		}
		f.Train = append(f.Train, &core.Data{X: x, Y: y, N: n, Features: d})
	}
	return f
}

// lasso returns the problem of f with the given loss and penalty λ·reg.
func lasso(t *testing.T, f *core.Federated, loss core.Loss, reg core.Regularizer, lambda float64) (*core.Problem, core.Psi) {
	t.Helper()
	p, err := core.NewProblem(f, loss, core.Penalty{Name: "test", Reg: reg, Lambda: sched.Constant(lambda)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p, p.Penalty.At(0, p.Layout)
}

// sparse returns f with every client stored in compressed rows.
func sparse(f *core.Federated) *core.Federated {
	out := *f
	out.Train = nil
	for _, d := range f.Train {
		out.Train = append(out.Train, d.ToSparse())
	}
	return &out
}

// relDiff is |a − b| / max(1, |b|).
func relDiff(a, b float64) float64 { return math.Abs(a-b) / math.Max(1, math.Abs(b)) }

// cases are least-squares problems coordinate descent solves: each loss
// scaling and intercept choice, client weights 1/M and n_m/n, ℓ1 and
// elastic net.
type cdCase struct {
	name     string
	loss     losses.Squared
	reg      core.Regularizer
	lambda   float64
	bySample bool
}

func cdCases() []cdCase {
	return []cdCase{
		{"mse+intercept l1", losses.Squared{Intercept: true}, regularizers.L1{}, 0.3, false},
		{"half, no intercept, l1", losses.Squared{Half: true}, regularizers.L1{}, 0.05, false},
		{"by samples, l1", losses.Squared{Half: true, Intercept: true}, regularizers.L1{}, 0.1, true},
		{"elastic net", losses.Squared{Intercept: true}, regularizers.ElasticNet{L1Ratio: 0.6}, 0.2, false},
	}
}

// TestCoordinateDescentMatchesFISTA: on each case Solve picks coordinate
// descent, and it and restarted FISTA both meet the certificate, agree on
// the objective to 1e-10 relative and on the solution (the problems are
// strongly convex: n > d with full-rank designs).
func TestCoordinateDescentMatchesFISTA(t *testing.T) {
	f := regression(1, []int{30, 50, 20}, 12, 0.2)
	for _, c := range cdCases() {
		p, psi := lasso(t, f, c.loss, c.reg, c.lambda)
		p.WeightBySamples = c.bySample
		set := core.SolveSettings{Tol: 1e-10}
		cd, err := core.Solve(p, psi, nil, set)
		if err != nil {
			t.Fatal(err)
		}
		fista, err := core.SolveFISTA(p, psi, nil, set)
		if err != nil {
			t.Fatal(err)
		}
		if cd.Solver != core.SolverCD || core.SolverFor(p, psi) != core.SolverCD || fista.Solver != core.SolverFISTA {
			t.Fatalf("%s: solvers %q and %q", c.name, cd.Solver, fista.Solver)
		}
		for _, r := range []*core.Reference{cd, fista} {
			k, fw := core.Certificate(p, psi, r.W)
			if r.Residual > 1e-10 || k != r.Residual || relDiff(fw+psi.Value(r.W), r.Objective) > 1e-15 {
				t.Fatalf("%s, %s: recorded certificate %g, objective %v; at W: %g, %v", c.name, r.Solver, r.Residual, r.Objective, k, fw+psi.Value(r.W))
			}
		}
		if d := relDiff(cd.Objective, fista.Objective); d > 1e-10 {
			t.Fatalf("%s: objectives %.16g (CD) and %.16g (FISTA) differ by %g relative", c.name, cd.Objective, fista.Objective, d)
		}
		if d := floats.Distance(cd.W, fista.W, math.Inf(1)); d > 1e-8 {
			t.Fatalf("%s: solutions differ by %g", c.name, d)
		}
	}
}

// TestLassoKKT checks the optimality conditions of the LASSO at the
// coordinate-descent solution: with g = ∇F(w), |g_j| ≤ λ for every
// coordinate, g_j = −λ·sign(w_j) on the support, and a zero intercept
// derivative; and that the duality gap, computed from the dual point
// built from the residual, is at most 1e-9 of Φ.
func TestLassoKKT(t *testing.T) {
	f := regression(2, []int{40, 25, 35}, 16, 0)
	const lambda = 0.2
	loss := losses.Squared{Intercept: true}
	p, psi := lasso(t, f, loss, regularizers.L1{}, lambda)
	ref, err := core.Solve(p, psi, nil, core.SolveSettings{Tol: 1e-12})
	if err != nil {
		t.Fatal(err)
	}
	g := make([]float64, p.Dim())
	p.Smooth(loss.NewEvaluator(p.Layout), ref.W, false, g, make([]float64, p.Dim()))
	kernel, _ := p.Layout.Block(losses.KernelBlock)
	bias, _ := p.Layout.Block(losses.BiasBlock)
	support := 0
	for j, w := range kernel.Of(ref.W) {
		gj := kernel.Of(g)[j]
		switch {
		case math.Abs(gj) > lambda*(1+1e-10):
			t.Fatalf("|g_%d| = %.15g > λ = %g", j, math.Abs(gj), lambda)
		case w != 0 && math.Abs(gj+lambda*math.Copysign(1, w)) > 1e-10*lambda:
			t.Fatalf("w_%d = %g but g_%d = %.15g, want −λ·sign(w) = %g", j, w, j, gj, -lambda*math.Copysign(1, w))
		case w != 0:
			support++
		}
	}
	if b := bias.Of(g)[0]; math.Abs(b) > 1e-10 {
		t.Fatalf("intercept derivative %g, want 0", b)
	}
	if support == 0 || support == kernel.Size() {
		t.Fatalf("support of %d of %d coordinates: the test needs a partly sparse solution", support, kernel.Size())
	}
	if gap := lassoGap(p, ref.W, lambda); gap < -1e-12 || gap > 1e-9*ref.Objective {
		t.Fatalf("duality gap %g at Φ = %g", gap, ref.Objective)
	}
}

// lassoGap returns Φ(w, b) − D(ν) for Φ = Σᵢ aᵢ rᵢ² + λ‖w‖₁ (plain MSE,
// client weights 1/M: aᵢ = 1/(M n_m)), whose Fenchel dual is
// D(ν) = −Σᵢ (νᵢ²/(4aᵢ) + νᵢ yᵢ) over ‖Xᵀν‖_∞ ≤ λ and Σᵢ νᵢ = 0. The dual
// point is ν = 2a∘(r − r̄) with the a-weighted mean r̄ (so Σν = 0), scaled
// into the ℓ∞ ball: a plain reference implementation, independent of the
// solvers, of the certificate scikit-learn's Lasso stops on.
func lassoGap(p *core.Problem, wb []float64, lambda float64) float64 {
	f := p.Data
	d := f.Features
	w, b := wb[:d], wb[d]
	var a, r, y []float64
	var rows [][]float64
	for _, part := range f.Train {
		for i := range part.N {
			a = append(a, 1/float64(f.Clients()*part.N))
			r = append(r, floats.Dot(part.Row(i), w)+b-part.Y[i])
			y = append(y, part.Y[i])
			rows = append(rows, part.Row(i))
		}
	}
	primal := floats.Norm(w, 1) * lambda
	for i := range r {
		primal += a[i] * r[i] * r[i]
	}
	mean := floats.Dot(a, r) / floats.Sum(a)
	nu := make([]float64, len(r))
	for i := range r {
		nu[i] = 2 * a[i] * (r[i] - mean)
	}
	xtnu := make([]float64, d)
	for i, row := range rows {
		floats.AddScaled(xtnu, nu[i], row)
	}
	if m := floats.Norm(xtnu, math.Inf(1)); m > lambda {
		floats.Scale(lambda/m, nu)
	}
	dual := 0.0
	for i := range nu {
		dual -= nu[i]*nu[i]/(4*a[i]) + nu[i]*y[i]
	}
	return primal - dual
}

// TestCoordinateDescentDenseEqualsSparse: the same data stored densely and
// in compressed rows (with a third of the features zero) give the same
// solution.
func TestCoordinateDescentDenseEqualsSparse(t *testing.T) {
	f := regression(3, []int{25, 40}, 20, 0.35)
	for _, c := range cdCases() {
		pd, psi := lasso(t, f, c.loss, c.reg, c.lambda)
		ps, psiS := lasso(t, sparse(f), c.loss, c.reg, c.lambda)
		pd.WeightBySamples, ps.WeightBySamples = c.bySample, c.bySample
		dense, err := core.Solve(pd, psi, nil, core.SolveSettings{Tol: 1e-11})
		if err != nil {
			t.Fatal(err)
		}
		sp, err := core.Solve(ps, psiS, nil, core.SolveSettings{Tol: 1e-11})
		if err != nil {
			t.Fatal(err)
		}
		if sp.Solver != core.SolverCD || sp.Residual > 1e-11 {
			t.Fatalf("%s: sparse solve by %s, certificate %g", c.name, sp.Solver, sp.Residual)
		}
		if d := floats.Distance(dense.W, sp.W, math.Inf(1)); d > 1e-9 || relDiff(dense.Objective, sp.Objective) > 1e-13 {
			t.Fatalf("%s: dense and sparse solutions differ by %g (objectives %.16g, %.16g)", c.name, d, dense.Objective, sp.Objective)
		}
	}
}

// TestCoordinateDescentOrthogonalDesign: with orthogonal columns that sum
// to zero (columns 2–4 of the 8×8 Hadamard matrix, XᵀX = 8I), the LASSO
// with ½-MSE and an intercept has the closed form b = ȳ, w_j =
// soft(x_jᵀy/n, λ) (for the elastic net, divided by 1 + λ(1−α)), which
// coordinate descent reaches in one sweep; a single feature is the 1-D case.
func TestCoordinateDescentOrthogonalDesign(t *testing.T) {
	h := [][]float64{
		{1, 1, 1}, {-1, 1, 1}, {1, -1, 1}, {-1, -1, 1},
		{1, 1, -1}, {-1, 1, -1}, {1, -1, -1}, {-1, -1, -1},
	}
	y := []float64{3, -1, 2, 0.5, 1.5, -2, 4, 1}
	for _, cols := range [][]int{{0, 1, 2}, {1}} {
		n, d := len(h), len(cols)
		x := make([]float64, 0, n*d)
		for _, row := range h {
			for _, j := range cols {
				x = append(x, row[j])
			}
		}
		f := &core.Federated{Name: "hadamard", Features: d, Train: []*core.Data{{X: x, Y: y, N: n, Features: d}}}
		for _, c := range []struct {
			reg      core.Regularizer
			l1, l2   float64
			lambda   float64
			name     string
			wantZero bool
		}{
			{regularizers.L1{}, 1, 0, 0.4, "l1", false},
			{regularizers.ElasticNet{L1Ratio: 0.5}, 0.5, 0.5, 0.6, "elastic net", false},
			{regularizers.L1{}, 1, 0, 10, "l1 above λ_max", true},
		} {
			p, psi := lasso(t, f, losses.Squared{Half: true, Intercept: true}, c.reg, c.lambda)
			ref, err := core.Solve(p, psi, nil, core.SolveSettings{Tol: 1e-13})
			if err != nil {
				t.Fatal(err)
			}
			if ref.Iters != 1 {
				t.Fatalf("%d features, %s: %d sweeps, want 1 (orthogonal columns decouple)", d, c.name, ref.Iters)
			}
			if want := floats.Sum(y) / float64(n); math.Abs(ref.W[d]-want) > 1e-15 {
				t.Fatalf("%d features, %s: intercept %v, want ȳ = %v", d, c.name, ref.W[d], want)
			}
			for k := range d {
				xy := 0.0
				for i := range n {
					xy += x[i*d+k] * y[i]
				}
				z := xy / float64(n)
				want := math.Copysign(max(math.Abs(z)-c.lambda*c.l1, 0), z) / (1 + c.lambda*c.l2)
				if math.Abs(ref.W[k]-want) > 1e-15 || (c.wantZero && ref.W[k] != 0) {
					t.Fatalf("%d features, %s: w_%d = %.17g, want soft(x_jᵀy/n, λ·l1)/(1 + λ·l2) = %.17g", d, c.name, k, ref.W[k], want)
				}
			}
		}
	}
}

// TestCoordinateDescentStopsWhenItsContextIsDone: --timeout reaches a
// coordinate-descent solve through SolveSettings.Context.
func TestCoordinateDescentStopsWhenItsContextIsDone(t *testing.T) {
	p, psi := lasso(t, regression(4, []int{30, 30}, 10, 0), losses.Squared{Intercept: true}, regularizers.L1{}, 0.1)
	ctx, cancel := context.WithCancelCause(context.Background())
	cause := errors.New("time limit 5s reached")
	cancel(cause)
	_, err := core.Solve(p, psi, nil, core.SolveSettings{Context: ctx})
	if !errors.Is(err, cause) || !strings.Contains(err.Error(), "reference solve stopped at sweep 1: time limit 5s reached") {
		t.Fatalf("error %v, want the solve stopped with the context's cause", err)
	}
}

// countdown is a context that becomes done at its (after+1)-th Err check
// (a --timeout that fires during a solve, deterministically).
type countdown struct {
	context.Context
	after int
	err   error
}

func (c *countdown) Err() error {
	if c.after--; c.after < 0 {
		return c.err
	}
	return nil
}

// TestSolveStopsInProgress: a context that is done after three sweeps or
// iterations stops both solvers at the fourth, with its error.
func TestSolveStopsInProgress(t *testing.T) {
	p, psi := lasso(t, regression(4, []int{30, 30}, 10, 0), losses.Squared{Intercept: true}, regularizers.L1{}, 0.01)
	stop := errors.New("time limit reached")
	for _, c := range []struct {
		solve func(*core.Problem, core.Psi, []float64, core.SolveSettings) (*core.Reference, error)
		want  string
	}{{core.Solve, "stopped at sweep 4: time limit reached"}, {core.SolveFISTA, "stopped at iteration 4: time limit reached"}} {
		_, err := c.solve(p, psi, nil, core.SolveSettings{Tol: 1e-14, Context: &countdown{context.Background(), 3, stop}})
		if !errors.Is(err, stop) || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("error %v, want one that says %q", err, c.want)
		}
	}
}

// TestCoordinateDescentSweepsAndWarmStart: MaxIters bounds the sweeps (the
// certificate is then recorded as it is, above Tol), and a solve started
// at the solution certifies it after its first sweep.
func TestCoordinateDescentSweepsAndWarmStart(t *testing.T) {
	p, psi := lasso(t, regression(5, []int{40, 30}, 14, 0), losses.Squared{Intercept: true}, regularizers.L1{}, 0.05)
	short, err := core.Solve(p, psi, nil, core.SolveSettings{MaxIters: 2, Tol: 1e-12})
	if err != nil {
		t.Fatal(err)
	}
	if k, _ := core.Certificate(p, psi, short.W); short.Iters != 2 || short.Residual <= 1e-12 || k != short.Residual {
		t.Fatalf("MaxIters 2: %d sweeps, recorded certificate %g, at W %g", short.Iters, short.Residual, k)
	}
	full, err := core.Solve(p, psi, nil, core.SolveSettings{Tol: 1e-12})
	if err != nil {
		t.Fatal(err)
	}
	warm, err := core.Solve(p, psi, full.W, core.SolveSettings{Tol: 1e-12})
	if err != nil {
		t.Fatal(err)
	}
	if warm.Iters != 1 || warm.Residual > 1e-12 || full.Iters < 3 {
		t.Fatalf("warm start: %d sweeps (certificate %g); cold: %d sweeps", warm.Iters, warm.Residual, full.Iters)
	}
}

// TestSolverForPicksByProblemClass: coordinate descent for least squares
// (squared or trace) with ℓ1 or elastic net, whatever the mirror map;
// restarted FISTA for other losses and penalties.
func TestSolverForPicksByProblemClass(t *testing.T) {
	f := regression(6, []int{10, 10}, 4, 0)
	f.Shape = [2]int{2, 2}
	labels := &core.Federated{Name: "labels", Features: 4, Classes: 2, Train: f.Train}
	for _, c := range []struct {
		f    *core.Federated
		loss core.Loss
		reg  core.Regularizer
		want string
	}{
		{f, losses.Squared{Intercept: true}, regularizers.L1{}, core.SolverCD},
		{f, losses.Squared{}, regularizers.ElasticNet{L1Ratio: 0.3}, core.SolverCD},
		{f, losses.Trace{Intercept: true}, regularizers.L1{}, core.SolverCD},
		{f, losses.Trace{Intercept: true}, regularizers.Nuclear{}, core.SolverFISTA},
		{f, losses.Squared{Intercept: true}, regularizers.L2Sq{}, core.SolverFISTA},
		{f, losses.Squared{Intercept: true}, regularizers.L1Ball{Radius: 1}, core.SolverFISTA},
		{binary(labels), losses.Logistic{}, regularizers.L1{}, core.SolverFISTA},
	} {
		p, psi := lasso(t, c.f, c.loss, c.reg, 0.1)
		if got := core.SolverFor(p, psi); got != c.want {
			t.Fatalf("%T + %T: solver %s, want %s", c.loss, c.reg, got, c.want)
		}
	}
	p, err := core.NewProblem(f, losses.Squared{Intercept: true}, core.Penalty{Name: "l1", Reg: regularizers.L1{}, Lambda: sched.Constant(0.1)},
		regularizers.PNorm{P: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := core.SolverFor(p, p.Penalty.At(0, p.Layout)); got != core.SolverCD {
		t.Fatalf("with the p-norm mirror map: solver %s, want %s (the optimum does not depend on it)", got, core.SolverCD)
	}
}

// binary returns f with labels 0/1 (the sign of y − its mean).
func binary(f *core.Federated) *core.Federated {
	out := *f
	out.Train = nil
	for _, d := range f.Train {
		c := *d
		mean := floats.Sum(d.Y) / float64(d.N)
		c.Y = make([]float64, d.N)
		for i, y := range d.Y {
			if y > mean {
				c.Y[i] = 1
			}
		}
		out.Train = append(out.Train, &c)
	}
	return &out
}

// TestCertificateBoundsTheShortestSubgradient: at random points the
// numerator of K, ‖w − prox_ψ(w − ∇F(w))‖₂, is at most dist(0, ∂Φ(w)),
// which for the LASSO is computed coordinatewise (g_j + λ·sign(w_j) on the
// support, max(|g_j| − λ, 0) off it, the derivative for the intercept);
// and K is 0 where Φ is minimal in closed form (the orthogonal case is in
// TestCoordinateDescentOrthogonalDesign).
func TestCertificateBoundsTheShortestSubgradient(t *testing.T) {
	const lambda = 0.3
	loss := losses.Squared{Intercept: true}
	p, psi := lasso(t, regression(7, []int{20, 30}, 8, 0), loss, regularizers.L1{}, lambda)
	rng := rand.New(rand.NewPCG(7, 7))
	g, scratch := make([]float64, p.Dim()), make([]float64, p.Dim())
	for trial := range 200 {
		w := make([]float64, p.Dim())
		for j := range w {
			if rng.IntN(3) > 0 {
				w[j] = rng.NormFloat64() * []float64{1e-3, 1, 10}[trial%3]
			}
		}
		p.Smooth(loss.NewEvaluator(p.Layout), w, false, g, scratch)
		sub := 0.0
		for j, gj := range g {
			switch {
			case j == p.Data.Features: // intercept
				sub += gj * gj
			case w[j] != 0:
				sub += (gj + lambda*math.Copysign(1, w[j])) * (gj + lambda*math.Copysign(1, w[j]))
			default:
				sub += max(math.Abs(gj)-lambda, 0) * max(math.Abs(gj)-lambda, 0)
			}
		}
		k, _ := core.Certificate(p, psi, w)
		if num := k * math.Max(1, floats.Norm(g, 2)); num > math.Sqrt(sub)*(1+1e-12)+1e-14 {
			t.Fatalf("trial %d: ‖G(w)‖ = %g > dist(0, ∂Φ(w)) = %g", trial, num, math.Sqrt(sub))
		}
	}
}
