package algorithms

import (
	"math"
	"slices"
	"testing"

	"github.com/fedlab/fedlab/core"
)

// Hand computations of the FedDA paper's baselines on two clients with
// f_i(y) = ½·mean‖y − row‖², whose full-batch gradient is y − μ_i (μ_i the
// client's row mean), K = 2 local steps and equal weights.

var (
	handData = centers([][]float64{{1, -2}, {3, 0}}, [][]float64{{-1, 1}, {0, 3}})
	handMu   = [][]float64{{2, -1}, {-0.5, 2}}
	handX0   = []float64{0.5, 0.25}
)

// handRun runs name for the given rounds with full batches and K = 2.
func handRun(t *testing.T, name string, params map[string]any, rounds int) []float64 {
	t.Helper()
	res := run(t, problem(t, handData, "none", nil), algo(t, name, params), core.Settings{Rounds: rounds, LocalSteps: 2, W0: handX0})
	return res.Model
}

// localSteps applies two steps y ← y − step(y − μ + shift) from x and
// returns y.
func localSteps(x, mu, shift []float64, step float64) []float64 {
	y := slices.Clone(x)
	for range 2 {
		for j := range y {
			y[j] -= step * (y[j] - mu[j] + shift[j])
		}
	}
	return y
}

func TestScaffoldHand(t *testing.T) {
	const etaC, etaS = 0.1, 0.8
	x := slices.Clone(handX0)
	c := []float64{0, 0}
	ci := [][]float64{{0, 0}, {0, 0}}
	for range 2 {
		var dy, dc [2][]float64
		for i := range 2 {
			shift := []float64{c[0] - ci[i][0], c[1] - ci[i][1]}
			y := localSteps(x, handMu[i], shift, etaC)
			dy[i] = []float64{y[0] - x[0], y[1] - x[1]}
			dc[i] = make([]float64, 2)
			for j := range 2 {
				cPlus := ci[i][j] - c[j] + (x[j]-y[j])/(2*etaC)
				dc[i][j] = cPlus - ci[i][j]
				ci[i][j] = cPlus
			}
		}
		for j := range 2 {
			x[j] += etaS * (dy[0][j] + dy[1][j]) / 2
			c[j] += (dc[0][j] + dc[1][j]) / 2 // |S|/N = 1
		}
	}
	assertVec(t, "scaffold", handRun(t, "scaffold", map[string]any{"eta_c": etaC, "eta_s": etaS}, 2), x, 1e-14)
	if math.Abs(ci[0][0]-c[0]) < 1e-3 {
		t.Fatal("test is vacuous: the control variates are zero")
	}
}

// FedAdam by hand, with Reddi et al.'s initialisation v₋₁ = τ² (Alg. 2).
// fedlab before issue 10 started at v₋₁ = 0; the test checks that the
// two differ visibly here, so it pins the initialisation.
func TestFedAdamHand(t *testing.T) {
	const etaC, etaS, b1, b2, tau = 0.1, 0.05, 0.9, 0.99, 0.1
	hand := func(v0 float64) []float64 {
		x := slices.Clone(handX0)
		m, v := []float64{0, 0}, []float64{v0, v0}
		for range 2 {
			y0, y1 := localSteps(x, handMu[0], []float64{0, 0}, etaC), localSteps(x, handMu[1], []float64{0, 0}, etaC)
			for j := range 2 {
				d := (y0[j]-x[j])/2 + (y1[j]-x[j])/2
				m[j] = b1*m[j] + (1-b1)*d
				v[j] = b2*v[j] + (1-b2)*d*d
				x[j] += etaS * m[j] / (math.Sqrt(v[j]) + tau)
			}
		}
		return x
	}
	got := handRun(t, "fedadam", map[string]any{"eta_c": etaC, "eta_s": etaS, "beta1": b1, "beta2": b2, "tau": tau}, 2)
	assertVec(t, "fedadam", got, hand(tau*tau), 1e-14)
	if old := hand(0); math.Abs(old[0]-got[0]) < 1e-3 {
		t.Fatalf("test is vacuous: v₋₁ = 0 gives %v, v₋₁ = τ² gives %v", old, got)
	}
}

func TestFedCMHand(t *testing.T) {
	const etaC, etaS, alpha = 0.1, 0.7, 0.3
	x := slices.Clone(handX0)
	dir := []float64{0, 0}
	for range 3 {
		var u [2]float64
		for i := range 2 {
			y := slices.Clone(x)
			for range 2 {
				for j := range y {
					y[j] -= etaC * (alpha*(y[j]-handMu[i][j]) + (1-alpha)*dir[j])
				}
			}
			for j := range 2 {
				u[j] += (y[j] - x[j]) / 2
			}
		}
		for j := range 2 {
			dir[j] = -u[j] / (etaC * 2)
			x[j] += etaS * u[j]
		}
	}
	assertVec(t, "fedcm", handRun(t, "fedcm", map[string]any{"eta_c": etaC, "eta_s": etaS, "alpha": alpha}, 3), x, 1e-14)
}

