package datasets

import (
	"fmt"
	"math"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/losses"
	"github.com/fedlab/fedlab/regularizers"
	"github.com/fedlab/fedlab/schedules/sched"
)

// HeteroLogRegParams are the logistic-regression generator's parameters.
type HeteroLogRegParams struct {
	heteroHead
	Samples int `param:"samples" min:"1" doc:"samples n per client (client m + M/2 mirrors client m's samples)"`
	heteroTail
	Tol float64 `param:"tol" min:"0" doc:"optimality-certificate tolerance of the core.Solve run that computes w* (restarted FISTA; see docs/architecture.md)"`
}

func init() {
	defineHetero("hetero_logreg",
		"Liang et al.'s heterogeneous sparse logistic regression: paired clients w̃ = (α, ±β), labels Ber(σ(⟨x, w̃^m⟩)); "+
			"the optimum w* = (α*, 0) is computed by core.Solve (use loss logistic{intercept = false})",
		HeteroLogRegParams{heteroHead: defaultHeteroHead, Samples: 128, heteroTail: defaultHeteroTail, Tol: 1e-12},
		func(p HeteroLogRegParams) (heteroProblem, error) {
			return NewHeteroLogReg(heteroSpecOf(p.heteroHead, p.Samples, p.heteroTail), p.Tol)
		})
}

// HeteroLogReg is the decentralized sparse logistic regression of Liang,
// Peng & Zhang (Sec. 7, Lemma D.2; the authors' code for the constants).
// Clients m and m + M/2 have the optima w̃ = (α^m, β^m) and (α^m, −β^m),
// split as R^s × R^{d−s}: on the support α^m_j = b_j + scale·N(0, 1), off
// it β^m = scale·N(0, I) (mode "random"). Client m draws x ~ N(0, σ₁²I) and
// y ~ Ber(σ(⟨x, w̃^m⟩)) ∈ {0, 1}; client m + M/2 gets the same samples with
// the coordinates off the support negated, which is a draw from its own
// distribution. The empirical objective (1/M) Σ_m F_m is then invariant
// under w ↦ (w_S, −w_{S^c}), so its unique minimizer w* is exactly
// s-sparse, as the population one is (Lemma D.2). The truth is w*,
// computed by core.Solve (restarted FISTA) on the training data, with its
// off-support coordinates, zero in exact arithmetic, set to 0.
type HeteroLogReg struct {
	Hetero
	Iters int // FISTA iterations of the solve
}

// NewHeteroLogReg generates the problem and solves for w* to the relative
// change tol.
func NewHeteroLogReg(s heteroSpec, tol float64) (*HeteroLogReg, error) {
	d, n, M := s.Dim, s.Samples, s.Clients
	if err := s.check(true); err != nil {
		return nil, err
	}
	h := &HeteroLogReg{Hetero: Hetero{Optima: make([][]float64, M)}}
	b := s.base()
	rng := newRNG(s.Seed, 0x1061)
	half := M / 2
	for m := range half {
		w := make([]float64, d)
		for j := range d {
			switch {
			case s.Mode == "random" && j < s.Support:
				w[j] = b[j] + s.Scale*rng.NormFloat64()
			case s.Mode == "random":
				w[j] = s.Scale * rng.NormFloat64()
			case j < s.Support && m < M/4: // all_one: quarters b+5, b−5, b+5, b−5
				w[j] = b[j] + s.Scale
			case j < s.Support:
				w[j] = b[j] - s.Scale
			default: // first half +scale, second half −scale off the support
				w[j] = s.Scale
			}
		}
		h.Optima[m] = w
		h.Optima[m+half] = mirrored(w, s.Support)
	}
	f := &core.Federated{
		Name:     fmt.Sprintf("hetero_logreg (d=%d, s=%d, M=%d, n=%d)", d, s.Support, M, n),
		Train:    make([]*core.Data, M),
		Features: d,
		Classes:  2,
	}
	sd := math.Sqrt(s.CovVar)
	for m := range half {
		r := newRNG(s.Seed, 0x1062+uint64(m))
		x, y := make([]float64, n*d), make([]float64, n)
		for i := range n {
			row := x[i*d : (i+1)*d]
			margin := 0.0
			for j := range row {
				row[j] = sd * r.NormFloat64()
				margin += row[j] * h.Optima[m][j]
			}
			if r.Float64() < 1/(1+math.Exp(-margin)) {
				y[i] = 1
			}
		}
		xm := make([]float64, n*d)
		for i := range n {
			copy(xm[i*d:(i+1)*d], mirrored(x[i*d:(i+1)*d], s.Support))
		}
		f.Train[m] = &core.Data{X: x, Y: y, N: n, Features: d}
		f.Train[m+half] = &core.Data{X: xm, Y: append([]float64(nil), y...), N: n, Features: d}
	}
	if err := f.Check(); err != nil {
		return nil, err
	}
	p, err := core.NewProblem(f, losses.Logistic{}, core.Penalty{Name: "none", Reg: regularizers.None{}, Lambda: sched.Constant(1)}, nil)
	if err != nil {
		return nil, err
	}
	ref, err := core.Solve(p, p.Penalty.At(0, p.Layout), nil, core.SolveSettings{Tol: tol, MaxIters: 200000})
	if err != nil {
		return nil, fmt.Errorf("hetero_logreg: computing w*: %w", err)
	}
	h.Optimum = make([]float64, d)
	copy(h.Optimum, ref.W[:s.Support])
	h.Iters = ref.Iters
	f.Truth = &core.Truth{Weights: append([]float64(nil), h.Optimum...)}
	h.Data = f
	return h, nil
}

// mirrored returns (v_S, −v_{S^c}) with S = {0, …, s−1}.
func mirrored(v []float64, s int) []float64 {
	out := append([]float64(nil), v...)
	for j := s; j < len(out); j++ {
		out[j] = -out[j]
	}
	return out
}