// amsgradHand runs two AMSGrad steps on client i from (x, m, v, v̂).
func amsgradHand(x, mu, m, v, vhat []float64, eta, b1, b2, eps float64) {
	for range 2 {
		for j := range x {
			g := x[j] - mu[j]
			m[j] = b1*m[j] + (1-b1)*g
			v[j] = b2*v[j] + (1-b2)*g*g
			vhat[j] = math.Max(vhat[j], v[j])
			x[j] -= eta * m[j] / (math.Sqrt(vhat[j]) + eps)
		}
	}
}

func TestLocalAMSGradHand(t *testing.T) {
	const eta, b1, b2, eps = 0.05, 0.8, 0.95, 1e-3
	x, m, vhat := slices.Clone(handX0), []float64{0, 0}, []float64{0, 0}
	for range 2 {
		var nx, nm, nvh [2][]float64
		for i := range 2 {
			nx[i], nm[i], nvh[i] = slices.Clone(x), slices.Clone(m), slices.Clone(vhat)
			amsgradHand(nx[i], handMu[i], nm[i], slices.Clone(vhat), nvh[i], eta, b1, b2, eps)
		}
		for j := range 2 {
			x[j], m[j], vhat[j] = (nx[0][j]+nx[1][j])/2, (nm[0][j]+nm[1][j])/2, (nvh[0][j]+nvh[1][j])/2
		}
	}
	got := handRun(t, "local_amsgrad", map[string]any{"eta_c": eta, "beta1": b1, "beta2": b2, "eps": eps}, 2)
	assertVec(t, "local_amsgrad", got, x, 1e-14)
}

func TestLocalAdaptHand(t *testing.T) {
	const etaC, etaS, b1, b2, eps, tau = 0.05, 0.1, 0.8, 0.95, 1e-3, 1e-2
	x := slices.Clone(handX0)
	ms, vs := []float64{0, 0}, []float64{tau * tau, tau * tau} // v₋₁ = τ², as FedAdam
	for range 2 {
		d := []float64{0, 0}
		for i := range 2 {
			y := slices.Clone(x)
			amsgradHand(y, handMu[i], []float64{0, 0}, []float64{0, 0}, []float64{0, 0}, etaC, b1, b2, eps)
			for j := range 2 {
				d[j] += (y[j] - x[j]) / 2
			}
		}
		for j := range 2 {
			ms[j] = b1*ms[j] + (1-b1)*d[j]
			vs[j] = b2*vs[j] + (1-b2)*d[j]*d[j]
			x[j] += etaS * ms[j] / (math.Sqrt(vs[j]) + tau)
		}
	}
	got := handRun(t, "local_adapt", map[string]any{"eta_c": etaC, "eta_s": etaS, "beta1": b1, "beta2": b2, "eps": eps, "tau": tau}, 2)
	assertVec(t, "local_adapt", got, x, 1e-14)
}

// MIME-MVR by hand for two rounds with full anchor batches: clients step
// along g(y) + (1 − a)(m − g(x_τ)) with the frozen m; the server averages
// and sets m ← a c̄ + (1 − a)(m + c̄ − c̃̄), c̄ = ∇F(x_τ), c̃̄ = ∇F(x_{τ−1}).
func TestMimeMVRHand(t *testing.T) {
	const lr, c = 0.1, 30.0 // constant step: a = cη² = 0.3
	a := c * lr * lr
	grad := func(x []float64) []float64 {
		return []float64{x[0] - (handMu[0][0]+handMu[1][0])/2, x[1] - (handMu[0][1]+handMu[1][1])/2}
	}
	x, xPrev := slices.Clone(handX0), slices.Clone(handX0)
	m := grad(x)
	for range 2 {
		next := []float64{0, 0}
		for i := range 2 {
			y := slices.Clone(x)
			for range 2 {
				for j := range y {
					y[j] -= lr * ((y[j] - handMu[i][j]) + (1-a)*(m[j]-(x[j]-handMu[i][j])))
				}
			}
			for j := range 2 {
				next[j] += y[j] / 2
			}
		}
		cx, cp := grad(x), grad(xPrev)
		for j := range m {
			m[j] = a*cx[j] + (1-a)*(m[j]+cx[j]-cp[j])
		}
		xPrev, x = x, next
	}
	got := handRun(t, "mime_mvr", map[string]any{"lr": lr, "power": 0.0, "w": 0.0, "c": c}, 2)
	assertVec(t, "mime_mvr", got, x, 1e-14)
}

// With a = 1 (c huge) MIME-MVR's local step is plain SGD: it is FedAvg.
func TestMimeMVRFullWeightIsFedAvg(t *testing.T) {
	data := randomCenters(10, 12, 6, 3)
	s := feddaSettings
	s.EvalEvery = 0
	mime := run(t, problem(t, data, "none", nil), algo(t, "mime_mvr", map[string]any{"lr": 0.1, "power": 0.0, "w": 0.0, "c": 1e9}), s)
	avg := run(t, problem(t, data, "none", nil), algo(t, "fedavg", map[string]any{"eta_c": 0.1, "eta_s": 1.0}), s)
	assertVec(t, "model", mime.Model, avg.Model, 1e-12)
}
